"""Runs the benchmarks; prints one JSON object per line per benchmark.

    python tests/perf/run.py              # all of them
    python tests/perf/run.py --only stream

Benchmarks measure, they never assert: read the figures against the goals in the docs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent)]


def bench_startup() -> dict[str, Any]:
    import startup

    return startup.run()


def bench_stream() -> dict[str, Any]:
    import view_benches

    return asyncio.run(view_benches.stream())


def bench_transcript() -> dict[str, Any]:
    import view_benches

    return asyncio.run(view_benches.transcript())


def bench_session_list() -> dict[str, Any]:
    import bench_sessions

    return asyncio.run(bench_sessions.run())


def bench_replay() -> dict[str, Any]:
    import bench_replay

    return bench_replay.run()


def bench_sessions_live() -> dict[str, Any]:
    import bench_live

    return bench_live.run()


def bench_wire_stream() -> dict[str, Any]:
    import bench_wire

    return bench_wire.run_stream()


def bench_wire_replay() -> dict[str, Any]:
    import bench_wire

    return bench_wire.run_replay()


def bench_hostile() -> dict[str, Any]:
    import bench_hostile

    return bench_hostile.run()


def bench_history() -> dict[str, Any]:
    import bench_history

    return bench_history.run()


BENCHES: dict[str, Callable[[], dict[str, Any]]] = {
    "startup": bench_startup,
    "stream": bench_stream,
    "transcript": bench_transcript,
    "session_list": bench_session_list,
    "replay": bench_replay,
    "sessions_live": bench_sessions_live,
    "wire_stream": bench_wire_stream,
    "wire_replay": bench_wire_replay,
    "hostile": bench_hostile,
    "history": bench_history,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(BENCHES), action="append")
    args = parser.parse_args()
    for name in args.only or list(BENCHES):
        print(json.dumps(BENCHES[name]()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
