"""The ACP v2 draft models: every Appendix A.3 example parses and re-serialises equal, unknown
values of open enums are kept, and the three-state fields tell omitted from null."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.base import WireModel
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.v2 import methods as M
from acp_tui.protocol.v2.config import SessionConfigSelect
from acp_tui.protocol.v2.initialize import (
    AuthMethodAgent,
    AuthMethodTerminal,
    InitializeRequest,
    InitializeResponse,
    UnknownAuthMethod,
)
from acp_tui.protocol.v2.tools import (
    CommandPermissionSubject,
    Diff,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ToolCallPermissionSubject,
    UnknownPermissionOutcome,
    UnknownPermissionSubject,
    is_approval,
)
from acp_tui.protocol.v2.updates import (
    AgentMessageChunk,
    AgentThought,
    IdleState,
    PlanItems,
    PlanUpdate,
    SessionNotification,
    ToolCallContentChunk,
    ToolCallProgress,
    UnknownPlan,
    UnknownSessionUpdate,
    UnknownState,
    UserMessage,
)

PROTOCOL = Path(__file__).parents[1] / "data" / "acp" / "PROTOCOL.md"

MODELS: dict[str, type[WireModel]] = {
    "InitializeRequest": InitializeRequest,
    "InitializeResponse": InitializeResponse,
    "LoginAuthRequest": M.LoginRequest,
    "NewSessionRequest": M.NewSessionRequest,
    "NewSessionResponse": M.NewSessionResponse,
    "ResumeSessionRequest": M.ResumeSessionRequest,
    "ResumeSessionResponse": M.ResumeSessionResponse,
    "ListSessionsResponse": M.ListSessionsResponse,
    "PromptResponse": M.PromptResponse,
    "RequestPermissionRequest": RequestPermissionRequest,
}


def a3_examples() -> list[tuple[str, str, Any]]:
    """(title, $defs name or "notification", JSON) of every example in section A.3."""
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("### A.3", 1)[1].split("\n## ", 1)[0]
    found = []
    pattern = re.compile(r"\*\*(.+?)\*\*(?:\s*—\s*`\$defs/(\w+)`)?\s*```json\n(.*?)```", re.S)
    for title, definition, body in pattern.findall(section):
        found.append((title, definition or "notification", json.loads(body)))
    return found


EXAMPLES = a3_examples()


def test_the_examples_were_found() -> None:
    kinds = [d for _, d, _ in EXAMPLES]
    assert len(EXAMPLES) >= 25
    assert set(MODELS) <= set(kinds)
    assert kinds.count("notification") >= 14


@pytest.mark.parametrize(("title", "definition", "example"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_a3_example_round_trips(title: str, definition: str, example: Any) -> None:
    if definition == "notification":
        assert example["method"] == "session/update"
        note = SessionNotification.from_wire(example["params"])
        assert not isinstance(note.update, UnknownSessionUpdate) or (
            note.update.session_update.startswith("_")
        )
        assert note.to_wire() == example["params"]
    else:
        model = MODELS[definition].from_wire(example)
        assert model.to_wire() == example


def test_examples_parse_into_the_expected_shapes() -> None:
    by_title = {title: example for title, _, example in EXAMPLES}
    init = InitializeResponse.from_wire(by_title["initialize response"])
    session = init.capabilities.session
    assert session is not None
    assert session.prompt is not None
    assert session.prompt.image is not None
    assert session.prompt.audio is None
    assert session.delete is not None
    assert session.fork is None
    (method,) = init.auth_methods
    assert isinstance(method, AuthMethodAgent)
    assert method.method_id == "agent-login"

    resume = M.ResumeSessionRequest.from_wire(
        by_title["session/resume request (replay from start)"]
    )
    assert isinstance(resume.replay_from, M.ReplayFromStart)
    plain = M.ResumeSessionRequest.from_wire(by_title["session/resume request (no replay)"])
    assert plain.replay_from is None
    assert "replay_from" in plain.model_fields_set

    new = M.NewSessionResponse.from_wire(by_title["session/new response"])
    (option,) = new.config_options or []
    assert isinstance(option, SessionConfigSelect)
    assert option.config_id == "mode"

    permission = RequestPermissionRequest.from_wire(
        by_title["session/request_permission request (command subject)"]
    )
    assert isinstance(permission.subject, CommandPermissionSubject)
    assert permission.subject.terminal_id == "term_001"


def test_open_unions_keep_unknown_values() -> None:
    note = SessionNotification.from_wire(
        {"sessionId": "s", "update": {"sessionUpdate": "state_update", "state": "paused", "x": 1}}
    )
    assert isinstance(note.update, UnknownState)
    assert note.update.state == "paused"
    assert note.to_wire()["update"]["x"] == 1

    plan = PlanUpdate.from_wire(
        {"sessionUpdate": "plan_update", "plan": {"type": "markdown", "planId": "p", "text": "# x"}}
    )
    assert isinstance(plan.plan, UnknownPlan)
    assert plan.to_wire()["plan"]["text"] == "# x"

    call = ToolCallProgress.from_wire(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "kind": "_teleport", "status": "x"}
    )
    assert (call.kind, call.status) == ("_teleport", "x")

    request = RequestPermissionRequest.from_wire(
        {
            "sessionId": "s",
            "title": "Do it?",
            "subject": {"type": "_acme", "what": "everything"},
            "options": [{"optionId": "o", "name": "Sure", "kind": "_acme_allow_forever"}],
        }
    )
    assert isinstance(request.subject, UnknownPermissionSubject)
    assert request.options[0].kind == "_acme_allow_forever"
    assert not is_approval(request.options[0].kind)
    assert is_approval("allow_once")
    assert not is_approval(None)

    answer = RequestPermissionResponse.from_wire({"outcome": {"outcome": "_maybe"}})
    assert isinstance(answer.outcome, UnknownPermissionOutcome)

    methods = InitializeResponse.from_wire(
        {
            "protocolVersion": 2,
            "info": {"name": "a", "version": "1"},
            "authMethods": [
                {
                    "methodId": "t",
                    "name": "T",
                    "type": "terminal",
                    "env": [{"name": "A", "value": "1"}],
                },
                {"methodId": "x", "name": "X", "type": "_sso"},
                {"id": "no-method-id", "name": "bad"},
            ],
        }
    ).auth_methods
    assert [type(m) for m in methods] == [AuthMethodTerminal, UnknownAuthMethod]


def test_messages_and_tool_content() -> None:
    whole = AgentThought.from_wire(
        {"sessionUpdate": "agent_thought", "messageId": "m", "content": None}
    )
    assert whole.content is None
    assert "content" in whole.model_fields_set
    untouched = UserMessage.from_wire({"sessionUpdate": "user_message", "messageId": "m"})
    assert "content" not in untouched.model_fields_set
    with pytest.raises(ValueError, match=r"message_id|messageId"):
        AgentMessageChunk.from_wire(
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
        )
    chunk = ToolCallContentChunk.from_wire(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c",
            "content": {"type": "diff", "changes": [{"operation": "add", "path": "/a"}]},
        }
    )
    assert isinstance(chunk.content, Diff)
    assert chunk.content.changes[0].operation == "add"
    idle = SessionNotification.from_wire(
        {"sessionId": "s", "update": {"sessionUpdate": "state_update", "state": "idle"}}
    ).update
    assert isinstance(idle, IdleState)
    assert idle.stop_reason is None
    items = PlanUpdate(plan=PlanItems(plan_id="p", entries=[])).to_wire()
    assert items == {
        "sessionUpdate": "plan_update",
        "plan": {"type": "items", "planId": "p", "entries": []},
    }


def test_built_requests_have_the_v2_shapes() -> None:
    resume = M.ResumeSessionRequest(session_id="s", cwd="/p", replay_from=M.ReplayFromStart())
    assert resume.to_wire() == {"sessionId": "s", "cwd": "/p", "replayFrom": {"type": "start"}}
    assert M.ResumeSessionRequest(session_id="s", cwd="/p").to_wire() == {
        "sessionId": "s",
        "cwd": "/p",
    }
    assert M.SetSessionConfigOptionRequest.select("s", "model", "x").to_wire() == {
        "sessionId": "s",
        "configId": "model",
        "type": "id",
        "value": "x",
    }
    assert M.PromptRequest(session_id="s", prompt=[TextContent(text="hi")]).to_wire() == {
        "sessionId": "s",
        "prompt": [{"type": "text", "text": "hi"}],
    }
    assert isinstance(
        RequestPermissionRequest.from_wire(
            {
                "sessionId": "s",
                "title": "t",
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "c"}},
                "options": [{"optionId": "a", "name": "A", "kind": "allow_once"}],
            }
        ).subject,
        ToolCallPermissionSubject,
    )
