"""SessionRecorder against the real demo agent: what is recorded replays as what was shown."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.history.recorder import SessionRecorder, agent_key_for
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.entries import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    TranscriptEntry,
)
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.updates import SessionNotification
from acp_tui.store.transcripts import RecordedUpdate, RecordedUser, TranscriptCache
from tests.unit.client.agent.agent_helpers import WAIT, demo_client, demo_spec, make_project

KEY = "demo-agent-under-test"


def summary(entries: list[TranscriptEntry]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for entry in entries:
        if isinstance(entry, MessageEntry):
            out.append(("message", entry.role, entry.text))
        elif isinstance(entry, ToolCallEntry):
            out.append(("tool", entry.tool_call_id, entry.title, entry.status))
        elif isinstance(entry, PlanEntryBlock):
            out.append(("plan", [(e.content, e.status) for e in entry.entries]))
        elif isinstance(entry, NoticeEntry):
            out.append(("notice", entry.text))
    return out


def replayed(cache: TranscriptCache, session_id: str) -> Transcript:
    transcript = Transcript(session_id)
    cache.replay_into(KEY, session_id, transcript.apply, transcript.add_user_message)
    return transcript


@pytest.fixture
def cache(tmp_path: Path) -> TranscriptCache:
    return TranscriptCache(tmp_path / "cache")


async def test_a_recorded_turn_replays_like_the_live_transcript(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    project = make_project(tmp_path)
    recorder = SessionRecorder(cache, KEY)
    async with demo_client(tmp_path / "demo", project) as client:
        recorder.attach(client)
        recorder.attach(client)  # idempotent: one listener
        assert len(client.updates) == 1
        session = await client.new_session(project)
        recorder.note(session, created=True)
        for text in ("think plan diff please", "just echo this"):
            blocks = [TextContent(text=text)]
            recorder.record_prompt(session.session_id, blocks)
            with anyio.fail_after(WAIT):
                assert await client.prompt(session.session_id, blocks) == "end_turn"
        live = session.transcript

        copy = replayed(cache, session.session_id)
        assert summary(copy.entries) == summary(live.entries)
        kinds = {type(entry) for entry in live.entries}
        assert {MessageEntry, ToolCallEntry, PlanEntryBlock} <= kinds
        assert ("message", "user", "just echo this") in summary(copy.entries)
        assert copy.title == live.title is not None
        assert copy.usage == live.usage

        indexed = cache.sessions(KEY)
        assert [s.session_id for s in indexed] == [session.session_id]
        assert indexed[0].title == live.title
        assert indexed[0].created_by_client
        assert indexed[0].cwd == str(project)

        recorder.detach()
        assert recorder.on_update not in client.updates
        before = list(cache.events(KEY, session.session_id))
        with anyio.fail_after(WAIT):
            await client.prompt(session.session_id, [TextContent(text="unrecorded")])
        assert list(cache.events(KEY, session.session_id)) == before


async def test_events_are_wire_objects_in_arrival_order(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    project = make_project(tmp_path)
    recorder = SessionRecorder(cache, KEY)
    async with demo_client(tmp_path / "demo", project) as client:
        recorder.attach(client)
        session = await client.new_session(project)
        received: list[dict[str, Any]] = []
        client.subscribe(lambda _sid, update: received.append(update.to_wire()))
        blocks = [TextContent(text="hello")]
        recorder.record_prompt(session.session_id, blocks)
        with anyio.fail_after(WAIT):
            await client.prompt(session.session_id, blocks)
    events = list(cache.events(KEY, session.session_id))
    assert events[0] == RecordedUser([{"type": "text", "text": "hello"}])
    recorded = [e.update for e in events if isinstance(e, RecordedUpdate)]
    assert recorded[-len(received) :] == received
    for wire in recorded:
        SessionNotification.from_wire({"sessionId": "s", "update": wire})


async def test_sessions_are_indexed_without_an_explicit_note(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    project = make_project(tmp_path)
    extra = make_project(tmp_path, "extra")
    recorder = SessionRecorder(cache, KEY)
    async with demo_client(tmp_path / "demo", project) as client:
        recorder.attach(client)
        session = await client.new_session(project, [extra])
        with anyio.fail_after(WAIT):
            await client.prompt(session.session_id, [TextContent(text="title Renamed here")])
    (indexed,) = cache.sessions(KEY)
    assert indexed.session_id == session.session_id
    assert indexed.additional_directories == (str(extra),)
    assert indexed.title == "Renamed here"
    assert not indexed.created_by_client


async def test_updates_of_sessions_not_open_here_are_not_recorded(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    project = make_project(tmp_path)
    recorder = SessionRecorder(cache, KEY)
    async with demo_client(tmp_path / "demo", project) as client:
        recorder.attach(client)
        update = SessionNotification.from_wire(
            {
                "sessionId": "elsewhere",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "x"},
                },
            }
        ).update
        recorder.on_update("elsewhere", update)
    assert not cache.has(KEY, "elsewhere")
    assert cache.sessions(KEY) == []


async def test_a_load_replay_replaces_the_recorded_events(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    project = make_project(tmp_path)
    data = tmp_path / "demo"
    recorder = SessionRecorder(cache, KEY)
    async with demo_client(data, project) as client:
        recorder.attach(client)
        session = await client.new_session(project)
        recorder.note(session, created=True)
        blocks = [TextContent(text="plan this")]
        recorder.record_prompt(session.session_id, blocks)
        with anyio.fail_after(WAIT):
            await client.prompt(session.session_id, blocks)
        first = summary(session.transcript.entries)

    async with demo_client(data, project) as client:
        recorder.attach(client)
        recorder.begin_restore(session.session_id)
        with anyio.fail_after(WAIT):
            loaded = await client.load_session(session.session_id, project)
        recorder.finish_restore(loaded, replayed=True)
        shown = summary(loaded.transcript.entries)
    assert summary(replayed(cache, session.session_id).entries) == shown
    assert [e for e in shown if e[0] == "message"] == [e for e in first if e[0] == "message"]


def _spec(argv: list[str], *, is_demo: bool = False) -> LaunchSpec:
    return LaunchSpec(command=AgentCommand(argv, name="x"), cwd=Path("/"), is_demo=is_demo)


def test_agent_key_ignores_the_interpreter_but_not_the_command(tmp_path: Path) -> None:
    spec = demo_spec(tmp_path / "demo", tmp_path)
    moved = replace(
        spec,
        command=AgentCommand(["/other/venv/bin/python3.12", *spec.command.argv[1:]], name="demo"),
        cwd=Path("/elsewhere"),
    )
    assert agent_key_for(spec) == agent_key_for(moved)
    assert sys.executable not in agent_key_for(spec)
    other_data = demo_spec(tmp_path / "other", tmp_path)
    assert agent_key_for(spec) != agent_key_for(other_data)
    assert agent_key_for(_spec(["my-agent", "--acp"])) != agent_key_for(_spec(["my-agent"]))
    assert agent_key_for(_spec(["my-agent"])) == agent_key_for(_spec(["my-agent"]))


async def test_a_failing_listener_stops_neither_the_recording_nor_the_transcript(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    """A UI listener that raises on every update: the local copy is still complete."""
    project = make_project(tmp_path)
    recorder = SessionRecorder(cache, KEY)
    async with demo_client(tmp_path / "demo", project) as client:
        calls = 0

        def broken(_sid: str, _update: object) -> None:
            nonlocal calls
            calls += 1
            raise RuntimeError("a view that fails on every update")

        client.subscribe(broken)  # subscribed before the recorder, which is still served first
        recorder.attach(client)
        session = await client.new_session(project)
        recorder.note(session, created=True)
        session.transcript.subscribe(lambda change: 1 / 0)  # and a broken transcript view
        seen: list[object] = []
        session.transcript.subscribe(seen.append)
        blocks = [TextContent(text="think plan diff please")]
        recorder.record_prompt(session.session_id, blocks)
        with anyio.fail_after(WAIT):
            assert await client.prompt(session.session_id, blocks) == "end_turn"
        live = session.transcript
        assert calls > 10
        assert client.updates.failures == calls
        assert seen  # the listener after the broken one still ran
        copy = replayed(cache, session.session_id)
        assert summary(copy.entries) == summary(live.entries)
        assert {MessageEntry, ToolCallEntry, PlanEntryBlock} <= {type(e) for e in live.entries}
