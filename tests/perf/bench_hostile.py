"""Hostile sizes benchmark: what a scripted agent sending huge things costs the app.

A fresh process (peak memory is per process): a headless app (120x40) on ``hostile_agent.py``
as a real subprocess. Each case is one prompt whose turn sends one huge thing (see the agent's
docstring); the case ends when its turn has ended and the transcript view has settled (a
permission dialog is answered as soon as it is shown). ``sessions`` opens the session browser on
100,000 sessions listed in one page. Figures:

* ``max_stall_ms``: the longest event-loop stall over all cases (a ticker sleeping 5 ms), and
  per case in ``cases`` with its wall time (``s``) and the resident memory after it (``rss_mb``);
* ``sessions_first_rows_ms``: from the browser's toggle to the first frame showing rows;
* ``peak_rss_mb``: the process's peak resident memory (``ru_maxrss``);
* ``utf8_replaced``: whether the message with invalid UTF-8 was shown, with U+FFFD in place of
  the bad bytes (rather than dropped).

Goals: no stall over 200 ms, peak RSS under 400 MB.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SIZE = (120, 40)
PROMPT_CASES = (
    "utf8",
    "permission-title",
    "permission-options",
    "plan",
    "commands",
    "locations",
    "session-title",
    "line",
)
WITHIN = 600.0


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


class Ticker:
    """The longest gap between 5 ms sleeps of the event loop, since the last ``reset``."""

    def __init__(self) -> None:
        self.max_gap = 0.0
        self.running = True

    def reset(self) -> float:
        gap, self.max_gap = self.max_gap, 0.0
        return gap

    async def run(self) -> None:
        last = time.perf_counter()
        while self.running:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.max_gap = max(self.max_gap, now - last - 0.005)
            last = now


async def measure(project: Path, agent: list[str]) -> dict[str, Any]:
    from bench_sessions import Frames, session_rows, wait

    from acp_tui.client.command import AgentCommand
    from acp_tui.client.launch import LaunchSpec
    from acp_tui.client.transcript import MessageEntry
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.browser.rows import SessionRows
    from acp_tui.ui.dialogs.permission import PermissionDialog
    from acp_tui.ui.transcript_view import TranscriptView

    PermissionDialog.GRACE = 0.0
    launch = LaunchSpec(
        agent=AgentCommand(agent, cwd=project, name="hostile"), cwd=project, display_name="hostile"
    )
    app = AcpApp(launch)
    cases: dict[str, dict[str, Any]] = {}
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None, within=WITHIN)
        await pilot.pause()
        ws, slot = app.workspace, app.slot
        assert ws is not None
        assert slot is not None
        ticker = Ticker()
        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        only = os.environ.get("HOSTILE_CASES")  # a comma-separated subset, for a closer look
        for case in only.split(",") if only else PROMPT_CASES:
            ticker.reset()
            started = time.perf_counter()
            turns = len([e for e in slot.transcript.entries if isinstance(e, MessageEntry)])
            ws.submit(slot, case)
            if case.startswith("permission"):
                await wait(lambda: isinstance(app.screen, PermissionDialog), within=WITHIN)
                dialog = app.screen
                assert isinstance(dialog, PermissionDialog)
                await wait(lambda d=dialog: d.accepting, within=WITHIN)  # type: ignore[misc]
                dialog.answer(dialog.request.options[0].option_id)

            def ended(turns: int = turns) -> bool:
                entries = slot.transcript.entries
                count = len([e for e in entries if isinstance(e, MessageEntry)])
                view = app.chat.current_pane.query_one(TranscriptView)
                return count > turns and not slot.busy and view.settled

            await wait(ended, within=WITHIN)
            await pilot.pause()
            cases[case] = {
                "s": round(time.perf_counter() - started, 3),
                "max_stall_ms": round(ticker.reset() * 1000, 1),
                "rss_mb": rss_mb(),
            }
        agent_text = "\n".join(
            e.text for e in slot.transcript.entries if isinstance(e, MessageEntry)
        )
        utf8 = "bad \ufffd\ufffd bytes" in agent_text

        # -- 100,000 sessions in one page ----------------------------------------------------
        panel = app.chat.query_one(SessionBrowser)
        rows = app.chat.query_one(SessionRows)
        frames = Frames(app)
        frames.arm(lambda: panel.display and session_rows(rows) > 0 and rows.region.height > 0)
        ticker.reset()
        started = time.perf_counter()
        app.action_toggle_browser()
        first_rows = await frames.shown_time(within=WITHIN) - started
        await wait(lambda: panel.inflight is None, within=WITHIN)
        await pilot.pause()
        cases["sessions"] = {
            "s": round(time.perf_counter() - started, 3),
            "max_stall_ms": round(ticker.reset() * 1000, 1),
            "rss_mb": rss_mb(),
        }
        ticker.running = False
        await tick
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "bench": "hostile",
        "cases": cases,
        "max_stall_ms": max(c["max_stall_ms"] for c in cases.values()),
        "peak_rss_mb": round(peak, 1),
        "sessions_first_rows_ms": round(first_rows * 1000, 1),
        "utf8_replaced": utf8,
    }


def run(scale: float = 1.0, sessions: int = 100_000) -> dict[str, Any]:
    """One measurement in a fresh process (so that the peak memory is this benchmark's)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        env = {
            **os.environ,
            "ACP_TUI_HOME": str(root / "home"),
            "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO)]),
        }
        env.pop("TEXTUAL", None)
        argv = [sys.executable, __file__, "--child", str(project), str(scale), str(sessions)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the hostile measurement failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        project, scale, sessions = sys.argv[2], sys.argv[3], sys.argv[4]
        agent = [sys.executable, str(HERE / "hostile_agent.py"), "--scale", scale]
        agent += ["--sessions", sessions]
        print(json.dumps(asyncio.run(measure(Path(project), agent))))
        return 0
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0  # smaller sizes, for a quick look
    sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    print(json.dumps(run(scale, sessions)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
