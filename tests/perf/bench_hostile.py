"""Hostile sizes benchmark: what a scripted agent sending huge things costs the app.

Each case runs in a fresh process (its peak memory and stalls are its own, not what the cases
before it left behind): a headless app (120x40) on ``hostile_agent.py`` as a real subprocess.
A prompt case is one prompt whose turn sends one huge thing (see the agent's docstring); it
ends when its turn has ended and the transcript view has settled (a permission dialog is
answered as soon as it is shown). ``sessions`` opens the session browser on 100,000 sessions
listed in one page. Figures:

* ``cases``: per case its wall time (``s``), its longest event-loop stall (``max_stall_ms``, a
  ticker sleeping 5 ms), the resident memory after it (``rss_mb``) and its process's peak
  (``peak_rss_mb``, ``ru_maxrss``);
* ``max_stall_ms`` and ``peak_rss_mb``: the largest over the cases;
* ``sessions_first_rows_ms``: from the browser's toggle to the first frame showing rows;
* ``utf8_replaced``: whether the message with invalid UTF-8 was shown, with U+FFFD in place of
  the bad bytes (rather than dropped);
* the floods (``KIND-flood``, 10,000 messages of one kind: see ``hostile_floods``) add their CPU
  time (``cpu_s``) and how soon a key typed meanwhile is on screen (``key_ms``), and
  ``max_flood_cpu_s`` and ``max_key_ms`` are the largest over them.

Goals: no stall over 200 ms, peak RSS under 300 MB; a flood: at most 2 s of CPU, and a key on
screen within 200 ms.

    python tests/perf/bench_hostile.py [SCALE [SESSIONS]]   # HOSTILE_CASES=a,b: a subset
    HOSTILE_PROFILE=DIR ...   # each case also writes DIR/CASE.prof (cProfile of the loop thread)
                              # and DIR/CASE.stalls (where every thread was during stalls)
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hostile_floods import FLOOD_CASES, flood

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
CASES = (*PROMPT_CASES, "sessions", *FLOOD_CASES)
WITHIN = 600.0


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


async def measure(project: Path, agent: list[str], case: str) -> dict[str, Any]:
    """One case in this process: its figures, and ``utf8``/``first_rows_ms`` where they apply."""
    from bench_sessions import Frames, session_rows, wait
    from loop_ticker import Ticker
    from stall_sampler import StallSampler

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.log_file import LogFile
    from acp_tui.client.process.command import AgentCommand
    from acp_tui.client.session.entries import MessageEntry
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.browser.rows import SessionRows
    from acp_tui.ui.dialogs.permission import PermissionDialog
    from acp_tui.ui.transcript.view import TranscriptView

    PermissionDialog.QUIET = 0.0
    launch = LaunchSpec(
        command=AgentCommand(agent, cwd=project, name="hostile"),
        cwd=project,
        display_name="hostile",
    )
    app = AcpApp(launch)
    figures: dict[str, Any] = {}
    profile_dir = os.environ.get("HOSTILE_PROFILE")
    profiler = cProfile.Profile() if profile_dir else None
    sampler = StallSampler() if profile_dir else None
    # The log file the app writes its warnings and the agents' notices to, as `run_app` does
    # (without it, every warning went to stderr, which the test app prints: a cost of the
    # benchmark, not of the app).
    log_file = LogFile(app.paths.log_dir).install()
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None, within=WITHIN)
        await pilot.pause()
        await app.chat.open_browser()  # mounted (hidden), as it was at start before first use
        ws, slot = app.workspace, app.slot
        assert ws is not None
        assert slot is not None
        ticker = Ticker()
        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        ticker.reset()
        if profiler is not None and sampler is not None:
            sampler.start()
            sampling = asyncio.create_task(sampler.tick())
            profiler.enable()
        started = time.perf_counter()
        if case == "sessions":
            panel = app.chat.query_one(SessionBrowser)
            rows = app.chat.query_one(SessionRows)
            frames = Frames(app)
            frames.arm(lambda: panel.display and session_rows(rows) > 0 and rows.region.height > 0)
            await app.action_toggle_browser()
            figures["first_rows_ms"] = (await frames.shown_time(within=WITHIN) - started) * 1000
            await wait(lambda: panel.inflight is None, within=WITHIN)
        elif case in FLOOD_CASES:
            turns = len([e for e in slot.transcript.entries if isinstance(e, MessageEntry)])

            def flood_ended() -> bool:
                entries = slot.transcript.entries
                count = len([e for e in entries if isinstance(e, MessageEntry)])
                view = app.chat.current_pane.query_one(TranscriptView)
                return count > turns and not slot.busy and view.settled

            figures.update(await flood(app, ws, slot, case, flood_ended))
        else:
            turns = len([e for e in slot.transcript.entries if isinstance(e, MessageEntry)])
            ws.prompts.submit(slot, case)
            if case.startswith("permission"):
                await wait(lambda: isinstance(app.screen, PermissionDialog), within=WITHIN)
                dialog = app.screen
                assert isinstance(dialog, PermissionDialog)
                await wait(lambda d=dialog: d.accepting, within=WITHIN)  # type: ignore[misc]
                dialog.answer(dialog.request.options[0].option_id)

            def ended() -> bool:
                entries = slot.transcript.entries
                count = len([e for e in entries if isinstance(e, MessageEntry)])
                view = app.chat.current_pane.query_one(TranscriptView)
                return count > turns and not slot.busy and view.settled

            await wait(ended, within=WITHIN)
        await pilot.pause()
        if profiler is not None and sampler is not None:
            profiler.disable()
            sampler.stop()
            await sampling
            profiler.dump_stats(str(Path(profile_dir or ".") / f"{case}.prof"))
            (Path(profile_dir or ".") / f"{case}.stalls").write_text(sampler.report(25))
        figures["s"] = round(time.perf_counter() - started, 3)
        figures["max_stall_ms"] = round(ticker.reset() * 1000, 1)
        figures["rss_mb"] = rss_mb()
        if case == "utf8":
            agent_text = "\n".join(
                e.text for e in slot.transcript.entries if isinstance(e, MessageEntry)
            )
            figures["utf8"] = "bad \ufffd\ufffd bytes" in agent_text
        ticker.running = False
        await tick
    log_file.uninstall()
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return figures


def run_case(case: str, scale: float, sessions: int) -> dict[str, Any]:
    """One case in a fresh process (so that its peak memory and stalls are its own)."""
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
        argv.append(case)
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the hostile case {case} failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def run(scale: float = 1.0, sessions: int = 100_000) -> dict[str, Any]:
    """Every case (or those of ``HOSTILE_CASES``, comma-separated), each in its own process."""
    only = os.environ.get("HOSTILE_CASES")
    names = only.split(",") if only else list(CASES)
    cases = {name: run_case(name, scale, sessions) for name in names}
    result: dict[str, Any] = {
        "bench": "hostile",
        "cases": {
            name: {k: v for k, v in figures.items() if k not in ("utf8", "first_rows_ms")}
            for name, figures in cases.items()
        },
        "max_stall_ms": max(c["max_stall_ms"] for c in cases.values()),
        "peak_rss_mb": max(c["peak_rss_mb"] for c in cases.values()),
    }
    floods = [c for name, c in cases.items() if name in FLOOD_CASES]
    if floods:
        result["max_flood_cpu_s"] = max(c["cpu_s"] for c in floods)
        result["max_key_ms"] = max(c.get("key_ms", 0.0) for c in floods)
    if "sessions" in cases:
        result["sessions_first_rows_ms"] = round(cases["sessions"]["first_rows_ms"], 1)
    if "utf8" in cases:
        result["utf8_replaced"] = cases["utf8"]["utf8"]
    return result


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        project, scale, sessions, case = sys.argv[2:6]
        agent = [sys.executable, str(HERE / "hostile_agent.py"), "--scale", scale]
        agent += ["--sessions", sessions]
        print(json.dumps(asyncio.run(measure(Path(project), agent, case))))
        return 0
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0  # smaller sizes, for a quick look
    sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    print(json.dumps(run(scale, sessions)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
