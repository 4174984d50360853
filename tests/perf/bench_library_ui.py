"""Every-agent view benchmark (part of ``history``): the merged browser and its search in the app.

A fresh headless app (120x40, the demo agent) over a data dir holding the ``history`` bench's
10,000 generated sessions and their built index (as after a first run), or an empty one (the
empty app, for RSS). A second after the library is open, the every-agent view is opened as
``A`` in the browser opens it. Figures (``ui_`` in ``history``):

* ``open_ms``: from the action to the first frame of the view with its first rows read (this
  directory's: none, the sessions are elsewhere);
* ``first_page_ms`` / ``first_page_runs_ms``: Ctrl+O (all directories) to the first frame
  showing the merged first page (every agent, newest first), five times; ``agent_page_ms``:
  Ctrl+G (one agent, all directories) the same way;
* ``typing_keys_max_ms`` / ``_p95_ms``: queries typed into the search field key by key, a key
  every `KEY_EVERY` s: from each key to the frame showing it; ``typing_max_stall_ms`` and
  ``typing_stalls_over_50ms``: the longest event-loop stall meanwhile (a 5 ms ticker);
  ``results_ms``: for each query, from its last key to the frame showing its results (the
  120 ms debounce included);
* ``rss_mb``: the app's RSS at the end (after gc), ``peak_rss_mb`` its peak.

    python tests/perf/bench_library_ui.py          # builds the index first
    LIBRARY_UI_BENCH_INDEX=DIR python tests/perf/bench_library_ui.py   # built there once, kept
    LIBRARY_UI_BENCH_STALLS=FILE ...   # where the loop was while it stalled, typing (sampled)
"""

from __future__ import annotations

import asyncio
import gc
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
KEY_EVERY = 0.08
QUERIES = ("lighthouse keeper", "zephyr", '"be ba"', "kee")
RUNS = 5


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def type_char(app: Any, char: str) -> None:
    """A printable key as the terminal driver delivers it (its name and its character)."""
    from textual import events
    from textual.keys import _character_to_key

    event = events.Key(_character_to_key(char), char)
    event.set_sender(app)
    app._driver.send_message(event)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(project: Path, demo: Path) -> dict[str, Any]:
    from bench_sessions import Frames, send_key, wait
    from loop_ticker import Ticker
    from textual.widgets import Input, OptionList

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.process.command import AgentCommand
    from acp_tui.store.library import Library
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.library.screen import LibraryScreen

    reads = [0]
    rows_read = LibraryScreen.rows_read

    def counted(self: LibraryScreen, rows: list[Any]) -> None:
        reads[0] += 1
        rows_read(self, rows)

    LibraryScreen.rows_read = counted  # type: ignore[method-assign]

    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(demo)]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=project, name="demo"), cwd=project, display_name="demo"
    )
    app = AcpApp(launch)
    figures: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None and app.workspace is not None)
        assert app.workspace is not None
        ws = app.workspace
        await wait(lambda: isinstance(ws.cache.library, Library), within=60)
        library = ws.cache.library
        assert isinstance(library, Library)
        await asyncio.to_thread(library.wait_built, 300)
        await pilot.pause()
        await asyncio.sleep(1.0)
        frames = Frames(app)

        def screen() -> LibraryScreen | None:
            shown = app.screen
            return shown if isinstance(shown, LibraryScreen) else None

        def options() -> int:
            shown = screen()
            return shown.query_one(OptionList).option_count if shown is not None else 0

        # -- opening the view ------------------------------------------------------------------
        frames.arm(lambda: screen() is not None and reads[0] > 0)
        started = time.perf_counter()
        app.action_every_agent()
        figures["open_ms"] = round((await frames.shown_time() - started) * 1000, 1)
        view = screen()
        assert view is not None
        await wait(lambda: bool(view.statuses), within=60)
        await wait(
            lambda: all(s.state in ("done", "failed") for s in view.statuses.values()), within=120
        )
        await pilot.pause()
        await asyncio.sleep(0.3)

        # -- the merged first page (all directories), and one agent's --------------------------
        pages = []
        for _ in range(RUNS):
            if view.cwd is None:  # back to this directory first
                before = reads[0]
                send_key(app, "ctrl+o")
                await wait(lambda before=before: reads[0] > before)  # type: ignore[misc]
                await pilot.pause()
            before = reads[0]
            frames.arm(lambda before=before: reads[0] > before and options() > 0)  # type: ignore[misc]
            started = time.perf_counter()
            send_key(app, "ctrl+o")
            pages.append((await frames.shown_time() - started) * 1000)
            await asyncio.sleep(0.1)
        figures["first_page_ms"] = round(statistics.median(pages), 1)
        figures["first_page_runs_ms"] = [round(p, 1) for p in pages]
        figures["first_page_rows"] = options()
        before = reads[0]
        frames.arm(lambda: reads[0] > before and options() > 0 and view.agent is not None)
        started = time.perf_counter()
        send_key(app, "ctrl+g")
        figures["agent_page_ms"] = round((await frames.shown_time() - started) * 1000, 1)
        await asyncio.sleep(0.1)
        send_key(app, "ctrl+g")  # every agent again
        while view.agent is not None:
            send_key(app, "ctrl+g")
            await pilot.pause()
        await asyncio.sleep(0.2)

        # -- typing queries into the search field ----------------------------------------------
        field = view.query_one("#library-search", Input)
        field.focus()
        await pilot.pause()
        ticker = Ticker()
        tick = asyncio.create_task(ticker.run())
        stalls = os.environ.get("LIBRARY_UI_BENCH_STALLS")  # a file for where the loop stalled
        if stalls:
            from stall_sampler import StallSampler

            sampler = StallSampler()
            sampler.start()
            sampling = asyncio.create_task(sampler.tick())
        await asyncio.sleep(0.02)
        ticker.reset()
        keys: list[float] = []
        results: dict[str, float] = {}
        found: dict[str, int] = {}
        for query in QUERIES:
            field.value = ""
            await pilot.pause()
            await asyncio.sleep(0.2)
            last = 0.0
            for end in range(1, len(query) + 1):
                typed = query[:end]
                frames.arm(lambda typed=typed: field.value == typed)  # type: ignore[misc]
                last = time.perf_counter()
                type_char(app, query[end - 1])
                keys.append((await frames.shown_time() - last) * 1000)
                await asyncio.sleep(max(0.0, KEY_EVERY - (time.perf_counter() - last)))

            def shown(text: str = query) -> bool:
                searcher = view.searcher
                return view.searching and searcher.text == text and not searcher.pending

            if not shown():
                frames.arm(shown)
                await frames.shown_time(within=60)
            results[query] = round((frames.shown_at - last) * 1000, 1)
            found[query] = len(view.hits)
        ticker.running = False
        await tick
        if stalls:
            sampler.stop()
            await sampling
            with open(stalls, "w") as report:  # noqa: ASYNC230 (measured already)
                report.write(sampler.report(30))
        figures["typing_keys_max_ms"] = round(max(keys), 1)
        figures["typing_keys_p95_ms"] = round(percentile(keys, 0.95), 1)
        figures["typing_keys"] = len(keys)
        figures["typing_max_stall_ms"] = round(ticker.max_gap * 1000, 1)
        figures["typing_stalls_over_50ms"] = ticker.over_50ms
        figures["results_ms"] = results
        figures["results_found"] = found
        gc.collect()
        figures["rss_mb"] = round(rss_mb(), 1)
        figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return figures


def prepare_home(home: Path, transcripts: Path | None, library_dir: Path | None) -> None:
    """A data dir whose agent folders are the generated ones (linked, so the app's own demo
    session is recorded beside them, not among them) and whose index is ``library_dir``."""
    data = home / "data"
    (data / "transcripts").mkdir(parents=True)
    if transcripts is not None:
        for folder in transcripts.iterdir():
            (data / "transcripts" / folder.name).symlink_to(folder)
    if library_dir is not None:
        (data / "library").symlink_to(library_dir)


def one_run(transcripts: Path | None, library_dir: Path | None) -> dict[str, Any]:
    """One measurement in a fresh process (None, None: the empty app)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        prepare_home(root / "home", transcripts, library_dir)
        (root / "project").mkdir()
        env = {
            **os.environ,
            "ACP_TUI_HOME": str(root / "home"),
            "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO)]),
        }
        env.pop("TEXTUAL", None)
        argv = [sys.executable, __file__, "--child", str(root / "project"), str(root / "demo")]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the every-agent view measurement failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def run(transcripts: Path, library_dir: Path) -> dict[str, Any]:
    """The view over the index (``ui_*``), and the empty app's RSS beside it."""
    full = one_run(transcripts, library_dir)
    empty = one_run(None, None)
    figures = {f"ui_{key}": value for key, value in full.items()}
    figures["rss_app_empty_mb"] = empty["rss_mb"]
    figures["rss_app_index_mb"] = full["rss_mb"]
    figures["rss_app_over_empty_mb"] = round(full["rss_mb"] - empty["rss_mb"], 1)
    figures["peak_rss_app_over_empty_mb"] = round(full["peak_rss_mb"] - empty["peak_rss_mb"], 1)
    return figures


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        project, demo = sys.argv[2:4]
        print(json.dumps(asyncio.run(measure(Path(project), Path(demo)))))
        return 0
    import bench_history

    root = bench_history.data_dir()
    kept = os.environ.get("LIBRARY_UI_BENCH_INDEX")  # a built index to reuse (kept)
    library_dir = Path(kept) if kept else Path(tempfile.mkdtemp(prefix="acp-tui-bench-library-"))
    try:
        if not any(library_dir.glob("index-*")):
            asyncio.run(bench_history.build(root, library_dir, idle=0))
        print(json.dumps(run(root / "transcripts", library_dir)))
    finally:
        if not kept:
            import shutil

            shutil.rmtree(library_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
