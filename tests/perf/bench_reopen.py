"""Reopen benchmark (part of ``history``): a long session reopened with its history.

The demo agent holds one session of N turns (``gen_demo_data.write_history``: a prompt, ~1 KB
of markdown in 20-byte chunks, a tool call with a diff; about 64 updates a turn) and acp-tui
has its local copy (the same updates, as the recorder writes them). A fresh headless app
(120x40) opens it as Enter in the browser does (``open_listed(replay=True)``), a second after
its start, the library already built (as after a first run). Figures, for
1,000 and 10,000 turns:

* ``reopen_{N}_last_screen_ms``: from the open to the first frame showing the session's last
  screen (its last turn's tool call in view, the prompt focused, nothing left to render), from
  wherever it comes (the local copy, or the agent's replay where nothing shows it sooner);
* ``reopen_{N}_keys_max_ms`` / ``_p95_ms``: while the agent replays, a key is typed every
  50 ms: the longest (and 95th percentile) time from the key to the prompt showing it, and
  ``_slowest_keys``: the three slowest, each with when it was typed (seconds after the open);
* ``reopen_{N}_replayed_s``: from the open until the agent's replay is shown (laid out, in view);
* ``reopen_{N}_view_kept``: the lines in view are the same before and after the replay
  replaced the local copy (no jump);
* ``reopen_1000_differs_told``: with the local copy's last reply changed, the agent's version
  is shown and the transcript says they differ.

    python tests/perf/bench_reopen.py [TURNS...]      # default: 1000 10000
    REOPEN_BENCH_REPO=/path/to/acp-tui ...            # measure another checkout's code
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
REPO = Path(os.environ.get("REOPEN_BENCH_REPO") or HERE.parent.parent)
SIZE = (120, 40)
KEY_EVERY = 0.05


def write_local_copy(data: Path, project: Path, session_id: str, differ: bool) -> None:
    """acp-tui's local copy of the demo session, as the recorder writes a replay."""
    from acp_tui.client.history.recorder import agent_key_for
    from acp_tui.config.paths import get_paths
    from acp_tui.store.transcripts import TranscriptCache

    key = agent_key_for(launch_of(data, project))
    cache = TranscriptCache(get_paths().data_dir / "transcripts")
    cache.note_session(key, session_id, cwd=project, title="the long session")
    path = cache.transcript_path(key, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with (data / "history" / f"{session_id}.jsonl").open("rb") as source, path.open("wb") as out:
        lines = source.read().splitlines()
        if differ:
            last = max(i for i, line in enumerate(lines) if b"agent_message_chunk" in line)
            update = json.loads(lines[last])
            update["content"]["text"] = " and a word the agent never said"
            lines[last] = json.dumps(update).encode()
        out.write(b"".join(b'{"t":"update","update":' + line + b"}\n" for line in lines))
    cache.close()
    from acp_tui.store.library import Library

    library = Library.under(get_paths().data_dir)  # indexed already, as after a first run
    library.start()
    library.wait_built()
    library.close()


def launch_of(data: Path, project: Path) -> Any:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.process.command import AgentCommand

    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data)]
    return LaunchSpec(
        command=AgentCommand(argv, cwd=project, name="demo"), cwd=project, display_name="demo"
    )


async def measure(data: Path, project: Path, session_id: str, turns: int) -> dict[str, Any]:
    """One reopen in this process (see the module docstring)."""
    from bench_sessions import Frames, send_key, wait

    from acp_tui.protocol.methods import SessionInfo
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.transcript.view import TranscriptView

    app = AcpApp(launch_of(data, project))
    last = f"module_{turns - 1}.py"
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None)
        await pilot.pause()
        await asyncio.sleep(1.0)  # a user opens a session a moment after the start, not at once
        assert app.workspace is not None
        assert app.slot is not None
        first = app.slot
        frames = Frames(app)

        def view() -> TranscriptView | None:
            slot = app.slot
            pane = app.chat.pane_of(slot) if slot is not None and slot is not first else None
            return pane.query_one(TranscriptView) if pane is not None else None

        def last_screen() -> bool:
            shown = view()
            pane = app.chat.current_pane
            if shown is None or not shown.settled or not pane.prompt.has_focus:
                return False
            return any(last in line for line in shown.visible_lines())

        def replayed() -> bool:
            shown, slot = view(), app.slot
            session = slot.session if slot is not None else None
            return (
                shown is not None
                and session is not None
                and shown.transcript is session.transcript
                and shown.settled
            )

        info = SessionInfo(session_id=session_id, cwd=str(project), title="the long session")
        frames.arm(last_screen)
        started = time.perf_counter()
        app.workspace.open_listed(first.agent, info, replay=True)
        shown_at = await frames.shown_time(within=600)
        before = list(view().visible_lines())  # type: ignore[union-attr]
        keys: list[float] = []
        when: list[float] = []
        typed = ""
        while not replayed():
            if time.perf_counter() - started > 600:
                raise TimeoutError("the replay took too long")
            typed += "x"
            sent = time.perf_counter()
            send_key(app, "x")
            await wait(landed(app.chat.current_pane.prompt, typed), within=60)
            keys.append((time.perf_counter() - sent) * 1000)
            when.append(round(sent - started, 2))
            await asyncio.sleep(KEY_EVERY)
        done = time.perf_counter() - started
        shown = view()
        assert shown is not None
        after = shown.visible_lines()
        slot = app.slot
        assert slot is not None
        assert slot.session is not None
        notices = [str(getattr(e, "text", "")) for e in slot.session.transcript.entries]
    return {
        "last_screen_ms": round((shown_at - started) * 1000, 1),
        "keys_max_ms": round(max(keys), 1) if keys else None,
        "keys_p95_ms": round(sorted(keys)[int(0.95 * (len(keys) - 1))], 1) if keys else None,
        "keys_typed": len(keys),
        "replayed_s": round(done, 2),
        # Bottom to bottom: the options bar that comes with the open session may take a row.
        "view_kept": kept(before, after),
        "rows": [len(before), len(after)],
        "differs_told": any("differently" in text for text in notices),
        "entries": len(slot.session.transcript.entries),
        "slowest_keys": [
            [round(ms), at] for ms, at in sorted(zip(keys, when, strict=True), reverse=True)[:3]
        ],
    }


def landed(prompt: Any, typed: str) -> Any:
    return lambda: prompt.text.endswith(typed)


def kept(before: list[str], after: list[str]) -> bool:
    """Whether the lines in view stayed where they were, from the bottom up."""
    rows = min(len(before), len(after))
    return rows > 0 and before[len(before) - rows :] == after[len(after) - rows :]


def one_run(turns: int, differ: bool = False) -> dict[str, Any]:
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
        argv += [str(turns), "differ" if differ else "same"]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the reopen measurement failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def run(sizes: tuple[int, ...] = (1000, 10_000), runs: int = 3) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for turns in sizes:
        measured = [one_run(turns) for _ in range(runs if turns <= 1000 else 1)]
        prefix = f"reopen_{turns}"
        figures[f"{prefix}_last_screen_ms"] = statistics.median(
            r["last_screen_ms"] for r in measured
        )
        figures[f"{prefix}_last_screen_runs_ms"] = [r["last_screen_ms"] for r in measured]
        keys = [r["keys_max_ms"] for r in measured if r["keys_max_ms"] is not None]
        figures[f"{prefix}_keys_max_ms"] = max(keys) if keys else None
        p95 = [r["keys_p95_ms"] for r in measured if r["keys_p95_ms"] is not None]
        figures[f"{prefix}_keys_p95_ms"] = max(p95) if p95 else None
        figures[f"{prefix}_keys_typed"] = sum(r["keys_typed"] for r in measured)
        figures[f"{prefix}_replayed_s"] = statistics.median(r["replayed_s"] for r in measured)
        figures[f"{prefix}_view_kept"] = all(r["view_kept"] for r in measured)
        figures[f"{prefix}_slowest_keys"] = measured[0]["slowest_keys"]  # [ms, s after open]
    differs = one_run(min(sizes), differ=True)
    figures[f"reopen_{min(sizes)}_differs_told"] = differs["differs_told"]
    return figures


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        data, project, session_id, turns, variant = sys.argv[2:7]
        write_local_copy(Path(data), Path(project), session_id, variant == "differ")
        result = asyncio.run(measure(Path(data), Path(project), session_id, int(turns)))
        print(json.dumps(result))
        return 0
    sizes = tuple(int(a) for a in sys.argv[1:]) or (1000, 10_000)
    print(json.dumps(run(sizes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
