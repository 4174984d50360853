"""Connection hooks of the wire path: ``on_drain``, the raw ``tap``, and ``decode_line``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from acp_tui.protocol.connection import decode_line
from tests.unit.rpc_helpers import RawPeer, dispose_peers, line


@pytest.fixture(autouse=True)
def _close_peer_streams() -> Iterator[None]:
    yield
    dispose_peers()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":"\\ud800"}',  # a lone surrogate: json takes it, pydantic-core does not
        b'{"a":1,"a":2}',
        b"123456789012345678901234567890",
        b"[Infinity, NaN, -Infinity]",
        b' {"x": "\\u00e9\\n"} \r',
        '{"k": "caf\u00e9 \U0001f600"}'.encode(),
    ],
)
def test_decode_line_gives_what_json_gives(raw: bytes) -> None:
    assert json.dumps(decode_line(raw)) == json.dumps(json.loads(raw))


@pytest.mark.parametrize("raw", [b"[1,]", b'{"a":1} x', b"[" * 5000 + b"]" * 5000])
def test_decode_line_refuses_what_json_refuses(raw: bytes) -> None:
    with pytest.raises((ValueError, RecursionError)):
        decode_line(raw)


def test_decode_line_replaces_invalid_utf8_instead_of_refusing_the_line() -> None:
    assert decode_line(b'{"a": "caf\xff!"}') == {"a": "caf\ufffd!"}


async def test_drain_comes_before_a_reply_and_after_each_read() -> None:
    peer = RawPeer()
    seen: list[str] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(method)

    conn = peer.connection(on_notification=on_notification)
    drains: list[tuple[int, bool]] = []
    conn.on_drain = lambda: drains.append(
        (len(seen), any(p.done.is_set() for p in conn._pending.values()))
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        result: list[Any] = []

        async def ask() -> None:
            result.append(await conn.request("ping"))

        tg.start_soon(ask)
        sent = await peer.read()
        await peer.send_raw(
            line({"jsonrpc": "2.0", "method": "one"})
            + line({"jsonrpc": "2.0", "id": sent["id"], "result": 5})
            + line({"jsonrpc": "2.0", "method": "two"})
        )
        with anyio.fail_after(5):
            while not result:  # the waiter wakes once the read loop yields
                await anyio.lowlevel.checkpoint()
        tg.cancel_scope.cancel()
    # Before the reply is delivered (its request not done yet), then at the end of the read.
    assert drains[:2] == [(1, False), (2, True)]
    assert result == [5]


async def test_tap_sees_raw_lines_both_ways_and_never_blank_ones() -> None:
    peer = RawPeer()
    conn = peer.connection()
    tapped: list[tuple[str, bytes]] = []
    conn.tap = lambda direction, data: tapped.append((direction, data))
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        await conn.notify("hello", {"x": 1})
        await peer.read()
        await peer.send_raw(b'{"jsonrpc":"2.0","method":"m"}\r\n\n   \nnot json\n')
        with anyio.fail_after(5):
            while len(tapped) < 3:
                await anyio.lowlevel.checkpoint()
        tg.cancel_scope.cancel()
    assert tapped == [
        ("send", b'{"jsonrpc":"2.0","method":"hello","params":{"x":1}}\n'),
        ("recv", b'{"jsonrpc":"2.0","method":"m"}\r'),
        ("recv", b"not json"),
    ]


async def test_notifications_taken_now_keep_their_order_with_the_rest() -> None:
    """``on_notification_now`` takes what it returns True for (the async handler never sees
    it); what it declines, requests, replies and a handler that raises keep arrival order."""
    peer = RawPeer()
    seen: list[str] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(f"async {method}")

    def now(method: str, params: Any) -> bool:
        if method == "boom":
            raise RuntimeError("a broken handler")
        if method.startswith("fast"):
            seen.append(f"now {method}")
            return True
        return False

    conn = peer.connection(on_notification=on_notification)
    conn.on_notification_now = now
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        result: list[Any] = []

        async def ask() -> None:
            result.append(await conn.request("ping"))
            seen.append("reply")

        tg.start_soon(ask)
        sent = await peer.read()
        await peer.send_raw(
            line({"jsonrpc": "2.0", "method": "fast/1"})
            + line({"jsonrpc": "2.0", "method": "slow/2"})
            + line({"jsonrpc": "2.0", "method": "boom"})
            + b"not json\n"
            + line({"jsonrpc": "2.0", "method": "fast/3"})
            + line({"jsonrpc": "2.0", "id": sent["id"], "result": 5})
        )
        with anyio.fail_after(5):
            while not result:
                await anyio.lowlevel.checkpoint()
        await peer.send_raw(line({"jsonrpc": "2.0", "method": "fast/4"}))
        with anyio.fail_after(5):
            while len(seen) < 5:
                await anyio.lowlevel.checkpoint()
        tg.cancel_scope.cancel()
    assert seen == ["now fast/1", "async slow/2", "now fast/3", "reply", "now fast/4"]
    assert conn.skipped_lines == 1


async def test_notify_many_writes_the_bytes_notify_writes() -> None:
    """The bulk path's faster encoder gives the same lines as ``json`` (and a value it
    refuses, a lone surrogate, is escaped the usual way); the tap sees each one."""
    values: list[Any] = [
        {"text": 'café 😀\n\t\u2028 "q" \\'},
        {"n": 10**30, "f": 0.1, "e": 1e16, "nan": float("nan"), "inf": float("-inf")},
        {"nested": [1, None, True, {"k": []}], "empty": {}},
        {"lone": "\ud800"},
    ]
    peer = RawPeer()
    conn = peer.connection()
    tapped: list[bytes] = []
    conn.tap = lambda direction, data: tapped.append(data)
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        await conn.notify_many("m", values)
        bulk = [await peer.read_line() for _ in values]
        for params in values:
            await conn.notify("m", params)
        single = [await peer.read_line() for _ in values]
        tg.cancel_scope.cancel()
    assert bulk == single
    assert tapped == [data + b"\n" for data in bulk + single]
    assert b"\\ud800" in bulk[-1]
