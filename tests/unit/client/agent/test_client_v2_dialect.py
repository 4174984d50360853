"""The v2 dialect without an agent: how v2 updates, permission requests and config options land
in the shared models (replace vs append, three-state patches, open enums)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from acp_tui.client.agent.dialects import PermissionRequestView
from acp_tui.client.agent.dialects.events import (
    MessageReplaced,
    ToolContentAppended,
    TurnStateChanged,
    apply_event,
)
from acp_tui.client.agent.dialects.v2 import V2Dialect
from acp_tui.client.session.changes import ChangesContent
from acp_tui.client.session.entries import MessageEntry, ToolCallEntry
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.session_config import SessionConfigSelect, SessionConfigSelectGroup
from acp_tui.protocol.tools import ContentToolCallContent
from acp_tui.protocol.updates import (
    AgentMessageChunk,
    ConfigOptionUpdate,
    PlanUpdate,
    UnknownSessionUpdate,
    UserMessageChunk,
)
from acp_tui.protocol.v2.tools import is_approval

DIALECT = V2Dialect()


def feed(transcript: Transcript, *updates: dict[str, Any]) -> list[Any]:
    """Apply v2 updates; returns what listeners would have got."""
    recorded: list[Any] = []
    for update in updates:
        _, events = DIALECT.parse_update({"sessionId": "s", "update": update})
        for event in events:
            recorded.extend(apply_event(transcript, event))
    return recorded


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def test_whole_messages_replace_and_chunks_append() -> None:
    transcript = Transcript("s")
    feed(
        transcript,
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text("Hel")},
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text("lo")},
    )
    (entry,) = transcript.entries
    assert isinstance(entry, MessageEntry)
    assert entry.text == "Hello"
    recorded = feed(
        transcript,
        {"sessionUpdate": "agent_message", "messageId": "m1", "content": [text("Hello, world")]},
    )
    assert transcript.entries == [entry]
    assert entry.text == "Hello, world"
    assert [type(u) for u in recorded] == [AgentMessageChunk]
    # omitted content: unchanged; null: cleared
    feed(transcript, {"sessionUpdate": "agent_message", "messageId": "m1"})
    assert entry.text == "Hello, world"
    feed(transcript, {"sessionUpdate": "agent_message", "messageId": "m1", "content": None})
    assert entry.text == ""
    # a whole thought with a new id is a new entry; ids are per role
    feed(transcript, {"sessionUpdate": "agent_thought", "messageId": "m1", "content": [text("h")]})
    assert [e.role for e in transcript.entries if isinstance(e, MessageEntry)] == [
        "agent",
        "thought",
    ]


def test_a_cumulative_replace_records_only_what_is_new() -> None:
    transcript = Transcript("s")
    first = feed(
        transcript, {"sessionUpdate": "agent_message", "messageId": "m", "content": [text("a")]}
    )
    more = feed(
        transcript,
        {"sessionUpdate": "agent_message", "messageId": "m", "content": [text("a"), text("b")]},
    )
    assert [u.content.text for u in first + more] == ["a", "b"]
    replayed = Transcript("s")
    for update in first + more:
        replayed.apply(update)
    assert [e.text for e in replayed.entries if isinstance(e, MessageEntry)] == ["ab"]


def test_the_agents_user_message_replaces_the_prompt_shown() -> None:
    transcript = Transcript("s")
    transcript.add_user_message([TextContent(text="hi")])
    recorded = feed(
        transcript,
        {"sessionUpdate": "user_message", "messageId": "u1", "content": [text("hi")]},
    )
    (entry,) = transcript.entries
    assert isinstance(entry, MessageEntry)
    assert (entry.role, entry.message_id, entry.text) == ("user", "u1", "hi")
    assert recorded == []  # the prompt was recorded as sent; the echo adds nothing
    feed(
        transcript, {"sessionUpdate": "user_message_chunk", "messageId": "u1", "content": text("!")}
    )
    assert entry.text == "hi!"
    assert isinstance(
        feed(
            Transcript("t"),
            {"sessionUpdate": "user_message_chunk", "messageId": "x", "content": text("y")},
        )[0],
        UserMessageChunk,
    )


def test_tool_calls_are_upserted_with_three_state_fields() -> None:
    transcript = Transcript("s")
    feed(
        transcript,
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "in_progress"},
    )
    (call,) = transcript.entries
    assert isinstance(call, ToolCallEntry)
    assert (call.title, call.status) == ("Tool call", "in_progress")  # created on first sight
    feed(
        transcript,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "title": "Read",
            "kind": "_scan",
            "content": [{"type": "content", "content": text("one")}],
            "locations": [{"path": "/a"}],
        },
    )
    assert (call.title, call.kind, call.status) == ("Read", "_scan", "in_progress")
    recorded = feed(
        transcript,
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c",
            "content": {"type": "content", "content": text("two")},
        },
    )
    assert [c.content.text for c in call.content if isinstance(c, ContentToolCallContent)] == [
        "one",
        "two",
    ]
    assert len(recorded[0].content) == 2  # listeners get the whole content
    feed(transcript, {"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "done!"})
    assert call.status == "done!"  # unknown statuses are kept
    assert len(call.content) == 2  # omitted: unchanged
    feed(
        transcript,
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": None, "title": None},
    )
    assert call.content == []
    assert call.title == "Tool call"
    assert call.locations != []
    feed(
        transcript,
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "new",
            "content": {
                "type": "diff",
                "changes": [{"operation": "move", "oldPath": "/a", "path": "/b"}],
            },
        },
    )
    created = transcript.tool_call("new")
    assert created is not None
    (diff,) = created.content
    assert isinstance(diff, ChangesContent)
    assert isinstance(diff.content, TextContent)
    assert diff.content.text == "move /a -> /b"


def test_state_plan_config_and_unknown_updates() -> None:
    def events(update: dict[str, Any]) -> list[Any]:
        return DIALECT.parse_update({"sessionId": "s", "update": update})[1]

    assert events({"sessionUpdate": "state_update", "state": "idle", "stopReason": "refusal"}) == [
        TurnStateChanged("idle", "refusal")
    ]
    assert events({"sessionUpdate": "state_update", "state": "_paused"}) == [
        TurnStateChanged("_paused")
    ]
    (plan,) = events(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p",
                "entries": [{"content": "x", "priority": "urgent", "status": "blocked"}],
            },
        }
    )
    assert isinstance(plan, PlanUpdate)
    assert (plan.entries[0].priority, plan.entries[0].status) == ("urgent", "blocked")
    (unknown_plan,) = events(
        {"sessionUpdate": "plan_update", "plan": {"type": "file", "planId": "p", "path": "/p"}}
    )
    assert isinstance(unknown_plan, UnknownSessionUpdate)
    (options,) = events(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {
                    "configId": "model",
                    "name": "Model",
                    "type": "select",
                    "currentValue": "a",
                    "options": [
                        {
                            "groupId": "fast",
                            "name": "Fast",
                            "options": [{"value": "a", "name": "A"}],
                        }
                    ],
                }
            ],
        }
    )
    assert isinstance(options, ConfigOptionUpdate)
    (option,) = options.config_options
    assert isinstance(option, SessionConfigSelect)
    assert option.id == "model"
    (group,) = option.options
    assert isinstance(group, SessionConfigSelectGroup)
    assert group.group == "fast"
    (custom,) = events({"sessionUpdate": "_acme_widget", "x": 1})
    assert isinstance(custom, UnknownSessionUpdate)
    transcript = Transcript("s")
    apply_event(transcript, custom)
    assert transcript.unknown_updates == 1
    assert apply_event(transcript, TurnStateChanged("idle")) == []
    assert DIALECT.parse_update(
        {"sessionId": "s", "update": {"sessionUpdate": "agent_thought", "messageId": "t"}}
    )[1] == [MessageReplaced("thought", "t", None)]
    (appended,) = events(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c",
            "content": {"type": "terminal", "terminalId": "t1"},
        }
    )
    assert isinstance(appended, ToolContentAppended)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def test_agent_owned_terminals_show_in_their_tool_call() -> None:
    transcript = Transcript("s")
    feed(
        transcript,
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Run tests"},
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c",
            "content": {"type": "terminal", "terminalId": "t1"},
        },
    )
    (call,) = transcript.entries
    revision = call.revision
    recorded = feed(
        transcript,
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "command": "cargo test",
            "output": {"data": b64(b"running 3 tests\r\n")},
        },
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": b64(b"ok \xe2\x9c")},
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": b64(b"\x93\n")},
    )
    assert recorded == []  # display only: nothing for the recorder
    assert call.revision > revision  # the tool call is drawn again
    out = transcript.agent_terminals["t1"].snapshot()
    assert out.output == "running 3 tests\r\nok ✓\n"  # a character split across chunks
    assert not out.exited
    feed(
        transcript,
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "exitStatus": {"exitCode": 0, "signal": None},
        },
    )
    out = transcript.agent_terminals["t1"].snapshot()
    assert (out.exited, out.exit_code, out.output) == (True, 0, "running 3 tests\r\nok ✓\n")
    feed(
        transcript,
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "output": {"data": b64(b"again\n")},  # output replaces
            "exitStatus": None,  # null clears: it runs again
        },
    )
    out = transcript.agent_terminals["t1"].snapshot()
    assert (out.output, out.exited, out.exit_code) == ("again\n", False, None)


def test_agent_terminal_output_is_bounded_and_malformed_base64_shown_as_is() -> None:
    transcript = Transcript("s")
    feed(transcript, {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "no!"})
    assert transcript.agent_terminals["t"].snapshot().output == "no!"
    terminal = transcript.agent_terminals["t"]
    terminal.limit = 10
    terminal.add("é".encode() * 8)  # 16 bytes: cut at a character boundary
    out = terminal.snapshot()
    assert out.truncated
    assert out.output == "é" * 5


def test_the_session_looks_agent_owned_terminals_up_for_display(tmp_path: Path) -> None:
    session = LiveSession("s", tmp_path)
    assert session.terminal_output("t1") is None
    feed(
        session.transcript,
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": b64(b"hi")},
    )
    out = session.terminal_output("t1")
    assert out is not None
    assert out.output == "hi"


def test_permission_requests_in_the_handlers_shape() -> None:
    options = [
        {"optionId": "ok", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "odd", "name": "Whatever", "kind": "_acme_yolo"},
    ]
    command = DIALECT.permission_request(
        {
            "sessionId": "s",
            "title": "Run cargo test?",
            "subject": {"type": "command", "command": "cargo test", "cwd": "/w", "toolCallId": "c"},
            "options": options,
        }
    )
    assert isinstance(command, PermissionRequestView)
    assert (command.subject_type, command.command, command.command_cwd) == (
        "command",
        "cargo test",
        "/w",
    )
    assert command.tool_call.title == "Run cargo test?"
    assert command.tool_call.tool_call_id == "c"
    (shown,) = command.tool_call.content or []
    assert isinstance(shown, ContentToolCallContent)
    assert isinstance(shown.content, TextContent)
    assert "$ cargo test" in shown.content.text
    assert [o.kind for o in command.options] == ["allow_once", "_acme_yolo"]
    assert [is_approval(str(o.kind)) for o in command.options] == [True, False]

    bare = DIALECT.permission_request(
        {"sessionId": "s", "title": "Go on?", "description": "Details", "options": options}
    )
    assert isinstance(bare, PermissionRequestView)
    assert bare.subject_type is None
    assert (bare.title, bare.description, bare.tool_call.title) == ("Go on?", "Details", "Go on?")

    custom = DIALECT.permission_request(
        {"sessionId": "s", "title": "Hm?", "subject": {"type": "_acme"}, "options": options}
    )
    assert isinstance(custom, PermissionRequestView)
    assert custom.subject_type == "_acme"
