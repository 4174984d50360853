"""History library benchmark: a year of sessions across five agents, indexed and searched.

The data (``gen_history``: 10,000 sessions of 100 turns over 5 agents, about 1 GB of JSONL) is
generated once and kept under the temp dir (``acp-tui-bench-history-*``); every run builds a
fresh index from it. Figures:

* ``build_s``, ``build_cpu_s``, ``db_mb``: building the index in the background (wall, the
  CPU of the process and of the child process a big build runs in, ``build_child_cpu_s``, the
  database's size), ``rows``: the text rows made; ``build_max_stall_ms``:
  the longest stall of an asyncio loop (a 5 ms ticker) running beside the build, as the app's
  would, and ``build_stalls_over_50ms`` how many; ``idle_max_stall_ms`` and
  ``idle_stalls_over_50ms``: the same loop alone for 30 s just before (the machine's own noise:
  on a shared 2-core machine other processes stall it too);
* ``search_{word,phrase,prefix}_p50_ms`` / ``_p95_ms``: searches of each kind over that index
  (a page of 50 sessions with snippets; words of every frequency, planted phrases, 3- to
  6-letter prefixes), each run several times; ``search_{kind}_200_*``: the same with the 200
  sessions the app's views ask for; ``first_page_p50_ms`` / ``_p95_ms``: the merged
  browser's first page (100 rows, every agent, newest first; also one cwd's);
* ``typing_max_stall_ms`` / ``typing_last_result_ms``: typing a query key by key (a key every
  70 ms, searches debounced by 120 ms and the stale one cancelled, each in a thread): the
  longest loop stall, and from the last key to its results;
* ``rss_open_mb``: the RSS a process gains by opening the built index and searching it (in a
  fresh process that imported the app first);
* ``tail_{1000,10000}_ms``: reading the last three turns of a 1,000- and a 10,000-turn session
  from its local copy and applying them to a transcript model (what reopening shows first), and
  ``replay_1000_ms``, the whole 1,000-turn copy the same way, for scale;
* ``reopen_*``: a 1,000- and a 10,000-turn session reopened with its history (the local
  copy's last screen, keys while the agent replays, the replay replacing it in place; see
  ``bench_reopen``);
* ``live_cpu_ratio``: ``wire_stream``'s client CPU with the library fed live over without it
  (median of interleaved runs), and both ``us_per_update``; ``live_library_thread_cpu_s``:
  what the library's own thread took of it (the rest of its cost is the feed's calls on the
  loop, and the noise of a shared machine is larger than both: read the runs too), and
  ``live_library_all_cpu_s`` what indexing the reply took in all (after it was shown too, and
  in a child process if any); ``live_loop_cpu_s`` / ``without_loop_cpu_s``: the event loop's
  thread's CPU both ways (the feed's calls are made there);

* ``ui_*``, ``rss_app_*``: the every-agent view in the app over that index: its first page,
  typing queries into its search field, and the app's RSS over the empty app's (see
  ``bench_library_ui``);

    python tests/perf/bench_history.py [build|search|browser|rss|tail|reopen|live]   # parts
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import gen_history
from loop_ticker import Ticker

from acp_tui.store.library import Filters, Library, SearchCancelled

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SESSIONS = int(os.environ.get("HISTORY_BENCH_SESSIONS", "10000"))
TURNS = int(os.environ.get("HISTORY_BENCH_TURNS", "100"))
REPEAT = 5
UI_PAGE = 200
"""Sessions a search of the app's views asks for (``acp_tui.ui.library.search.PAGE``)."""


def data_dir() -> Path:
    """The generated transcripts (made on first use, then reused)."""
    root = Path(tempfile.gettempdir()) / f"acp-tui-bench-history-{SESSIONS}x{TURNS}-v1"
    done = root / "generated.json"
    if not done.exists():
        shutil.rmtree(root, ignore_errors=True)
        info = gen_history.generate(root / "transcripts", sessions=SESSIONS, turns=TURNS)
        done.write_text(json.dumps(info))
    return root


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


IDLE_SECONDS = 30.0


async def build(root: Path, library_dir: Path, idle: float = IDLE_SECONDS) -> dict[str, Any]:
    library = Library(library_dir, root / "transcripts")
    ticker = Ticker()
    tick = asyncio.create_task(ticker.run())
    await asyncio.sleep(0.05)
    ticker.reset()
    await asyncio.sleep(idle)  # the machine's own noise, with nothing else running
    idle = {"idle_max_stall_ms": round(ticker.max_gap * 1000, 1), "idle_stalls_over_50ms": 0}
    idle["idle_stalls_over_50ms"] = ticker.over_50ms
    ticker.reset()
    cpu, started, children = time.process_time(), time.perf_counter(), _children_cpu()
    library.start()
    await asyncio.to_thread(library.wait_built)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    ticker.running = False
    await tick
    library.close()
    child = _children_cpu() - children  # a big build runs in a child process
    figures = _sized(library_dir, wall, cpu + child, ticker.max_gap)
    figures["build_child_cpu_s"] = round(child, 1)
    figures["build_stalls_over_50ms"] = ticker.over_50ms
    return {**figures, **idle}


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _sized(library_dir: Path, wall: float, cpu: float, stall: float) -> dict[str, Any]:
    size = sum(path.stat().st_size for path in library_dir.glob("index-*"))
    rows = _count(library_dir, "SELECT count(*) FROM messages")
    return {
        "build_s": round(wall, 1),
        "build_cpu_s": round(cpu, 1),
        "build_max_stall_ms": round(stall * 1000, 1),
        "db_mb": round(size / 1e6),
        "rows": rows,
    }


def _count(library_dir: Path, sql: str) -> int:
    import sqlite3

    from acp_tui.store.library.schema import database_path

    with sqlite3.connect(database_path(library_dir)) as conn:
        return int(conn.execute(sql).fetchone()[0])


QUERIES = {
    "word": ["lighthouse", "keeper", "zephyr", "ba ", "cozi ", "fuwe ", "tevu ", "jauvou "],
    "phrase": ['"lighthouse keeper"', '"be ba"', '"ka ci"', "number 04 "],
    "prefix": ["lighth", "kee", "zeph", "bai", "cou", "vaji", "gozou"],
}


def searches(root: Path, library_dir: Path) -> dict[str, Any]:
    library = Library(library_dir, root / "transcripts")
    library.start()
    library.wait_built()
    figures: dict[str, Any] = {}
    for kind, queries in QUERIES.items():
        for limit, suffix in ((50, ""), (UI_PAGE, f"_{UI_PAGE}")):
            times = []
            for query in queries:
                for _ in range(REPEAT):
                    started = time.perf_counter()
                    library.search(query, limit=limit)
                    times.append((time.perf_counter() - started) * 1000)
            figures[f"search_{kind}{suffix}_p50_ms"] = round(statistics.median(times), 1)
            figures[f"search_{kind}{suffix}_p95_ms"] = round(percentile(times, 0.95), 1)
    pages = []
    for filters in (Filters(), Filters(cwd="/home/me/src/project-7")):
        for _ in range(REPEAT * 2):
            started = time.perf_counter()
            library.rows(filters, limit=100)
            pages.append((time.perf_counter() - started) * 1000)
    figures["first_page_p50_ms"] = round(statistics.median(pages), 1)
    figures["first_page_p95_ms"] = round(percentile(pages, 0.95), 1)
    figures.update(asyncio.run(typing(library)))
    library.close()
    return figures


async def typing(library: Library, text: str = "lighthouse keeper") -> dict[str, Any]:
    """Type ``text`` a key every 70 ms; each key cancels the search under way and starts a
    new one 120 ms later (if no key came meanwhile), in a thread."""
    ticker = Ticker()
    tick = asyncio.create_task(ticker.run())
    await asyncio.sleep(0.05)
    ticker.reset()
    cancel = threading.Event()
    pending: asyncio.Task[None] | None = None
    done_at: list[float] = []

    async def search(query: str) -> None:
        await asyncio.sleep(0.12)
        try:
            await asyncio.to_thread(library.search, query, limit=50, cancel=cancel)
        except SearchCancelled:
            return
        done_at.append(time.perf_counter())

    last_key = 0.0
    for end in range(1, len(text) + 1):
        cancel.set()
        if pending is not None:
            pending.cancel()
        cancel = threading.Event()
        last_key = time.perf_counter()
        pending = asyncio.create_task(search(text[:end]))
        await asyncio.sleep(0.07)
    assert pending is not None
    await pending
    ticker.running = False
    await tick
    return {
        "typing_max_stall_ms": round(ticker.max_gap * 1000, 1),
        "typing_last_result_ms": round((done_at[-1] - last_key) * 1000, 1) if done_at else None,
    }


RSS_SCRIPT = """
import gc, json, sys
from pathlib import Path
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
import acp_tui.ui.app, acp_tui.client.workspace.workspace
gc.collect()
before = rss()
from acp_tui.store.library import Filters, Library
library = Library(Path(sys.argv[1]), Path(sys.argv[2]))
library.start()
library.wait_built()
for query in ["lighthouse", "keeper", '"lighthouse keeper"', "kee", "bai", "number 04"] * 3:
    library.search(query, limit=50)
page = library.rows(limit=100)
for _ in range(20):
    page = library.rows(limit=100, after=page.next)
gc.collect()
print(json.dumps({"rss_before_mb": round(before, 1), "rss_open_mb": round(rss() - before, 1)}))
library.close()
"""


def rss(root: Path, library_dir: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", RSS_SCRIPT, str(library_dir), str(root / "transcripts")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def tails() -> dict[str, Any]:
    from acp_tui.client.session.transcript import Transcript
    from acp_tui.store.tail import read_tail
    from acp_tui.store.transcripts import RecordedTurnEnd, RecordedUpdate, _adapters

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for turns in (1000, 10_000):
            path = Path(tmp) / f"long-{turns}.jsonl"
            size = gen_history.long_session(path, turns)

            def show(events: list[Any]) -> int:
                update_of, blocks_of = _adapters()
                transcript = Transcript("long")
                for event in events:
                    if isinstance(event, RecordedTurnEnd):
                        transcript.end_turn(event.stop_reason)
                    elif isinstance(event, RecordedUpdate):
                        transcript.apply(update_of.validate_python(event.update))
                    else:
                        transcript.add_user_message(blocks_of.validate_python(event.blocks))
                return len(transcript.entries)

            show([])  # the adapters are built once, at the first replay
            times = []
            for _ in range(REPEAT):
                started = time.perf_counter()
                tail = read_tail(path, turns=3)
                show([event for _, event in tail.events])
                times.append((time.perf_counter() - started) * 1000)
            figures[f"tail_{turns}_ms"] = round(statistics.median(times), 1)
            figures[f"tail_{turns}_file_mb"] = round(size / 1e6, 1)
            if turns == 1000:
                from acp_tui.store.recorded import parse_line

                started = time.perf_counter()
                with path.open("rb") as handle:
                    show([e for e in map(parse_line, handle) if e is not None])
                figures["replay_1000_ms"] = round((time.perf_counter() - started) * 1000)
    return figures


def live(runs: int = 5) -> dict[str, Any]:
    """wire_stream's client CPU with and without the library, interleaved."""
    import bench_wire

    measured: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for _ in range(runs):
        for fed in (False, True):
            if fed:
                os.environ.pop("WIRE_BENCH_NO_LIBRARY", None)
            else:
                os.environ["WIRE_BENCH_NO_LIBRARY"] = "1"
            measured[fed].append(bench_wire.one_stream())
    os.environ.pop("WIRE_BENCH_NO_LIBRARY", None)

    def median(fed: bool, key: str, digits: int = 1) -> float:
        return round(float(statistics.median(r[key] for r in measured[fed])), digits)

    return {
        "live_cpu_ratio": round(
            median(True, "client_cpu_s", 4) / median(False, "client_cpu_s", 4), 3
        ),
        "live_us_per_update": median(True, "us_per_update"),
        "without_us_per_update": median(False, "us_per_update"),
        "live_cpu_runs_s": [r["client_cpu_s"] for r in measured[True]],
        "without_cpu_runs_s": [r["client_cpu_s"] for r in measured[False]],
        "live_max_stall_ms": median(True, "max_stall_ms"),
        "live_library_thread_cpu_s": round(
            float(statistics.median(r["library_thread_cpu_s"] or 0 for r in measured[True])), 3
        ),
        "live_loop_cpu_s": median(True, "loop_cpu_s", 3),
        "without_loop_cpu_s": median(False, "loop_cpu_s", 3),
        "live_library_all_cpu_s": round(
            float(statistics.median(r["library_all_cpu_s"] or 0 for r in measured[True])), 3
        ),
    }


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


PARTS = ("build", "search", "browser", "rss", "tail", "reopen", "live")


def run(parts: tuple[str, ...] = PARTS) -> dict[str, Any]:
    result: dict[str, Any] = {"bench": "history", "sessions": SESSIONS, "turns": TURNS}
    root = data_dir()
    result["jsonl_mb"] = round(json.loads((root / "generated.json").read_text())["bytes"] / 1e6)
    library_dir = Path(tempfile.mkdtemp(prefix="acp-tui-bench-library-"))
    try:
        for part in parts:
            result[f"load_{part}"] = load()
            if part == "build":
                result.update(asyncio.run(build(root, library_dir)))
            elif part in ("search", "rss", "browser"):
                if not any(library_dir.glob("index-*")):
                    asyncio.run(build(root, library_dir, idle=0))
                if part == "browser":
                    import bench_library_ui

                    result.update(bench_library_ui.run(root / "transcripts", library_dir))
                else:
                    measure = searches if part == "search" else rss
                    result.update(measure(root, library_dir))
            elif part == "tail":
                result.update(tails())
            elif part == "reopen":
                import bench_reopen

                result.update(bench_reopen.run())
            elif part == "live":
                result.update(live())
    finally:
        shutil.rmtree(library_dir, ignore_errors=True)
    return result


if __name__ == "__main__":
    chosen = tuple(sys.argv[1:]) or PARTS
    print(json.dumps(run(chosen)))
