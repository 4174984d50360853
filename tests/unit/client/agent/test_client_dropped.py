"""Every dropped update is said: a malformed `session/update` is skipped, and its session's
transcript says so quietly where it was, once per kind in a turn."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.agent.calls import TurnWaiter
from acp_tui.client.agent.dialects import dialect_for
from acp_tui.client.agent.inbox import UpdateInbox
from acp_tui.client.session.entries import MessageEntry, NoticeEntry, PlanEntryBlock
from acp_tui.client.session.live_session import LiveSession
from acp_tui.demo_agent.store import HISTORY_DIR
from acp_tui.protocol.content import TextContent
from tests import in_process
from tests.unit.client.agent.agent_helpers import WAIT, demo_spec, make_project

ENTRY = {"content": "Read the code", "priority": "high", "status": "pending"}
BAD_ENTRY = {"content": 3, "priority": "high"}

MALFORMED: dict[int, list[tuple[dict[str, Any], str]]] = {
    1: [
        ({"sessionUpdate": "tool_call", "title": "Read"}, "a tool call without an id"),
        (
            {"sessionUpdate": "tool_call_update", "status": "completed"},
            "a tool call update without an id",
        ),
        (
            {"sessionUpdate": "plan", "entries": [ENTRY, BAD_ENTRY]},
            "a plan entry it could not read",
        ),
        (
            {"sessionUpdate": "usage_update", "used": "lots"},
            "a usage_update update it could not read",
        ),
    ],
    2: [
        (
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}},
            "a message chunk without a messageId",
        ),
        (
            {"sessionUpdate": "tool_call_update", "status": "completed"},
            "a tool call update without an id",
        ),
        (
            {"sessionUpdate": "plan_update", "plan": {"type": "items", "entries": [ENTRY]}},
            "a plan without an id",
        ),
        (
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": "p", "entries": [ENTRY, BAD_ENTRY, BAD_ENTRY]},
            },
            "2 plan entries it could not read",
        ),
    ],
}
CASES = [(v, update, what) for v, cases in MALFORMED.items() for update, what in cases]


def inbox_with_session(protocol: int) -> tuple[UpdateInbox, LiveSession, list[Any]]:
    session = LiveSession("s1", Path("/tmp/project"))
    inbox = UpdateInbox({"s1": session}, {}, dialect_for(protocol))
    seen: list[Any] = []
    inbox.updates.subscribe(lambda _sid, update: seen.append(update))
    return inbox, session, seen


def send(inbox: UpdateInbox, update: dict[str, Any], session_id: str = "s1") -> None:
    inbox.take_now("session/update", {"sessionId": session_id, "update": update})
    inbox.apply_held()


def reply(protocol: int, text: str) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
    }
    if protocol >= 2:
        chunk["messageId"] = f"m-{text}"
    return chunk


def quiet_notes(session: LiveSession) -> list[str]:
    return [e.text for e in session.transcript.entries if isinstance(e, NoticeEntry) and e.quiet]


@pytest.mark.parametrize(("protocol", "update", "what"), CASES, ids=[c[2] for c in CASES])
def test_a_malformed_update_is_said_where_it_was_once_per_turn(
    protocol: int, update: dict[str, Any], what: str
) -> None:
    inbox, session, seen = inbox_with_session(protocol)
    send(inbox, reply(protocol, "before"))
    send(inbox, update)
    send(inbox, update)  # the same kind again in this turn: said once
    send(inbox, reply(protocol, "after"))
    entries = session.transcript.entries
    note = f"The agent sent {what}: skipped."
    assert quiet_notes(session) == [note]
    order = [e.text if isinstance(e, MessageEntry | NoticeEntry) else "plan" for e in entries]
    shown_plan = ["plan"] if "plan entr" in what else []
    assert order == ["before", *shown_plan, note, "after"]
    if shown_plan:  # the readable entry is shown
        [plan] = [e for e in entries if isinstance(e, PlanEntryBlock)]
        assert [e.content for e in plan.entries] == ["Read the code"]
    assert not any(type(u).__name__ == "UpdateDropped" for u in seen)  # never recorded
    # The next turn says it again.
    session.transcript.add_user_message([TextContent(text="again")])
    send(inbox, update)
    assert quiet_notes(session) == [note, note]


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_different_kinds_are_each_said_and_an_unplaceable_one_only_logged(
    protocol: int, caplog: pytest.LogCaptureFixture
) -> None:
    inbox, session, _seen = inbox_with_session(protocol)
    for update, _what in MALFORMED[protocol]:
        send(inbox, update)
    assert len(quiet_notes(session)) == len(MALFORMED[protocol])
    send(inbox, {"sessionUpdate": "tool_call"}, session_id=None)  # type: ignore[arg-type]
    assert len(quiet_notes(session)) == len(MALFORMED[protocol])
    assert "skipping a malformed session/update" in caplog.text


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_a_dropped_update_before_the_session_is_registered_is_said_once_it_is(
    protocol: int,
) -> None:
    """An update that arrives right after the answer to session/new, before the call registers
    the session, is kept; so is the note of a malformed one."""
    session = LiveSession("s1", Path("/tmp/project"))
    sessions: dict[str, LiveSession] = {}
    turns: dict[str, TurnWaiter] = {}
    inbox = UpdateInbox(sessions, turns, dialect_for(protocol))
    update, what = MALFORMED[protocol][1]
    send(inbox, update)
    assert [type(e).__name__ for e in inbox.early_updates["s1"]] == ["UpdateDropped"]
    sessions["s1"] = session
    from acp_tui.client.agent.dialects.events import apply_event

    for event in inbox.early_updates.pop("s1"):
        apply_event(session.transcript, event)
    assert quiet_notes(session) == [f"The agent sent {what}: skipped."]


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_a_malformed_update_inside_a_load_replay_is_said(
    tmp_path: Path, protocol: int
) -> None:
    """The demo agent's stored history gets a tool call update without an id between two turns;
    loading the session replays it: skipped, and said where it was."""
    project = make_project(tmp_path)
    data = tmp_path / "demo"
    spec = demo_spec(data, project, "--protocol", str(protocol))
    spec = replace(spec, protocol_version=protocol)
    async with in_process.current(spec, init_timeout=WAIT) as client:
        session = await client.new_session(project)
        await client.prompt(session.session_id, [TextContent(text="first")])
        history = data / HISTORY_DIR / f"{session.session_id}.jsonl"
        with history.open("a") as fh:
            fh.write(json.dumps({"sessionUpdate": "tool_call_update", "status": "completed"}))
            fh.write("\n")
        await client.prompt(session.session_id, [TextContent(text="second")])
    async with in_process.current(spec, init_timeout=WAIT) as client:
        loaded = await client.load_session(session.session_id, project)
        entries = loaded.transcript.entries
        note = "The agent sent a tool call update without an id: skipped."
        assert quiet_notes(loaded) == [note]
        users = [
            i for i, e in enumerate(entries) if isinstance(e, MessageEntry) and e.role == "user"
        ]
        [at] = [i for i, e in enumerate(entries) if isinstance(e, NoticeEntry) and e.quiet]
        assert users[0] < at < users[1]
