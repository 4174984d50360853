"""Replay benchmark: resuming a long session with replay, through the session browser's action.

The demo agent holds one session of N turns (``gen_demo_data.write_history``: a user message,
~1 KB of markdown in 20-byte chunks, a tool call with a diff); the headless app (120x40) opens it
with ``open_listed(agent, info, replay=True)`` (`session/load`), as Enter on its row does. Each
measurement runs in a fresh process, whose peak RSS is the app's own. Figures:

* ``interactive_s``: from starting the load to the first frame showing the session open in the
  chat, the prompt focused and the transcript's visible part rendered;
* ``client_cpu_s``: the app process's CPU time over that span (the agent's is not counted);
* ``peak_rss_mb``: the process's peak resident memory (``ru_maxrss``), startup included;
* ``turns_2000_ratio``: ``interactive_s`` for 2,000 turns over that for 1,000;
* ``progress_updates``: how many "Replaying… N updates" counts the status line showed before the
  load ended, ``max_stall_ms``: the longest event-loop stall (a 5 ms ticker) meanwhile.

    python tests/perf/bench_replay.py --child DATA PROJECT SESSION_ID   # one measurement
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SIZE = (120, 40)


async def measure(
    data: Path, project: Path, session_id: str, agent: list[str] | None = None
) -> dict[str, Any]:
    """One measurement; ``agent`` replaces the demo agent's command (its data dir is added)."""
    from bench_sessions import Frames, wait

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.process.command import AgentCommand
    from acp_tui.protocol.methods import SessionInfo
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.transcript.view import TranscriptView

    argv = [*(agent or [sys.executable, "-m", "acp_tui.demo_agent"]), "--data-dir", str(data)]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=project, name="demo"), cwd=project, display_name="demo"
    )
    app = AcpApp(launch)
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None)
        await pilot.pause()
        await app.chat.open_browser()
        panel = app.chat.query_one(SessionBrowser)
        statuses: list[str] = []
        original = panel.set_status

        def spy(text: str, level: Any = "info") -> None:
            statuses.append(text)
            original(text, level)

        panel.set_status = spy  # type: ignore[method-assign]
        frames = Frames(app)

        def interactive() -> bool:
            session = app.session
            if session is None or session.session_id != session_id:
                return False
            pane = app.chat.current_pane  # the session opens in a tab of its own
            view = pane.query_one(TranscriptView)
            return view.transcript is session.transcript and pane.prompt.has_focus and view.settled

        from loop_ticker import Ticker

        ticker = Ticker()

        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        info = SessionInfo(session_id=session_id, cwd=str(project), title="the long session")
        frames.arm(interactive)
        cpu = time.process_time()
        started = time.perf_counter()
        assert app.workspace is not None
        assert app.slot is not None
        app.workspace.open_listed(app.slot.agent, info, replay=True)
        shown = await frames.shown_time(within=300) - started
        cpu = time.process_time() - cpu
        ticker.running = False
        await tick
        assert app.session is not None
        entries = len(app.session.transcript.entries)
        await wait(lambda: app.chat.current_pane.query_one(TranscriptView).settled)
    opened = next(i for i, s in enumerate(statuses) if s.startswith("Opened"))
    progress = [s for s in statuses[:opened] if s.endswith(" updates")]
    return {
        "interactive_s": round(shown, 3),
        "client_cpu_s": round(cpu, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "max_stall_ms": round(ticker.max_gap * 1000, 1),
        "entries": entries,
        "progress_updates": len(progress),
        "last_progress": progress[-1] if progress else None,
    }


def one_run(turns: int) -> dict[str, Any]:
    """One measurement of ``turns`` turns, in a fresh process with fresh data."""
    import gen_demo_data

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        data = root / "demo"
        session_id = gen_demo_data.write_history(data, project, turns)
        env = {
            **os.environ,
            "ACP_TUI_HOME": str(root / "home"),
            "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO)]),
        }
        env.pop("TEXTUAL", None)
        argv = [sys.executable, __file__, "--child", str(data), str(project), session_id]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the replay measurement failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def run(sizes: tuple[int, int] = (1000, 2000), runs: int = 3) -> dict[str, Any]:
    small, large = sizes
    measured: dict[int, list[dict[str, Any]]] = {small: [], large: []}
    for _ in range(runs):
        for turns in sizes:
            measured[turns].append(one_run(turns))

    def median(turns: int, key: str) -> float:
        return round(float(statistics.median(r[key] for r in measured[turns])), 3)

    interactive = median(small, "interactive_s")
    result: dict[str, Any] = {
        "bench": "replay",
        "turns": small,
        "interactive_s": interactive,
        "peak_rss_mb": max(r["peak_rss_mb"] for r in measured[small]),
        "turns_2000_ratio": round(median(large, "interactive_s") / interactive, 2),
        "interactive_2000_s": median(large, "interactive_s"),
        "peak_rss_2000_mb": max(r["peak_rss_mb"] for r in measured[large]),
        "progress_updates": min(r["progress_updates"] for r in measured[small]),
        "max_stall_ms": max(r["max_stall_ms"] for r in measured[small]),
        "entries": measured[small][0]["entries"],
        "runs": runs,
        "interactive_runs_s": [r["interactive_s"] for r in measured[small]],
    }
    return result


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        data, project, session_id = sys.argv[2:5]
        print(json.dumps(asyncio.run(measure(Path(data), Path(project), session_id))))
        return 0
    print(json.dumps(run()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
