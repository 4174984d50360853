"""Hostile lines: huge ones are decoded off the event loop, bad UTF-8 does not drop a message."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from acp_tui.protocol import connection as connection_module
from acp_tui.protocol.connection import BIG_LINE, line_bytes
from tests.unit.rpc_helpers import RawPeer, dispose_peers, line, running


@pytest.fixture(autouse=True)
def _close_peer_streams() -> Any:
    yield
    dispose_peers()


async def test_invalid_utf8_inside_a_string_is_replaced_not_the_message_dropped() -> None:
    got: list[Any] = []
    done = anyio.Event()

    async def on_notification(method: str, params: Any) -> None:
        got.append(params)
        done.set()

    peer = RawPeer()
    conn = peer.connection(on_notification=on_notification)
    async with running(conn, peer):
        raw = line({"jsonrpc": "2.0", "method": "note", "params": {"text": "bad @@ bytes"}})
        await peer.send_raw(raw.replace(b"@@", b"\xff\xfe"))
        with anyio.fail_after(5):
            await done.wait()
    assert got == [{"text": "bad \ufffd\ufffd bytes"}]
    assert conn.skipped_lines == 0


async def test_a_big_line_is_decoded_in_a_thread_and_its_size_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connection_module, "BIG_LINE", 1000)
    decoded_in: list[threading.Thread] = []
    real, real_big = connection_module.decode_line, connection_module.decode_big_line

    def decode(data: bytes) -> Any:
        decoded_in.append(threading.current_thread())
        return real(data)

    def decode_big(data: bytes) -> Any:
        decoded_in.append(threading.current_thread())
        return real_big(data)

    monkeypatch.setattr(connection_module, "decode_line", decode)
    monkeypatch.setattr(connection_module, "decode_big_line", decode_big)
    sizes: list[int] = []
    done = anyio.Event()

    async def on_notification(method: str, params: Any) -> None:
        sizes.append(line_bytes.get())
        if method == "big":
            done.set()

    peer = RawPeer()
    conn = peer.connection(on_notification=on_notification)
    async with running(conn, peer):
        small = line({"jsonrpc": "2.0", "method": "small", "params": {}})
        big = line({"jsonrpc": "2.0", "method": "big", "params": {"pad": "x" * 5000}})
        await peer.send_raw(small + big)
        with anyio.fail_after(5):
            await done.wait()
    main = threading.current_thread()
    assert [t is main for t in decoded_in] == [True, False]
    assert sizes == [0, len(big) - 1]
    assert line_bytes.get() == 0


async def test_a_big_lines_messages_are_parsed_in_a_thread() -> None:
    from acp_tui.client.agent.inbox import off_loop_if_big

    def where(_: object) -> threading.Thread:
        return threading.current_thread()

    main = threading.current_thread()
    assert await off_loop_if_big(where, None) is main
    token = line_bytes.set(BIG_LINE + 1)
    try:
        assert await off_loop_if_big(where, None) is not main
    finally:
        line_bytes.reset(token)


def test_updates_encoded_off_the_loop_are_what_the_recorder_would_write() -> None:
    from acp_tui.client.agent import preencoded
    from acp_tui.protocol.updates import SessionNotification

    update = SessionNotification.from_wire(
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "plan",
                "entries": [{"content": "a", "priority": "high", "status": "pending"}],
            },
        }
    ).update
    expected = update.model_dump_json(by_alias=True, exclude_unset=True)
    preencoded.encode_all([update, "not a model"])
    assert preencoded.take(update) == expected
    assert preencoded.take(update) == expected  # encoded anew once taken
    preencoded.encode_all([update])
    preencoded.drop([update])
    assert preencoded._encoded == {}


def test_an_update_of_a_small_line_is_encoded_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its free fields (a notice's, ``_meta``) a value at a time cost twenty times more: most
    of what recording a flood of notices cost. One of a big line still goes in pieces."""
    import json

    from acp_tui.client.agent import preencoded
    from acp_tui.protocol.updates import SessionNotification

    update = SessionNotification.from_wire(
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Quota",
                "_meta": {"a": [1, {"b": "c"}]},
            },
        }
    ).update
    pieces: list[object] = []
    in_pieces = preencoded.encode_in_pieces

    def counted(model: Any) -> str:
        pieces.append(model)
        return in_pieces(model)

    monkeypatch.setattr(preencoded, "encode_in_pieces", counted)
    small = preencoded.take(update)
    assert pieces == []
    token = line_bytes.set(BIG_LINE + 1)
    try:
        big = preencoded.take(update)
    finally:
        line_bytes.reset(token)
    assert pieces == [update]
    assert json.loads(small) == json.loads(big)
    assert json.loads(small)["_meta"] == {"a": [1, {"b": "c"}]}
