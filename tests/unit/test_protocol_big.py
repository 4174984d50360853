"""Big lines in small steps: decoding, validating and encoding give what one call would, in
many short calls; the collector is paused meanwhile and restored after."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from acp_tui.protocol import big
from acp_tui.protocol.big import (
    decode_in_steps,
    encode_in_pieces,
    quiet_gc,
    validate_in_pieces,
    validate_lists_in_pieces,
)
from acp_tui.protocol.client_methods import RequestPermissionRequest
from acp_tui.protocol.updates import SessionNotification

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.sampled_from([None, 1]))
def test_decoding_in_steps_gives_what_json_gives(value: Any, indent: int | None) -> None:
    line = json.dumps(value, indent=indent).encode()
    assert decode_in_steps(line) == json.loads(line)


@pytest.mark.parametrize(
    "line", [b"[1,]", b'{"a":1,}', b'{"a" 1}', b"1 2", b"", b"[", b'{"a":[1,2}', b"\xef\xbb\xbf[]"]
)
def test_what_json_refuses_the_steps_refuse_with_json_s_error(line: bytes) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(line.decode("utf-8", "replace"))
    with pytest.raises(json.JSONDecodeError):
        decode_in_steps(line)


def test_invalid_utf8_is_replaced_and_deep_nesting_fails_as_in_json() -> None:
    assert decode_in_steps(b'{"t": "bad \xff\xfe bytes"}') == {"t": "bad \ufffd\ufffd bytes"}
    with pytest.raises(RecursionError):
        decode_in_steps(b"[" * 200_000 + b"]" * 200_000)


def test_each_item_of_a_long_list_is_one_short_call(monkeypatch: pytest.MonkeyPatch) -> None:
    spans: list[int] = []
    real = big._scan_once

    def scan(text: str, index: int) -> tuple[Any, int]:
        value, end = real(text, index)
        spans.append(end - index)
        return value, end

    monkeypatch.setattr(big, "_scan_once", scan)
    rows = [{"sessionId": f"s{i}", "cwd": "/p", "title": f"t {i}"} for i in range(10_000)]
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"sessions": rows}}).encode()
    assert decode_in_steps(line)["result"]["sessions"] == rows
    assert len(spans) >= 10_000
    assert max(spans) < len(line) / 1000


def test_the_collector_is_paused_inside_nested_quiet_blocks_and_restored_after() -> None:
    was_enabled = gc.isenabled()  # another test in this worker may have left it paused
    gc.enable()
    frozen = gc.get_freeze_count()
    kept = [[i] for i in range(1000)]
    try:
        with quiet_gc():
            assert not gc.isenabled()
            with quiet_gc():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen  # what was built stays out of later passes
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        with quiet_gc(freeze=False):
            pass
        assert not gc.isenabled()  # paused by someone else: left paused
    finally:
        if was_enabled:
            gc.enable()
    assert kept


def _permission(options: list[dict[str, Any]]) -> dict[str, Any]:
    return {"sessionId": "s", "toolCall": {"toolCallId": "t", "title": "T"}, "options": options}


def test_validating_in_pieces_gives_the_model_and_its_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(big, "PIECE", 7)
    pieces: list[int] = []
    real = big.list_adapter

    class Counted:
        def __init__(self, adapter: Any) -> None:
            self.adapter = adapter

        def validate_python(self, items: list[Any]) -> Any:
            pieces.append(len(items))
            return self.adapter.validate_python(items)

    monkeypatch.setattr(big, "list_adapter", lambda model, key: Counted(real(model, key)))

    def options() -> list[dict[str, Any]]:
        return [{"optionId": f"o{i}", "name": f"n{i}", "kind": "allow_once"} for i in range(50)]

    expected = RequestPermissionRequest.model_validate(_permission(options()))
    params = _permission(options())
    got = validate_in_pieces(RequestPermissionRequest, params, "options")
    assert got == expected
    assert got.to_wire() == expected.to_wire()
    assert params["options"] == []  # each raw slice let go once validated
    assert pieces
    assert max(pieces) <= 7
    bad = options()
    bad[30] = {"optionId": "bad"}
    with pytest.raises(ValidationError) as caught:
        validate_in_pieces(RequestPermissionRequest, _permission(bad), "options")
    assert caught.value.errors()[0]["loc"][:2] == ("options", 30)


def test_a_long_plan_is_validated_in_slices_as_the_model_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.client.agent.dialects.v1 import LIST_HOLDERS

    monkeypatch.setattr(big, "PIECE", 4)

    def entries() -> list[Any]:
        listed: list[Any] = [
            {"content": f"step {i}", "priority": "high", "status": "pending"} for i in range(30)
        ]
        listed[17] = {"content": 5}  # invalid: skipped, as the model skips it
        return listed

    def note() -> dict[str, Any]:
        return {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": entries()}}

    expected = SessionNotification.model_validate(note())
    raw = note()
    prepared = validate_lists_in_pieces(LIST_HOLDERS["plan"], raw["update"])
    assert raw["update"]["entries"] == []
    assert SessionNotification.model_validate({**raw, "update": prepared}) == expected
    assert len(prepared["entries"]) == 29


def test_encoding_in_pieces_gives_the_same_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(big, "PIECE", 3)
    monkeypatch.setattr(big, "STRING_PIECE", 4)
    strings: list[str] = []
    real = big._json

    def counted(value: Any) -> str:
        if isinstance(value, str):
            strings.append(value)
        return real(value)

    monkeypatch.setattr(big, "_json", counted)
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    padded = {"pad": 'p\u00e9"\n' * 10, "n": [1, 2.5, None, True, {"deep": "x" * 9}]}
    entries = [
        {"content": f"step {i}", "priority": "high", "status": "pending", "_meta": {"i": i}}
        for i in range(10)
    ]
    locations = [{"path": f"/f{i}", "line": i} for i in range(10)]
    for update in (
        {"sessionUpdate": "plan", "entries": entries},
        {"sessionUpdate": "plan", "entries": entries, "_meta": {"m": 1}},
        {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "locations": locations},
        {**chunk, "_meta": padded},
        {**chunk, "_meta": None, "unknownField": padded},
    ):
        model = SessionNotification.from_wire({"sessionId": "s", "update": update}).update
        whole = model.model_dump_json(by_alias=True, exclude_unset=True)
        assert json.loads(encode_in_pieces(model)) == json.loads(whole)
    assert strings
    assert not [v for v in strings if "xxxxx" in v or 'p\u00e9"\np' in v]  # in slices
