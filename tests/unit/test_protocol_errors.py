"""RpcError as the user reads it: the message, the code, and what the error's ``data`` says."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.protocol.errors import DETAIL_CHARS, DETAIL_LINES, RpcError, error_detail


def test_a_string_data_is_the_reason() -> None:
    error = RpcError.from_wire(
        {"code": -32603, "message": "Internal error", "data": "CODEX_API_KEY is not set"}
    )
    assert str(error) == "Internal error (code -32603) — CODEX_API_KEY is not set"
    assert error.detail == "CODEX_API_KEY is not set"


def test_an_object_data_gives_its_message_then_its_details() -> None:
    data = {"message": "stream disconnected", "details": "connection reset\nby peer", "x": 1}
    error = RpcError(-32603, "Internal error", data)
    assert str(error) == (
        "Internal error (code -32603) — stream disconnected\nconnection reset\nby peer"
    )


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (None, None),
        ({"uri": "file:///x"}, None),  # for programs, not for the user
        ({"method": "x"}, None),
        (42, None),
        (["a"], None),
        ("   ", None),
        ("Internal error", None),  # only repeats the message
        ({"message": "Internal error", "details": "why"}, "why"),
        ({"details": {"status": 401}}, '{"status":401}'),
        ({"message": 3, "details": None}, "3"),
    ],
)
def test_what_data_adds(data: Any, detail: str | None) -> None:
    assert error_detail(data, "Internal error") == detail
    expected = "Internal error (code -32603)" + (f" — {detail}" if detail else "")
    assert str(RpcError(-32603, "Internal error", data)) == expected


def test_a_long_data_is_bounded() -> None:
    trace = "\n".join(f"  at frame {i}" for i in range(1000))
    detail = error_detail({"message": "boom", "details": trace})
    assert detail is not None
    assert detail.splitlines()[:3] == ["boom", "at frame 0", "  at frame 1"]
    assert len(detail.splitlines()) == DETAIL_LINES
    assert detail.endswith("…")
    one_line = error_detail("x" * 100_000)
    assert one_line is not None
    assert len(one_line) == DETAIL_CHARS + 1
    assert one_line.endswith("…")


def test_deeply_nested_details_do_not_crash() -> None:
    nested: Any = "bottom"
    for _ in range(5000):
        nested = [nested]
    assert error_detail({"message": "deep", "details": nested}) == "deep"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(data=json_values | st.dictionaries(st.sampled_from(["message", "details"]), json_values))
def test_any_data_gives_a_bounded_text_or_none(data: Any) -> None:
    detail = error_detail(data)
    assert detail is None or (0 < len(detail) <= DETAIL_CHARS + 1)
    str(RpcError(-32603, "Internal error", data))
