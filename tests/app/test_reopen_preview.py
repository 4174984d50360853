"""Reopening a session with its history: the end of acp-tui's local copy is shown at once and
the prompt takes keys while the agent replays; a replay that agrees replaces it without a
jump, one that differs wins and the user is told."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.history.recorder import SessionRecorder, agent_key_for
from acp_tui.client.workspace import opening
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import get_paths
from acp_tui.protocol.content import TextContent
from acp_tui.store.transcripts import TranscriptCache
from acp_tui.ui.app import AcpApp
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.test_app_smoke import wait_for
from tests.app.test_browser import SIZE, highlight, open_browser


async def seed_long(app: AcpApp, turns: int) -> str:
    """One session of ``turns`` turns with the demo agent, recorded locally; its id."""
    cache = TranscriptCache(get_paths().data_dir / "transcripts")
    async with connect(app.launch) as client:
        recorder = SessionRecorder(cache, agent_key_for(app.launch))
        recorder.attach(client)
        session = await client.new_session(app.launch.cwd)
        recorder.note(session, created=True)
        for n in range(turns):
            blocks = [TextContent(text=f"turn {n}: tell me about lighthouse number {n}")]
            recorder.record_prompt(session.session_id, blocks)
            await client.prompt(session.session_id, blocks)
            recorder.record_turn_end(session.session_id, "end_turn")
        recorder.detach()
    cache.close()
    return session.session_id


def local_copy(app: AcpApp, session_id: str) -> Path:
    cache = TranscriptCache(get_paths().data_dir / "transcripts")
    return cache.transcript_path(agent_key_for(app.launch), session_id)


def hold_reattach(monkeypatch: pytest.MonkeyPatch) -> anyio.Event:
    """The agent's replay waits until the event is set."""
    gate = anyio.Event()
    real = opening.reattach

    async def held(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(opening, "reattach", held)
    return gate


def view_of(app: AcpApp, slot: SessionSlot) -> TranscriptView:
    pane = app.chat.pane_of(slot)
    assert pane is not None
    view = pane.transcript_view
    assert view is not None
    return view


async def open_held(pilot: Any, app: AcpApp, session_id: str) -> tuple[SessionSlot, TranscriptView]:
    """Enter on the session's row; the new tab, once it shows the local copy's end."""
    await open_browser(pilot, app)
    await highlight(pilot, app, session_id)
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: app.slot is not None and app.slot.intent.__class__.__name__ == "OpenExisting"
    )
    slot = app.slot
    assert slot is not None
    assert slot.preview is not None
    await wait_for(pilot, lambda: app.chat.pane_of(slot) is not None)
    view = view_of(app, slot)
    await wait_for(pilot, lambda: view.transcript is slot.placeholder and view.settled)
    return slot, view


def shown(view: TranscriptView) -> str:
    return "\n".join(view.visible_lines())


async def test_the_local_copy_shows_at_once_and_an_agreeing_replay_does_not_move_it(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    session_id = await seed_long(app, 40)
    gate = hold_reattach(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        slot, view = await open_held(pilot, app, session_id)
        assert slot.session is None  # the agent has replayed nothing yet
        assert "lighthouse number 39" in shown(view)  # its last screen
        assert len(slot.placeholder.entries) < 40 * 2  # the end of it only
        pane = app.chat.pane_of(slot)
        assert pane is not None
        assert pane.prompt.has_focus
        await pilot.press(*"hello")
        assert pane.prompt.text == "hello"  # the prompt takes keys meanwhile

        view.jump(max(view.max_scroll_y - 7, 0))  # the user scrolled up a little
        await pilot.pause()
        before = view.visible_lines()
        gate.set()
        session = await_session(slot)
        await wait_for(
            pilot, lambda: (s := session()) is not None and view.transcript is s.transcript
        )
        await wait_for(pilot, lambda: view.settled)
        assert slot.preview_agreed is True
        assert view.visible_lines() == before  # replaced in place
        assert "differently" not in "\n".join(view.plain_lines())
        assert pane.prompt.text == "hello"
        view.jump(0)
        await pilot.pause()
        assert "lighthouse number 0" in shown(view)  # the whole history, from the agent


def await_session(slot: SessionSlot) -> Callable[[], Any]:
    return lambda: slot.session


async def test_a_replay_that_differs_wins_and_says_so(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    session_id = await seed_long(app, 5)
    path = local_copy(app, session_id)
    lines = path.read_bytes().splitlines(keepends=True)
    # The local copy remembers the last reply otherwise than the agent does.
    last = max(i for i, line in enumerate(lines) if b"agent_message_chunk" in line)
    record = json.loads(lines[last])
    record["update"]["content"]["text"] = " and a word the agent never said"
    lines[last] = json.dumps(record).encode() + b"\n"
    path.write_bytes(b"".join(lines))

    gate = hold_reattach(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        slot, view = await open_held(pilot, app, session_id)
        assert "a word the agent never said" in shown(view)
        gate.set()
        session = await_session(slot)
        await wait_for(
            pilot, lambda: (s := session()) is not None and view.transcript is s.transcript
        )
        await wait_for(pilot, lambda: view.settled)
        assert slot.preview_agreed is False
        text = "\n".join(view.plain_lines())
        assert "a word the agent never said" not in text
        assert "lighthouse number 4" in text
        said = "replayed this session differently from acp-tui's local copy"
        assert said in " ".join(text.split())  # said in the transcript (and in passing)
