"""Round-trips every v1 example of PROTOCOL.md Appendix A through the wire models."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.base import WireModel
from acp_tui.protocol.methods import AGENT_METHODS, CLIENT_METHODS, MethodTable
from acp_tui.protocol.updates import SessionNotification

PROTOCOL_MD = Path(__file__).parents[1] / "data" / "acp" / "PROTOCOL.md"

_BLOCK = re.compile(r"\*\*(?P<title>[^*\n]+)\*\*[^\n]*\n```json\n(?P<body>.*?)\n```", re.DOTALL)


@dataclass(frozen=True)
class Example:
    section: str
    title: str
    message: dict[str, Any]


def _section(text: str, start: str, end: str) -> str:
    begin = text.index(start)
    return text[begin : text.index(end, begin)]


def _examples() -> list[Example]:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    found: list[Example] = []
    for name, start, end in (("A.1", "### A.1", "### A.2"), ("A.2", "### A.2", "### A.3")):
        body = _section(text, start, end)
        assert body.count("```json") == len(_BLOCK.findall(body)), f"untitled block in {name}"
        found += [Example(name, m["title"], json.loads(m["body"])) for m in _BLOCK.finditer(body)]
    return found


EXAMPLES = _examples()
ALL_METHODS: MethodTable = {**AGENT_METHODS, **CLIENT_METHODS}


def _model_for(example: Example) -> tuple[type[WireModel], dict[str, Any] | None]:
    """The model and wire object of an example: params of requests/notifications, or result."""
    message = example.message
    if "method" in message:
        params_model, _ = ALL_METHODS[message["method"]]
        return params_model, message.get("params")
    # A response: the method is the one of the request with the same id, in the same section.
    methods = {
        e.message["id"]: e.message["method"]
        for e in EXAMPLES
        if e.section == example.section and "method" in e.message and "id" in e.message
    }
    _, result_model = ALL_METHODS[methods[message["id"]]]
    assert result_model is not None
    return result_model, message["result"]


def test_every_appendix_block_is_matched() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    blocks = sum(
        _section(text, start, end).count("```json")
        for start, end in (("### A.1", "### A.2"), ("### A.2", "### A.3"))
    )
    assert len(EXAMPLES) == blocks
    assert len(EXAMPLES) >= 50
    assert sum(1 for e in EXAMPLES if e.section == "A.2") == 11
    matched = [_model_for(e) for e in EXAMPLES]
    assert len(matched) == blocks


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.section} {e.title}" for e in EXAMPLES])
def test_example_round_trips(example: Example) -> None:
    model, wire = _model_for(example)
    if example.section == "A.2":
        assert model is SessionNotification
    parsed = model.from_wire(wire)
    assert parsed.to_wire() == (wire if wire is not None else {})
    # A second trip through the parsed model is stable too.
    assert model.from_wire(parsed.to_wire()).to_wire() == parsed.to_wire()


def test_tables_cover_every_v1_method() -> None:
    assert set(AGENT_METHODS) == {
        "initialize",
        "authenticate",
        "logout",
        "session/new",
        "session/load",
        "session/list",
        "session/resume",
        "session/close",
        "session/delete",
        "session/fork",
        "session/set_mode",
        "session/set_config_option",
        "session/prompt",
        "session/cancel",
        "$/cancel_request",
    }
    assert set(CLIENT_METHODS) == {
        "session/update",
        "session/request_permission",
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
        "elicitation/create",
        "elicitation/complete",
        "$/cancel_request",
    }
    notifications = {name for name, (_, result) in ALL_METHODS.items() if result is None}
    assert notifications == {
        "session/cancel",
        "$/cancel_request",
        "session/update",
        "elicitation/complete",
    }
