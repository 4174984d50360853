"""Several live sessions benchmark: ten tabs of the demo agent, each a replayed 200-turn session.

A fresh process per measurement (like ``bench_replay``): a headless app (120x40) on the real demo
agent, whose store holds ten sessions of 200 turns each (``gen_demo_data``). Each is opened with
replay (`session/load`) in a tab of its own, as Enter in the browser does. Then the tabs are
switched round and round (``focus``, as Ctrl+PageDown does). Figures:

* ``switch_ms`` (median) and ``switch_max_ms``: from the switch to the first frame that shows the
  target tab's transcript, settled;
* ``rss_mb``: resident memory once the ten sessions are open; ``rss_after_switches_mb``: after
  ``switches`` more switches (the switching itself should cost nothing: the tabs keep their
  rendered lines);
* ``rss_half_mb``: the same ten tabs with 100-turn sessions, to show memory follows the
  transcripts' size (``rss_mb`` minus the empty app's ``rss_base_mb`` about doubles).
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
TABS = 10
SWITCHES = 100


def rss_mb() -> float:
    """The resident set size now (not the peak)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


async def measure(data: Path, project: Path, ids: list[str]) -> dict[str, Any]:
    from bench_sessions import Frames, wait

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.process.command import AgentCommand
    from acp_tui.protocol.methods import SessionInfo
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.transcript.view import TranscriptView

    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data)]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=project, name="demo"), cwd=project, display_name="demo"
    )
    app = AcpApp(launch)
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None)
        await pilot.pause()
        ws, first = app.workspace, app.slot
        assert ws is not None
        assert first is not None
        base = rss_mb()
        for session_id in ids:
            info = SessionInfo(session_id=session_id, cwd=str(project))
            slot = ws.open_listed(first.agent, info, replay=True)
            await wait(lambda slot=slot: slot.state == "ready", within=300)  # type: ignore[misc]
            await wait(lambda: app.chat.current_pane.query_one(TranscriptView).settled)
        await ws.close_slot(first)  # only the replayed tabs are left
        await pilot.pause()
        loaded = rss_mb()
        frames = Frames(app)
        times: list[float] = []
        for n in range(SWITCHES):
            target = ws.slots[(n + 1) % len(ws.slots)]

            def shown(target: Any = target) -> bool:
                pane = app.chat.current_pane
                return pane.slot is target and pane.query_one(TranscriptView).settled

            frames.arm(shown)
            started = time.perf_counter()
            ws.board.focus(target)
            times.append((await frames.shown_time(within=60)) - started)
        await pilot.pause()
        after = rss_mb()
    return {
        "switch_ms": round(statistics.median(times) * 1000, 1),
        "switch_max_ms": round(max(times) * 1000, 1),
        "rss_base_mb": base,
        "rss_mb": loaded,
        "rss_after_switches_mb": after,
        "tabs": len(ids),
    }


def one_run(turns: int) -> dict[str, Any]:
    """One measurement with ``TABS`` sessions of ``turns`` turns, in a fresh process."""
    import gen_demo_data

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        data = root / "demo"
        for n in range(TABS):
            gen_demo_data.write_history(data / f"s{n}", project, turns)
        ids = merge_stores(data, [data / f"s{n}" for n in range(TABS)])
        env = {
            **os.environ,
            "ACP_TUI_HOME": str(root / "home"),
            "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO)]),
        }
        env.pop("TEXTUAL", None)
        argv = [sys.executable, __file__, "--child", str(data), str(project), *ids]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the live-sessions measurement failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def merge_stores(data: Path, parts: list[Path]) -> list[str]:
    """One demo store holding the sessions of ``parts`` (each written on its own); their ids."""
    import gen_demo_data

    from acp_tui.demo_agent.store import HISTORY_DIR, INDEX_FILE, SessionRecord

    records: list[SessionRecord] = []
    (data / HISTORY_DIR).mkdir(parents=True, exist_ok=True)
    for number, part in enumerate(parts):
        index = json.loads((part / INDEX_FILE).read_text())
        record = SessionRecord.from_json(index["sessions"][-1])
        assert record is not None
        fresh = f"demo-live-{number:022x}"
        source = part / HISTORY_DIR / f"{record.session_id}.jsonl"
        source.rename(data / HISTORY_DIR / f"{fresh}.jsonl")
        record.session_id = fresh
        record.title = f"live session {number}"
        records.append(record)
    gen_demo_data.write_index(data, records)
    return [record.session_id for record in records]


def run(turns: int = 200) -> dict[str, Any]:
    full = one_run(turns)
    half = one_run(turns // 2)
    return {
        "bench": "sessions_live",
        "sessions": full["tabs"],
        "turns": turns,
        "switch_ms": full["switch_ms"],
        "switch_max_ms": full["switch_max_ms"],
        "rss_mb": full["rss_mb"],
        "rss_after_switches_mb": full["rss_after_switches_mb"],
        "switches": SWITCHES,
        "rss_base_mb": full["rss_base_mb"],
        "rss_half_mb": half["rss_mb"],
    }


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        data, project, *ids = sys.argv[2:]
        print(json.dumps(asyncio.run(measure(Path(data), Path(project), ids))))
        return 0
    print(json.dumps(run()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
