"""refuse_at_once: a question the user's side refuses now is answered before it is served, as
its refusal would have been, and counted; anything else is served as usual."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from pydantic import ValidationError

from acp_tui.client.agent.dialects.v1 import V1Dialect
from acp_tui.client.agent.refusals import refuse_at_once
from acp_tui.client.session import elicitation
from acp_tui.client.session.forms import Form
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.tools.terminal_gate import TerminalAsk, TerminalPolicy
from acp_tui.protocol.connection import NOT_NOW
from acp_tui.protocol.jsonrpc import RpcError


class Gate:
    def __init__(self, why: str | None) -> None:
        self.why = why
        self.refusals: list[tuple[str, str]] = []

    def refusing(self, session_id: str) -> str | None:
        return self.why

    def refused(self, session_id: str, why: str) -> None:
        self.refusals.append((session_id, why))


def client(tmp_path: Path, asks: bool = True) -> Any:
    def ask(live: Any, command: TerminalAsk) -> bool:
        return asks

    return SimpleNamespace(
        sessions={"s": LiveSession("s", tmp_path)},
        dialect=V1Dialect(),
        terminal_policy=TerminalPolicy(asks=ask),
    )


PERMISSION = {
    "sessionId": "s",
    "toolCall": {"toolCallId": "t", "title": "Write"},
    "options": [
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ],
}
FORM = {
    "sessionId": "s",
    "mode": "form",
    "message": "Name?",
    "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
}
COMMAND = {"sessionId": "s", "command": "rm", "args": ["-rf", "x"]}


def test_refused_questions_get_their_refusal_and_are_counted(tmp_path: Path) -> None:
    gate = Gate("it asked more than 50 at once")
    answer = refuse_at_once(client(tmp_path), gate, "session/request_permission", PERMISSION)
    assert answer == {"outcome": {"outcome": "selected", "optionId": "no"}}
    assert refuse_at_once(client(tmp_path), gate, "elicitation/create", FORM) == {
        "action": "decline"
    }
    with pytest.raises(RpcError) as info:
        refuse_at_once(client(tmp_path), gate, "terminal/create", COMMAND)
    assert "Refused to run 'rm': the user did not allow it" in info.value.message
    assert gate.refusals == [("s", "it asked more than 50 at once")] * 3


def test_what_is_asked_or_decided_otherwise_is_served_as_usual(tmp_path: Path) -> None:
    asked = Gate(None)
    for method, params in [
        ("session/request_permission", PERMISSION),
        ("elicitation/create", FORM),
        ("terminal/create", COMMAND),
    ]:
        assert refuse_at_once(client(tmp_path), asked, method, params) is NOT_NOW
    refusing = Gate("you refused all its questions")
    # A command the setting allows (or denies) without asking; a URL question; another
    # session's; another method.
    quiet = client(tmp_path, asks=False)
    assert refuse_at_once(quiet, refusing, "terminal/create", COMMAND) is NOT_NOW
    url = {
        "sessionId": "s",
        "mode": "url",
        "elicitationId": "e",
        "url": "https://x",
        "message": "m",
    }
    assert refuse_at_once(client(tmp_path), refusing, "elicitation/create", url) is NOT_NOW
    other = {**PERMISSION, "sessionId": "t"}
    assert (
        refuse_at_once(client(tmp_path), refusing, "session/request_permission", other) is NOT_NOW
    )
    assert (
        refuse_at_once(client(tmp_path), refusing, "fs/read_text_file", {"sessionId": "s"})
        is NOT_NOW
    )
    assert refusing.refusals == []


def test_a_malformed_question_refused_at_once_is_an_error_as_when_served(tmp_path: Path) -> None:
    gate = Gate("you refused all its questions")
    bad = {**PERMISSION, "options": [{"optionId": 3}]}
    with pytest.raises(ValidationError):
        refuse_at_once(client(tmp_path), gate, "session/request_permission", bad)
    with pytest.raises(RpcError):  # a form without a schema (-32602)
        refuse_at_once(
            client(tmp_path), gate, "elicitation/create", {**FORM, "requestedSchema": None}
        )
    assert cast(list[object], gate.refusals) == []


def test_refused_forms_of_one_schema_are_read_once_and_as_strictly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flood of forms of one schema: the schema is read (and its form built) once, not once
    per refused form; one that makes no form is still an error, each time."""
    built: list[object] = []
    build = Form.of
    monkeypatch.setattr(Form, "of", lambda schema: built.append(schema) or build(schema))
    monkeypatch.setattr(elicitation, "_read_schemas", {}, raising=False)
    gate = Gate("you refused all its questions")
    schema = {"type": "object", "properties": {"only": {"type": "string", "title": "Only"}}}
    for n in range(5):
        answer = refuse_at_once(
            client(tmp_path),
            gate,
            "elicitation/create",
            {**FORM, "message": f"Question {n}", "requestedSchema": copy.deepcopy(schema)},
        )
        assert answer == {"action": "decline"}
    assert len(built) == 1
    assert len(gate.refusals) == 5
    schemaless = {k: v for k, v in FORM.items() if k != "requestedSchema"}
    for bad in ({**FORM, "requestedSchema": None}, schemaless):
        for _ in range(2):
            with pytest.raises(RpcError):  # -32602, as when served
                refuse_at_once(client(tmp_path), gate, "elicitation/create", bad)
    assert len(gate.refusals) == 5
