"""Checks the tolerant parsing of the wire models: unknown kinds kept, bad values defaulted."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from acp_tui.protocol.capabilities import (
    AuthMethodAgent,
    AuthMethodTerminal,
    InitializeResponse,
)
from acp_tui.protocol.client_methods import (
    CreateElicitationRequest,
    RequestPermissionRequest,
    WriteTextFileResponse,
)
from acp_tui.protocol.content import TextContent, UnknownContent
from acp_tui.protocol.methods import (
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SetSessionConfigOptionResponse,
)
from acp_tui.protocol.session_config import (
    SessionConfigBoolean,
    SessionConfigSelect,
    SessionConfigSelectGroup,
    UnknownSessionConfigOption,
)
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    DiffToolCallContent,
    TerminalToolCallContent,
    UnknownToolCallContent,
)
from acp_tui.protocol.updates import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    PlanUpdate,
    SessionInfoUpdate,
    SessionNotification,
    ToolCallProgress,
    ToolCallStart,
    UnknownSessionUpdate,
    UsageUpdate,
)
from tests.unit.test_protocol_models import EXAMPLES, _model_for

SESSION = "sess_1"


def _update(update: dict[str, Any]) -> Any:
    return SessionNotification.from_wire({"sessionId": SESSION, "update": update}).update


# -- unknown kinds are kept ------------------------------------------------------------------


def test_unknown_session_update_is_kept_and_round_trips() -> None:
    wire = {
        "sessionId": SESSION,
        "update": {"sessionUpdate": "_acme_widget", "x": 1, "nested": {"a": [1, None]}},
        "_meta": {"traceparent": "00-abc"},
    }
    note = SessionNotification.from_wire(wire)
    assert isinstance(note.update, UnknownSessionUpdate)
    assert note.update.session_update == "_acme_widget"
    assert note.update.model_extra == {"x": 1, "nested": {"a": [1, None]}}
    assert note.to_wire() == wire


def test_unstable_update_kinds_are_unknown_not_errors() -> None:
    update = _update({"sessionUpdate": "plan_removed", "planId": "p"})
    assert isinstance(update, UnknownSessionUpdate)


def test_unknown_content_type_becomes_unknown_content() -> None:
    wire = {"sessionUpdate": "agent_message_chunk", "content": {"type": "video", "url": "u"}}
    update = _update(wire)
    assert isinstance(update, AgentMessageChunk)
    assert isinstance(update.content, UnknownContent)
    assert update.content.type == "video"
    assert update.to_wire() == wire


def test_unknown_tool_call_content_is_kept() -> None:
    update = _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "t"}},
                {"type": "diff", "path": "/a", "newText": "x"},
                {"type": "terminal", "terminalId": "term"},
                {"type": "_custom", "v": 2},
            ],
        }
    )
    assert isinstance(update, ToolCallProgress)
    assert update.content is not None
    kinds = [type(item) for item in update.content]
    assert kinds == [
        ContentToolCallContent,
        DiffToolCallContent,
        TerminalToolCallContent,
        UnknownToolCallContent,
    ]


def test_unknown_config_option_type_is_kept_but_distinguishable() -> None:
    update = _update(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {"id": "m", "name": "M", "type": "select", "currentValue": "a", "options": []},
                {"id": "b", "name": "B", "type": "boolean", "currentValue": True},
                {"id": "s", "name": "S", "type": "slider", "currentValue": 3, "max": 10},
                {"id": "bad", "name": "Bad", "type": "select"},
            ],
        }
    )
    assert isinstance(update, ConfigOptionUpdate)
    options = update.config_options
    assert [type(o) for o in options] == [
        SessionConfigSelect,
        SessionConfigBoolean,
        UnknownSessionConfigOption,
    ]
    unknown = options[2]
    assert isinstance(unknown, UnknownSessionConfigOption)
    assert unknown.type == "slider"
    assert unknown.current_value == 3
    assert unknown.model_extra == {"max": 10}


def test_grouped_select_options() -> None:
    update = _update(
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {
                    "id": "model",
                    "name": "Model",
                    "type": "select",
                    "currentValue": "m1",
                    "options": [
                        {
                            "group": "fast",
                            "name": "Fast",
                            "options": [{"value": "m1", "name": "1"}],
                        },
                        {
                            "group": "big",
                            "name": "Big",
                            "options": [{"value": "m2", "name": "2"}, 7],
                        },
                    ],
                }
            ],
        }
    )
    option = update.config_options[0]
    assert isinstance(option, SessionConfigSelect)
    assert all(isinstance(group, SessionConfigSelectGroup) for group in option.options)
    assert [o.value for o in option.flat_options()] == ["m1", "m2"]


def test_auth_method_types() -> None:
    response = InitializeResponse.from_wire(
        {
            "protocolVersion": 1,
            "authMethods": [
                {"id": "a", "name": "Agent"},
                {"id": "b", "name": "Explicit agent", "type": "agent"},
                {"id": "c", "name": "Terminal", "type": "terminal", "args": ["--login", 3]},
                {"id": "d", "name": "Future", "type": "_oauth", "scopes": ["x"]},
                {"name": "no id"},
            ],
        }
    )
    methods = response.auth_methods
    assert [type(m) for m in methods] == [
        AuthMethodAgent,
        AuthMethodAgent,
        AuthMethodTerminal,
        AuthMethodAgent,
    ]
    terminal = methods[2]
    assert isinstance(terminal, AuthMethodTerminal)
    assert terminal.args == ["--login"]
    future = methods[3]
    assert isinstance(future, AuthMethodAgent)
    assert future.type == "_oauth"
    assert future.model_extra == {"scopes": ["x"]}


# -- bad values become defaults --------------------------------------------------------------


def test_bad_tool_kind_and_status_become_defaults() -> None:
    start = _update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "t",
            "kind": "teleport",
            "status": "exploded",
            "locations": [{"path": "/a", "line": "one"}, {"line": 3}],
            "content": "not a list",
        }
    )
    assert isinstance(start, ToolCallStart)
    assert (start.kind, start.status) == ("other", "pending")
    assert [(loc.path, loc.line) for loc in start.locations] == [("/a", None)]
    assert start.content == []

    progress = _update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "kind": 5, "status": "cancelled"}
    )
    assert isinstance(progress, ToolCallProgress)
    assert (progress.kind, progress.status) == (None, None)


def test_tool_call_defaults_when_absent() -> None:
    start = _update({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t"})
    assert isinstance(start, ToolCallStart)
    assert (start.kind, start.status, start.content, start.locations) == (
        "other",
        "pending",
        [],
        [],
    )
    assert start.to_wire() == {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t"}


def test_tool_call_update_with_only_an_id() -> None:
    progress = _update({"sessionUpdate": "tool_call_update", "toolCallId": "call_9"})
    assert isinstance(progress, ToolCallProgress)
    assert progress.tool_call_id == "call_9"
    assert progress.model_fields_set == {"tool_call_id", "session_update"}
    assert progress.title is None
    assert progress.content is None
    assert progress.to_wire() == {"sessionUpdate": "tool_call_update", "toolCallId": "call_9"}


def test_bare_content_block_in_permission_tool_call_is_tolerated() -> None:
    """The session-modes doc puts a bare content block in toolCall.content."""
    request = RequestPermissionRequest.from_wire(
        {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "c", "content": [{"type": "text", "text": "x"}, 4]},
            "options": [{"optionId": "o", "name": "Yes", "kind": "allow_sometimes"}],
        }
    )
    assert request.tool_call.content is not None
    assert [type(c) for c in request.tool_call.content] == [UnknownToolCallContent]
    assert request.options[0].kind == "allow_sometimes"


def test_message_id_and_annotations_are_lenient() -> None:
    chunk = _update(
        {
            "sessionUpdate": "agent_thought_chunk",
            "messageId": 42,
            "content": {"type": "text", "text": "hm", "annotations": {"priority": "high"}},
        }
    )
    assert isinstance(chunk, AgentThoughtChunk)
    assert chunk.message_id is None
    assert isinstance(chunk.content, TextContent)
    assert chunk.content.annotations is not None
    assert chunk.content.annotations.priority is None


def test_usage_update_bad_cost() -> None:
    usage = _update({"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": {"amount": 1}})
    assert isinstance(usage, UsageUpdate)
    assert usage.cost is None


def test_known_kind_with_broken_payload_still_fails() -> None:
    with pytest.raises(ValidationError):
        _update({"sessionUpdate": "agent_message_chunk"})
    with pytest.raises(ValidationError):
        _update({"noKind": True})


# -- invalid list items are skipped ----------------------------------------------------------


def test_invalid_available_commands_are_skipped() -> None:
    update = _update(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"name": "web", "description": "Search", "input": {"hint": "query"}},
                {"name": "broken"},
                "junk",
                {"name": "test", "description": "Run tests", "input": {"nohint": 1}},
            ],
        }
    )
    assert isinstance(update, AvailableCommandsUpdate)
    assert [c.name for c in update.available_commands] == ["web", "test"]
    assert update.available_commands[0].input is not None
    assert update.available_commands[0].input.hint == "query"
    assert update.available_commands[1].input is None


def test_invalid_plan_entries_are_skipped() -> None:
    update = _update(
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "a", "priority": "high", "status": "pending"},
                {"content": "b", "priority": "urgent", "status": "pending"},
                {"content": "c", "priority": "low", "status": "completed"},
            ],
        }
    )
    assert isinstance(update, PlanUpdate)
    assert [e.content for e in update.entries] == ["a", "c"]
    assert isinstance(_update({"sessionUpdate": "plan", "entries": None}), PlanUpdate)


def test_invalid_sessions_are_skipped() -> None:
    response = ListSessionsResponse.from_wire(
        {
            "sessions": [
                {"sessionId": "s1", "cwd": "/a", "title": 5, "additionalDirectories": ["/b", 1]},
                {"sessionId": "s2"},
                {"sessionId": "s3", "cwd": "/c", "updatedAt": None},
            ],
            "nextCursor": 17,
        }
    )
    assert [s.session_id for s in response.sessions] == ["s1", "s3"]
    assert response.sessions[0].title is None
    assert response.sessions[0].additional_directories == ["/b"]
    assert response.next_cursor is None
    assert ListSessionsResponse.from_wire({"sessions": "oops"}).sessions == []


def test_session_setup_results_are_lenient() -> None:
    response = NewSessionResponse.from_wire(
        {
            "sessionId": "s",
            "modes": {"currentModeId": 3},
            "configOptions": [
                {"id": "x"},
                {"id": "b", "name": "B", "type": "boolean", "currentValue": 1.5},
            ],
        }
    )
    assert response.modes is None
    assert response.config_options == []
    result = SetSessionConfigOptionResponse.from_wire({"configOptions": 3})
    assert result.config_options == []


# -- quirks ----------------------------------------------------------------------------------


def test_current_mode_update_mode_id_quirk() -> None:
    update = _update({"sessionUpdate": "current_mode_update", "modeId": "code"})
    assert isinstance(update, CurrentModeUpdate)
    assert update.current_mode_id == "code"
    assert update.to_wire() == {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
    both = _update({"sessionUpdate": "current_mode_update", "currentModeId": "a", "modeId": "b"})
    assert isinstance(both, CurrentModeUpdate)
    assert both.current_mode_id == "a"


@pytest.mark.parametrize("model", [LoadSessionResponse, WriteTextFileResponse])
@pytest.mark.parametrize("wire", [None, {}])
def test_null_or_empty_results(model: Any, wire: Any) -> None:
    assert model.from_wire(wire).to_wire() == {}


def test_unknown_stop_reason_is_kept() -> None:
    assert PromptResponse.from_wire({"stopReason": "end_turn"}).stop_reason == "end_turn"
    assert PromptResponse.from_wire({"stopReason": "_paused"}).stop_reason == "_paused"


def test_session_info_update_three_states() -> None:
    unchanged = _update({"sessionUpdate": "session_info_update"})
    cleared = _update({"sessionUpdate": "session_info_update", "title": None})
    changed = _update({"sessionUpdate": "session_info_update", "title": "T", "updatedAt": 5})
    assert isinstance(unchanged, SessionInfoUpdate)
    assert isinstance(cleared, SessionInfoUpdate)
    assert isinstance(changed, SessionInfoUpdate)
    assert "title" not in unchanged.model_fields_set
    assert "title" in cleared.model_fields_set
    assert cleared.title is None
    assert changed.title == "T"
    assert "updated_at" not in changed.model_fields_set
    assert cleared.to_wire() == {"sessionUpdate": "session_info_update", "title": None}


def test_capability_markers() -> None:
    response = InitializeResponse.from_wire(
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": "maybe",
                "promptCapabilities": {"image": True, "audio": [1]},
                "sessionCapabilities": {"list": {}, "resume": None, "close": True},
                "auth": {"logout": {}},
            },
            "agentInfo": {"name": "a"},
        }
    )
    caps = response.agent_capabilities
    assert caps.load_session is False
    assert (caps.prompt_capabilities.image, caps.prompt_capabilities.audio) == (True, False)
    sessions = caps.session_capabilities
    assert sessions.list is not None
    assert (sessions.resume, sessions.close, sessions.delete) == (None, None, None)
    assert caps.auth.logout is not None
    assert response.agent_info is None
    bare = InitializeResponse.from_wire({"protocolVersion": 1, "agentCapabilities": "junk"})
    assert bare.agent_capabilities.session_capabilities.list is None
    assert bare.auth_methods == []


def test_elicitation_is_loose() -> None:
    request = CreateElicitationRequest.from_wire(
        {"mode": "_wizard", "message": "m", "requestId": None, "steps": 3}
    )
    assert request.mode == "_wizard"
    assert "request_id" in request.model_fields_set
    assert request.request_id is None
    assert request.to_wire() == {"mode": "_wizard", "message": "m", "requestId": None, "steps": 3}


# -- _meta and unknown fields survive everywhere ---------------------------------------------


def _decorate(value: Any, counter: list[int]) -> Any:
    """Add `_meta` and an unknown field to every JSON object (free-form string maps excepted)."""
    if isinstance(value, list):
        return [_decorate(item, counter) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "_meta" or (key == "env" and isinstance(item, dict)):
            out[key] = item
        else:
            out[key] = _decorate(item, counter)
    counter[0] += 1
    out.setdefault("_meta", {"n": counter[0]})
    out["zzFuture"] = {"kept": [counter[0], None]}
    return out


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.section} {e.title}" for e in EXAMPLES])
def test_meta_and_unknown_fields_survive(example: Any) -> None:
    model, wire = _model_for(example)
    decorated = _decorate(copy.deepcopy(wire if wire is not None else {}), [0])
    assert model.from_wire(decorated).to_wire() == decorated


def test_model_instances_in_unions() -> None:
    note = SessionNotification(
        session_id=SESSION, update=AgentMessageChunk(content=TextContent(text="hi"), message_id="m")
    )
    assert note.to_wire() == {
        "sessionId": SESSION,
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi"},
            "messageId": "m",
        },
    }
    assert isinstance(SessionNotification.from_wire(note.to_wire()).update, AgentMessageChunk)
