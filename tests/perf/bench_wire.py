"""Whole-path benchmarks: a real agent process -> pipe -> reader -> JSON -> models -> transcript
-> view, with the app headless (120x40). Each measurement runs in a fresh process.

``wire_stream``: ``wire_agent.py`` (a stdlib-only agent that costs next to nothing) answers one
prompt with a ~2 MB reply in 50,000 ``agent_message_chunk`` updates, written as fast as the
pipe takes them. Figures:

* ``wall_s``: from sending the prompt to the first frame showing the whole reply, settled;
* ``client_cpu_s``: the app process's CPU time over that span (the agent's is not counted),
  ``us_per_update`` that over the updates, ``loop_cpu_s`` the event loop's thread's part;
* ``max_stall_ms``: the longest event-loop stall meanwhile (a 5 ms ticker);
* ``agent_blocked_s`` / ``agent_max_block_ms``: how long the agent's writes waited for the
  client to read, in all and the longest single 64 KiB write;
* ``library_thread_cpu_s``: of ``client_cpu_s``, the history library's thread's (indexing the
  reply as it is recorded; None without the library), and ``library_all_cpu_s`` what indexing
  the reply took in all: the thread's until the library is synced after the reply is shown,
  and any child process it used.

``wire_replay``: the ``replay`` benchmark's measurement (`session/load` of an N-turn session from
the demo agent, see ``bench_replay``) with the client's CPU time: ``interactive_s``,
``client_cpu_s``, ``peak_rss_mb`` for 1,000 turns, and ``interactive_2000_s`` with
``turns_2000_ratio`` for 2,000.

    python tests/perf/bench_wire.py stream      # one wire_stream measurement
"""

from __future__ import annotations

import asyncio
import json
import os
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
UPDATES = 50_000


async def measure_stream(project: Path, stats: Path, updates: int) -> dict[str, Any]:
    from bench_sessions import Frames, wait

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.process.command import AgentCommand
    from acp_tui.client.session.entries import MessageEntry
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.transcript.render import warmed_up
    from acp_tui.ui.transcript.view import TranscriptView

    argv = [sys.executable, str(HERE / "wire_agent.py"), "--chunks", str(updates)]
    argv += ["--stats", str(stats)]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=project, name="wire-bench"), cwd=project, display_name="wire"
    )
    app = AcpApp(launch)
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None and app.slot is not None)
        await wait(warmed_up.is_set)
        await pilot.pause()
        slot, session = app.slot, app.session
        assert slot is not None
        assert session is not None
        assert app.workspace is not None
        transcript = session.transcript
        if not os.environ.get("WIRE_BENCH_NO_LIBRARY"):  # open, as it is a moment after start
            await wait(
                lambda: app.workspace is not None and app.workspace.cache.library is not None
            )
        frames = Frames(app)

        def done() -> bool:
            entries = transcript.entries
            if transcript.state != "idle" or len(entries) < 2:
                return False
            view = app.chat.current_pane.query_one(TranscriptView)
            return isinstance(entries[-1], MessageEntry) and view.settled

        from loop_ticker import Ticker

        ticker = Ticker()

        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        library_cpu = thread_cpu("history-library")
        children = children_cpu()
        cpu, loop_cpu = time.process_time(), time.thread_time()
        started = time.perf_counter()
        app.workspace.prompts.submit(slot, "stream the reply")
        await wait(lambda: transcript.state == "running", within=60)
        frames.arm(done)
        shown = await frames.shown_time(within=300)
        cpu, loop_cpu = time.process_time() - cpu, time.thread_time() - loop_cpu
        library_all = None
        if library_cpu is not None:
            started_cpu, library_cpu = library_cpu, (thread_cpu("history-library") or 0.0)
            library_cpu -= started_cpu
            # What indexing the reply took in all: also after it was shown, and in a child
            # process if it went to one (the agent is still running: not counted).
            library = app.workspace.cache.library
            if library is not None:
                await asyncio.to_thread(library.sync, 60)
            library_all = (thread_cpu("history-library") or 0.0) - started_cpu
            library_all += children_cpu() - children
        ticker.running = False
        await tick
        reply = transcript.entries[-1]
        assert isinstance(reply, MessageEntry)
        chunks = len(reply.parts)
    with open(stats) as figures:  # noqa: ASYNC230 (the app is done)
        agent = json.load(figures)
    return {
        "bench": "wire_stream",
        "updates": updates,
        "bytes": agent["bytes"],
        "wall_s": round(shown - started, 3),
        "client_cpu_s": round(cpu, 3),
        "loop_cpu_s": round(loop_cpu, 3),
        "us_per_update": round(cpu / updates * 1e6, 1),
        "max_stall_ms": round(ticker.max_gap * 1000, 1),
        "agent_blocked_s": agent["blocked_s"],
        "agent_max_block_ms": agent["max_block_ms"],
        "reply_parts": chunks,
        "library_thread_cpu_s": round(library_cpu, 4) if library_cpu is not None else None,
        "library_all_cpu_s": round(library_all, 4) if library_all is not None else None,
    }


def children_cpu() -> float:
    """The CPU time of this process's children that ended (a build child, say)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def thread_cpu(name: str) -> float | None:
    """The CPU time of this process's thread called ``name`` (its scheduler's count, in
    nanoseconds: finer than its clock ticks), None when there is none."""
    import threading

    for thread in threading.enumerate():
        if thread.name == name and thread.native_id is not None:
            try:
                with open(f"/proc/self/task/{thread.native_id}/schedstat") as stat:
                    return int(stat.read().split()[0]) / 1e9
            except OSError:
                return None
    return None


def child_env(root: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "ACP_TUI_HOME": str(root / "home"),
        "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO)]),
    }
    env.pop("TEXTUAL", None)
    return env


def one_stream(updates: int = UPDATES) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        argv = [sys.executable, __file__, "--child", str(project), str(root / "stats.json")]
        argv.append(str(updates))
        done = subprocess.run(argv, env=child_env(root), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"the wire_stream measurement failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def run_stream(runs: int = 3) -> dict[str, Any]:
    """The median of ``runs`` measurements (each in a fresh process), and every run's CPU."""
    measured = [one_stream() for _ in range(runs)]
    result = dict(measured[0])
    for key in ("wall_s", "client_cpu_s", "us_per_update", "max_stall_ms", "agent_blocked_s"):
        result[key] = round(float(statistics.median(r[key] for r in measured)), 3)
    result["agent_max_block_ms"] = max(r["agent_max_block_ms"] for r in measured)
    result["runs"] = runs
    result["client_cpu_runs_s"] = [r["client_cpu_s"] for r in measured]
    return result


def run_replay(runs: int = 3) -> dict[str, Any]:
    import bench_replay

    sizes = (1000, 2000)
    measured: dict[int, list[dict[str, Any]]] = {size: [] for size in sizes}
    for _ in range(runs):
        for turns in sizes:
            measured[turns].append(bench_replay.one_run(turns))

    def median(turns: int, key: str) -> float:
        return round(float(statistics.median(r[key] for r in measured[turns])), 3)

    interactive = median(1000, "interactive_s")
    return {
        "bench": "wire_replay",
        "turns": 1000,
        "interactive_s": interactive,
        "client_cpu_s": median(1000, "client_cpu_s"),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in measured[1000]),
        "max_stall_ms": median(1000, "max_stall_ms"),
        "interactive_2000_s": median(2000, "interactive_s"),
        "client_cpu_2000_s": median(2000, "client_cpu_s"),
        "turns_2000_ratio": round(median(2000, "interactive_s") / interactive, 2),
        "runs": runs,
        "interactive_runs_s": [r["interactive_s"] for r in measured[1000]],
    }


def without_library() -> None:
    """Run the app without the history library (``history``'s comparison: what feeding it
    live costs the stream)."""
    import contextlib

    import acp_tui.ui.library_feed

    @contextlib.asynccontextmanager
    async def nothing(*args: Any) -> Any:
        yield None

    acp_tui.ui.library_feed.history_library = nothing  # type: ignore[assignment]


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        project, stats, updates = sys.argv[2:5]
        if os.environ.get("WIRE_BENCH_NO_LIBRARY"):
            without_library()
        profile = os.environ.get("WIRE_BENCH_PROFILE")  # a file for cProfile's statistics
        if profile:
            import cProfile

            with cProfile.Profile() as profiler:
                result = asyncio.run(measure_stream(Path(project), Path(stats), int(updates)))
            profiler.dump_stats(profile)
        else:
            result = asyncio.run(measure_stream(Path(project), Path(stats), int(updates)))
        print(json.dumps(result))
        return 0
    which = sys.argv[1:2] or ["stream"]
    if which == ["stream"]:
        print(json.dumps(one_stream()))
    else:
        print(json.dumps(run_replay(runs=1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
