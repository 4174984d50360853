"""Fuzzing Connection's read loop: nothing a peer sends may end it or stop it answering."""

from __future__ import annotations

import itertools
import json
import logging
from typing import Any

import anyio
import anyio.lowlevel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from acp_tui.protocol.connection import CANCEL_REQUEST
from acp_tui.protocol.jsonrpc import RpcError
from tests.unit.rpc_helpers import RawPeer, line

GOOD_ID = "good-request-after-junk"
GOOD_REQUEST = line({"jsonrpc": "2.0", "id": GOOD_ID, "method": "echo", "params": {"ok": [1, 2]}})
GOOD_REPLY = {"jsonrpc": "2.0", "id": GOOD_ID, "result": {"ok": [1, 2]}}

FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class Point(BaseModel):
    x: int


async def on_request(method: str, params: Any) -> Any:
    """Handlers that echo junk back (exercising the reply path) and fail in every way."""
    if method == "echo":
        return params
    if method == "validate":
        return Point.model_validate(params).model_dump()
    if method == "crash":
        raise RuntimeError(f"crash with {params!r}"[:200])
    if method == "rpc-error":
        raise RpcError(-32000, "auth required", params)
    if method == "yield":
        await anyio.lowlevel.checkpoint()
        return params
    raise RpcError.method_not_found(method)


async def on_notification(method: str, params: Any) -> None:
    if method == "crash":
        raise ValueError("notification crash")
    await anyio.lowlevel.checkpoint()


class _DispatchFailures(logging.Handler):
    """Collects the read loop's last-resort "failed to dispatch" logs: junk must never get there."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "failed to dispatch" in record.msg:
            self.records.append(record)


def feed(chunks: list[bytes]) -> None:
    """Feed the chunks then a good request; it must be answered and run() must end cleanly."""
    failures = _DispatchFailures()
    logger = logging.getLogger("acp_tui.protocol.connection")
    logger.addHandler(failures)
    try:
        anyio.run(_feed, chunks)
    finally:
        logger.removeHandler(failures)
    assert not failures.records, [r.exc_info for r in failures.records]


async def _feed(chunks: list[bytes]) -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=on_request, on_notification=on_notification)
    try:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(conn.run)  # an exception escaping run() fails the test here
                # A preceding junk line without a newline would swallow the good request.
                for chunk in [*chunks, b"\n", GOOD_REQUEST]:
                    await peer.send_raw(chunk)
                done = False
                while not done:
                    msg = await peer.read()
                    # A batch's answers come in one non-empty array (JSON-RPC 2.0 §6).
                    batch = msg if isinstance(msg, list) else [msg]
                    assert batch
                    for item in batch:
                        assert isinstance(item, dict)
                        assert item.get("jsonrpc") == "2.0"
                        if item.get("id") == GOOD_ID and not isinstance(msg, list):
                            assert item == GOOD_REPLY
                            done = True
                await peer.close()
                await conn.closed.wait()
        assert conn.is_closed
    finally:
        peer.dispose()


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    """Split ``data`` at the given offsets (modulo its length)."""
    if not data:
        return [data]
    points = sorted({c % len(data) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


# -- (a) arbitrary bytes ------------------------------------------------------------------------

TOKENS = [
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b":",
    b",",
    b"\n",
    b"\r\n",
    b"\\",
    b"\\u",
    b"d800",
    b"\xff",
    b"\xc3",
    b"\x00",
    b"null",
    b"true",
    b"1e999",
    b"NaN",
    b"-0",
    b'"jsonrpc":"2.0"',
    b'"id":',
    b'"method":',
    b'"params":',
    b'"result":',
    b'"error":',
    b'"echo"',
    b'"$/cancel_request"',
    b'"requestId":',
    b"7",
    b'"7"',
]

junk_bytes = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(TOKENS) | st.binary(max_size=4), max_size=60).map(b"".join),
)


@FUZZ
@given(data=junk_bytes, cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_arbitrary_bytes_never_break_the_read_loop(data: bytes, cuts: list[int]) -> None:
    feed(split(data, cuts))


@FUZZ
@given(lines=st.lists(junk_bytes, min_size=1, max_size=8))
def test_many_junk_lines_then_a_good_request(lines: list[bytes]) -> None:
    feed([b"\n".join(lines)])


# -- (b) arbitrary JSON values --------------------------------------------------------------------

# Text including lone surrogates: legal in JSON as \u escapes, impossible in UTF-8.
# (st.text drops surrogates even from an explicit alphabet, so join characters by hand.)
text = st.text(max_size=12) | st.lists(
    st.characters() | st.characters(categories=["Cs"]), max_size=12
).map("".join)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)
ids = st.one_of(
    st.integers(min_value=-5, max_value=10),
    st.integers(),
    st.sampled_from(["1", "7", "", GOOD_ID + "x"]),
    text,
    st.floats(),
    st.booleans(),
    st.none(),
    st.lists(scalars, max_size=2),
    st.dictionaries(text, scalars, max_size=2),
)
methods = st.one_of(
    st.sampled_from(["echo", "validate", "crash", "rpc-error", "yield", "unknown", CANCEL_REQUEST]),
    json_values,
)
params = st.one_of(
    json_values,
    st.fixed_dictionaries({"requestId": ids}),
    st.fixed_dictionaries({"x": json_values}),
)
errors = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={"code": json_values | st.integers(), "message": json_values, "data": json_values},
    ),
)
message_shaped = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | json_values,
        "id": ids,
        "method": methods,
        "params": params,
        "result": json_values,
        "error": errors,
    },
)
json_messages = st.one_of(
    json_values,
    message_shaped,
    st.lists(message_shaped | json_values, max_size=5),  # batches, including junk items
)


def encode(value: Any, ascii_only: bool) -> bytes:
    try:
        return json.dumps(value, ensure_ascii=ascii_only).encode() + b"\n"
    except UnicodeEncodeError:  # lone surrogates: only their \u escape is valid UTF-8
        return json.dumps(value).encode() + b"\n"


@FUZZ
@given(
    messages=st.lists(json_messages, min_size=1, max_size=6),
    ascii_only=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=4),
)
def test_arbitrary_json_never_breaks_the_read_loop(
    messages: list[Any], ascii_only: bool, cuts: list[int]
) -> None:
    data = b"".join(encode(m, ascii_only) for m in messages)
    feed(split(data, cuts))


@FUZZ
@given(
    msg_id=ids,
    method=methods,
    params=params,
    then_cancel=st.booleans(),
)
def test_requests_with_random_fields_never_break_the_read_loop(
    msg_id: Any, method: Any, params: Any, then_cancel: bool
) -> None:
    request = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    chunks = [encode(request, True)]
    if then_cancel:
        chunks.append(encode({"jsonrpc": "2.0", "method": CANCEL_REQUEST, "params": params}, True))
    feed(chunks)
