"""Connection: newline-delimited JSON-RPC 2.0 over anyio byte streams."""

from __future__ import annotations

import json
import logging
import random
import socket
from collections.abc import Iterator
from typing import Any, cast

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import ByteReceiveStream, ByteSendStream
from pydantic import BaseModel

from acp_tui.protocol.connection import CANCEL_REQUEST, Connection
from acp_tui.protocol.jsonrpc import ConnectionClosed, ErrorCode, RpcError
from tests.unit.rpc_helpers import (
    RawPeer,
    connection_pair,
    dispose_peers,
    line,
    memory_pipe,
    running,
)

LOGGER = "acp_tui.protocol.connection"
BIG = 20 * 1024 * 1024


@pytest.fixture(autouse=True)
def _close_peer_streams() -> Iterator[None]:
    yield
    dispose_peers()


def req(msg_id: Any, method: str, params: Any = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notif(method: str, params: Any = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def result(msg_id: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": value}


class Point(BaseModel):
    x: int
    y: int


async def echo_handler(method: str, params: Any) -> Any:
    """echo returns its params; a few methods fail in the ways a real handler can."""
    if method == "echo":
        return params
    if method == "validate":
        return Point.model_validate(params).model_dump()
    if method == "crash":
        raise RuntimeError("disk on fire")
    if method == "crash-silently":
        raise KeyError
    if method == "rpc-error":
        raise RpcError(ErrorCode.RESOURCE_NOT_FOUND, "no such file", {"uri": "file:///x"})
    if method == "none":
        return None
    if method == "unserialisable":
        return {"value": object()}
    raise RpcError.method_not_found(method)


async def assert_still_works(conn: Connection, peer: RawPeer, msg_id: Any = "still-ok") -> None:
    """The connection still answers requests and still matches replies to its own requests."""
    await peer.send(req(msg_id, "echo", {"alive": True}))
    assert await peer.read_reply(msg_id) == result(msg_id, {"alive": True})
    async with anyio.create_task_group() as tg:
        got: list[Any] = []

        async def call() -> None:
            got.append(await conn.request("ping", {"n": 1}))

        tg.start_soon(call)
        sent = await peer.read()
        assert sent["method"] == "ping"
        await peer.send(result(sent["id"], "pong"))
    assert got == ["pong"]


# -- outgoing requests ----------------------------------------------------------------------


async def test_request_wire_format_and_result() -> None:
    peer = RawPeer()
    conn = peer.connection()
    got: list[Any] = []
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                got.append(await conn.request("session/new", {"cwd": "/tmp"}))
                got.append(await conn.request("no-params"))

            tg.start_soon(call)
            first = await peer.read()
            assert first == req(1, "session/new", {"cwd": "/tmp"})
            await peer.send(result(1, {"sessionId": "s1"}))
            second = await peer.read()
            assert second == {"jsonrpc": "2.0", "id": 2, "method": "no-params"}
            await peer.send(result(2, None))
    assert got == [{"sessionId": "s1"}, None]


async def test_notify_wire_format() -> None:
    peer = RawPeer()
    conn = peer.connection()
    with anyio.fail_after(5):
        async with running(conn, peer):
            await conn.notify("session/cancel", {"sessionId": "s1"})
            await conn.notify("bare")
            assert await peer.read() == notif("session/cancel", {"sessionId": "s1"})
            assert await peer.read() == notif("bare")


async def test_fifty_concurrent_requests_answered_out_of_order() -> None:
    peer = RawPeer()
    conn = peer.connection()
    results: dict[int, Any] = {}
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call(n: int) -> None:
                results[n] = await conn.request("square", {"n": n})

            for n in range(50):
                tg.start_soon(call, n)
            requests = [await peer.read() for _ in range(50)]
            assert len({r["id"] for r in requests}) == 50
            random.Random(1234).shuffle(requests)
            for r in requests:
                await peer.send(result(r["id"], {"square": r["params"]["n"] ** 2, "id": r["id"]}))
    assert {n: v["square"] for n, v in results.items()} == {n: n * n for n in range(50)}
    assert not conn._pending


async def test_error_reply_raises_rpc_error_with_code_message_and_data() -> None:
    peer = RawPeer()
    conn = peer.connection()
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                with pytest.raises(RpcError) as info:
                    await conn.request("authenticate")
                assert info.value.code == ErrorCode.AUTH_REQUIRED
                assert info.value.message == "log in first"
                assert info.value.data == {"methods": ["x"]}
                assert info.value.is_auth_required

            tg.start_soon(call)
            r = await peer.read()
            error = {"code": -32000, "message": "log in first", "data": {"methods": ["x"]}}
            await peer.send({"jsonrpc": "2.0", "id": r["id"], "error": error})


@pytest.mark.parametrize("error", ["boom", 42, [1], {"code": "x"}, {"message": 3}])
async def test_malformed_error_reply_still_raises_rpc_error(error: Any) -> None:
    peer = RawPeer()
    conn = peer.connection()
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                with pytest.raises(RpcError) as info:
                    await conn.request("m")
                assert isinstance(info.value.code, int)
                assert isinstance(info.value.message, str)

            tg.start_soon(call)
            r = await peer.read()
            await peer.send({"jsonrpc": "2.0", "id": r["id"], "error": error})


async def test_responses_for_unknown_ids_are_ignored(caplog: pytest.LogCaptureFixture) -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(result(999, "stray"))
            await peer.send(result("abc", "stray"))
            await peer.send(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}}
            )
            await assert_still_works(conn, peer)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# -- ids ------------------------------------------------------------------------------------


async def test_string_and_int_reply_ids_are_kept_apart() -> None:
    peer = RawPeer()
    conn = peer.connection()
    got: list[Any] = []
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                got.append(await conn.request("m"))

            tg.start_soon(call)
            r = await peer.read()
            assert r["id"] == 1
            await peer.send(result("1", "wrong: string id"))
            await peer.send(result(1, "right"))
    assert got == ["right"]


async def test_a_reply_to_no_request_is_warned_about_and_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The string "1" answers no request (ours are numbers): said at WARNING, with its id and
    its type, and the hook is told; the real reply still answers the request."""
    peer = RawPeer()
    conn = peer.connection()
    unmatched: list[Any] = []
    conn.on_unmatched_reply = unmatched.append
    got: list[Any] = []
    caplog.set_level(logging.INFO, LOGGER)
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                got.append(await conn.request("session/new"))

            tg.start_soon(call)
            r = await peer.read()
            await peer.send(result(str(r["id"]), "wrong: string id"))
            await peer.send(result(r["id"], "right"))
    assert got == ["right"]
    assert unmatched == ["1"]
    assert conn.unmatched_replies == 1
    warnings = [rec.getMessage() for rec in caplog.records if rec.levelno == logging.WARNING]
    assert warnings == [
        "peer sent a reply to no request, skipped: its id '1' (a string) matches no request "
        "waiting for an answer"
    ]


async def test_a_late_answer_to_a_cancelled_request_is_no_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The peer answers a request we cancelled (it must, with a result or -32800): expected."""
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    unmatched: list[Any] = []
    conn.on_unmatched_reply = unmatched.append
    caplog.set_level(logging.INFO, LOGGER)
    with anyio.fail_after(5):
        async with running(conn, peer):
            async with anyio.create_task_group() as tg:
                tg.start_soon(conn.request, "session/new", {})
                sent = await peer.read()
                tg.cancel_scope.cancel()
            assert (await peer.read())["method"] == CANCEL_REQUEST
            await peer.send({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -32800}})
            await peer.send(result(sent["id"], "a second answer"))
            await assert_still_works(conn, peer)
    infos = [rec.getMessage() for rec in caplog.records if rec.levelno == logging.INFO]
    assert f"peer answered request {sent['id']} (session/new) after it was cancelled" in infos
    # Only the second answer is one too many.
    warnings = [rec.getMessage() for rec in caplog.records if rec.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "reply to no request" in warnings[0]
    assert unmatched == [sent["id"]]


async def test_string_and_int_request_ids_are_answered_with_their_own_type() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(1, "echo", "int"))
            await peer.send(req("1", "echo", "str"))
            replies = [await peer.read(), await peer.read()]
    assert sorted((type(r["id"]).__name__, r["result"]) for r in replies) == [
        ("int", "int"),
        ("str", "str"),
    ]


async def test_cancel_request_distinguishes_string_and_int_ids() -> None:
    release = anyio.Event()
    started: list[Any] = []

    async def on_request(method: str, params: Any) -> Any:
        started.append(params)
        await release.wait()
        return params

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(1, "block", "int"))
            await peer.send(req("1", "block", "str"))
            while len(started) < 2:
                await anyio.lowlevel.checkpoint()
            await peer.send(notif(CANCEL_REQUEST, {"requestId": "1"}))
            cancelled = await peer.read()
            assert cancelled["id"] == "1"
            assert cancelled["error"]["code"] == ErrorCode.REQUEST_CANCELLED
            release.set()
            assert await peer.read() == result(1, "int")


# -- incoming requests -----------------------------------------------------------------------


async def test_incoming_requests_run_concurrently() -> None:
    second_ran = anyio.Event()

    async def on_request(method: str, params: Any) -> Any:
        if method == "first":
            await second_ran.wait()
        else:
            second_ran.set()
        return method

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(1, "first"))
            await peer.send(req(2, "second"))
            assert await peer.read() == result(2, "second")
            assert await peer.read() == result(1, "first")


async def test_none_result_is_sent_as_empty_object() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(3, "none"))
            assert await peer.read() == result(3, {})


@pytest.mark.parametrize(
    ("method", "params", "code", "message_part"),
    [
        ("no/such/method", None, ErrorCode.METHOD_NOT_FOUND, "no/such/method"),
        ("validate", {"x": 1, "y": "not a number"}, ErrorCode.INVALID_PARAMS, "y"),
        ("validate", None, ErrorCode.INVALID_PARAMS, "Invalid params"),
        ("crash", None, ErrorCode.INTERNAL_ERROR, "disk on fire"),
        ("crash-silently", None, ErrorCode.INTERNAL_ERROR, "KeyError"),
        ("rpc-error", None, ErrorCode.RESOURCE_NOT_FOUND, "no such file"),
        ("unserialisable", None, ErrorCode.INTERNAL_ERROR, "JSON"),
    ],
)
async def test_failing_handlers_are_answered_and_connection_keeps_working(
    method: str, params: Any, code: int, message_part: str
) -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(41, method, params))
            reply = await peer.read()
            assert reply["id"] == 41
            assert "result" not in reply
            assert reply["error"]["code"] == code
            assert message_part in reply["error"]["message"]
            await assert_still_works(conn, peer)


async def test_method_not_found_without_a_request_handler() -> None:
    peer = RawPeer()
    conn = peer.connection()
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(1, "fs/read_text_file", {"path": "/x"}))
            reply = await peer.read()
    assert reply["error"]["code"] == -32601
    assert reply["error"]["data"] == {"method": "fs/read_text_file"}


async def test_validation_error_message_is_readable() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(1, "validate", {"x": "a", "y": "b"}))
            reply = await peer.read()
    message = reply["error"]["message"]
    assert message.startswith("Invalid params: ")
    assert "x: " in message
    assert "y: " in message


async def test_reply_with_lone_surrogates_is_still_sent() -> None:
    """A lone surrogate arrives legally as a \\u escape; echoing it must not kill the connection."""
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req("\ud800", "echo", {"text": "a\udfffb"}))
            assert await peer.read() == result("\ud800", {"text": "a\udfffb"})
            await peer.send(req("\udc00", "no-such-\ud83d"))
            reply = await peer.read()
            assert reply["id"] == "\udc00"
            assert reply["error"]["code"] == -32601
            await assert_still_works(conn, peer)


# -- notifications --------------------------------------------------------------------------


async def test_notifications_are_handled_in_arrival_order() -> None:
    seen: list[int] = []

    async def on_notification(method: str, params: Any) -> None:
        # Awaiting varied amounts: a task-per-notification design would reorder these.
        for _ in range((params["n"] * 7) % 5):
            await anyio.lowlevel.checkpoint()
        seen.append(params["n"])

    peer = RawPeer()
    conn = peer.connection(on_notification=on_notification)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send_raw(b"".join(line(notif("u", {"n": n})) for n in range(50)))
            for n in range(50, 100):
                await peer.send(notif("u", {"n": n}))
    assert seen == list(range(100))


@pytest.mark.parametrize("one_chunk", [True, False])
async def test_reply_is_delivered_after_the_notifications_before_it(one_chunk: bool) -> None:
    handled: list[int] = []

    async def on_notification(method: str, params: Any) -> None:
        await anyio.lowlevel.checkpoint()
        await anyio.lowlevel.checkpoint()
        handled.append(params["n"])

    peer = RawPeer()
    conn = peer.connection(on_notification=on_notification)
    seen_at_return: list[int] = []
    count = 30
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                assert await conn.request("session/load") == {}
                seen_at_return.extend(handled)

            tg.start_soon(call)
            r = await peer.read()
            messages = [line(notif("session/update", {"n": n})) for n in range(count)]
            messages.append(line(result(r["id"], {})))
            if one_chunk:
                await peer.send_raw(b"".join(messages))
            else:
                for m in messages:
                    await peer.send_raw(m)
    assert seen_at_return == list(range(count))


async def test_failing_notification_handler_is_logged_and_later_ones_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    async def on_notification(method: str, params: Any) -> None:
        if method == "bad":
            raise ValueError("bad notification")
        seen.append(method)

    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler, on_notification=on_notification)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(notif("bad"))
            await peer.send(notif("good"))
            await assert_still_works(conn, peer)
    assert seen == ["good"]
    assert any(r.exc_info and "bad notification" in str(r.exc_info[1]) for r in caplog.records)


# -- $/cancel_request -----------------------------------------------------------------------


async def test_cancelling_a_request_sends_cancel_request() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            async with anyio.create_task_group() as tg:
                tg.start_soon(conn.request, "session/prompt", {"prompt": []})
                sent = await peer.read()
                tg.cancel_scope.cancel()
            assert await peer.read() == {
                "jsonrpc": "2.0",
                "method": "$/cancel_request",
                "params": {"requestId": sent["id"]},
            }
            assert not conn._pending
            # The peer's late reply for the cancelled id is ignored.
            await peer.send({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -32800}})
            await assert_still_works(conn, peer)


async def test_no_cancel_request_when_the_reply_already_arrived() -> None:
    peer = RawPeer()
    conn = peer.connection()
    with anyio.fail_after(5):
        async with running(conn, peer):
            got: list[Any] = []

            async def call() -> None:
                got.append(await conn.request("m"))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                sent = await peer.read()
                await peer.send(result(sent["id"], "done"))
            await conn.notify("marker")
            assert await peer.read() == notif("marker")
    assert got == ["done"]


async def test_incoming_cancel_request_cancels_the_handler_and_answers_32800() -> None:
    started = anyio.Event()
    cleaned_up: list[bool] = []

    async def on_request(method: str, params: Any) -> Any:
        if method != "slow":
            return await echo_handler(method, params)
        started.set()
        try:
            await anyio.sleep(3600)
        finally:
            cleaned_up.append(True)
        return "not reached"

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(7, "slow"))
            await started.wait()
            await peer.send(notif(CANCEL_REQUEST, {"requestId": 7}))
            reply = await peer.read()
            assert reply == {
                "jsonrpc": "2.0",
                "id": 7,
                "error": {"code": -32800, "message": "Request cancelled"},
            }
            assert cleaned_up == [True]
            assert not conn._incoming
            await assert_still_works(conn, peer)


async def test_a_cancel_right_behind_its_request_in_one_read_cancels_it() -> None:
    """A peer that writes a request and its cancel in one write (or is read late) hands both
    over in one read: the request's handler had not started when the cancel was handled, so
    the cancel found nothing to cancel, and a request that waits for it waited forever."""

    async def on_request(method: str, params: Any) -> Any:
        await anyio.sleep(3600)

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send_raw(
                line(req(7, "slow")) + line(notif(CANCEL_REQUEST, {"requestId": 7}))
            )
            reply = await peer.read()
    assert reply["id"] == 7
    assert reply["error"]["code"] == -32800


@pytest.mark.parametrize(
    "params",
    [None, "x", [7], {}, {"requestId": [7]}, {"requestId": {"a": 1}}, {"requestId": 8}],
)
async def test_malformed_or_unknown_cancel_request_is_ignored(
    params: Any, caplog: pytest.LogCaptureFixture
) -> None:
    release = anyio.Event()
    marker = anyio.Event()

    async def on_request(method: str, params: Any) -> Any:
        await release.wait()
        return "finished"

    async def on_notification(method: str, params: Any) -> None:
        marker.set()

    peer = RawPeer()
    conn = peer.connection(on_request=on_request, on_notification=on_notification)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(7, "slow"))
            while not conn._incoming:
                await anyio.lowlevel.checkpoint()
            await peer.send(notif(CANCEL_REQUEST, params))
            await peer.send(notif("marker"))
            await marker.wait()  # the cancel request was processed before this
            release.set()
            assert await peer.read() == result(7, "finished")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# -- framing ----------------------------------------------------------------------------------


async def test_twenty_megabyte_lines_in_both_directions_on_raw_streams() -> None:
    big = "x" * BIG + "é€😀"

    async def on_request(method: str, params: Any) -> Any:
        return {"length": len(params["text"])}

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    got: list[Any] = []
    with anyio.fail_after(20):
        async with running(conn, peer):
            await peer.send_raw(line(req(1, "measure", {"text": big})))
            assert await peer.read() == result(1, {"length": len(big)})
            async with anyio.create_task_group() as tg:

                async def call() -> None:
                    got.append(await conn.request("upload", {"text": big}))

                tg.start_soon(call)
                sent = await peer.read()
                assert sent["params"]["text"] == big
                await peer.send(result(sent["id"], {"text": big}))
    assert got == [{"text": big}]


async def test_twenty_megabyte_messages_over_a_socketpair() -> None:
    """Both ends are Connections over a real socket: the line arrives in many partial reads."""
    big = "y" * BIG + "ü"
    left, right = socket.socketpair()
    a_stream = await anyio.abc.SocketStream.from_socket(left)
    b_stream = await anyio.abc.SocketStream.from_socket(right)
    b = Connection(b_stream, b_stream, on_request=echo_handler, name="b")
    a = Connection(a_stream, a_stream, name="a")
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(a.run)
            tg.start_soon(b.run)
            assert await a.request("echo", {"text": big}) == {"text": big}
            # Concurrent large requests are never interleaved on the wire.
            results: dict[int, Any] = {}

            async def call(n: int) -> None:
                results[n] = await a.request("echo", {"n": n, "pad": str(n) * 300_000})

            async with anyio.create_task_group() as calls:
                for n in range(8):
                    calls.start_soon(call, n)
            assert {n: v["n"] for n, v in results.items()} == {n: n for n in range(8)}
            await a_stream.aclose()
            await b.closed.wait()
            await a.closed.wait()
            await b_stream.aclose()


async def test_message_split_into_tiny_chunks() -> None:
    seen: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(params)

    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler, on_notification=on_notification)
    data = (
        json.dumps(notif("n", {"text": "héllo € 😀"}), ensure_ascii=False).encode()
        + b"\n"
        + json.dumps(req(1, "echo", {"text": "wörld 😀"}), ensure_ascii=False).encode()
        + b"\n"
    )
    rng = random.Random(7)
    with anyio.fail_after(5):
        async with running(conn, peer):
            pos = 0
            while pos < len(data):
                size = rng.randint(1, 3)
                await peer.send_raw(data[pos : pos + size])
                pos += size
            assert await peer.read() == result(1, {"text": "wörld 😀"})
    assert seen == [{"text": "héllo € 😀"}]


async def test_many_messages_in_one_chunk() -> None:
    seen: list[int] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(params)

    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler, on_notification=on_notification)
    chunk = b"".join(line(notif("n", n)) for n in range(200))
    chunk += b"".join(line(req(n, "echo", n)) for n in range(200))
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send_raw(chunk)
            replies = [await peer.read() for _ in range(200)]
    assert seen == list(range(200))
    assert sorted(r["result"] for r in replies) == list(range(200))


async def test_crlf_blank_lines_and_whitespace_are_tolerated() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send_raw(b"\n\r\n   \n" + line(req(1, "echo", "a")).replace(b"\n", b"\r\n"))
            await peer.send_raw(b"  " + line(req(2, "echo", "b")))
            assert await peer.read() == result(1, "a")
            assert await peer.read() == result(2, "b")
    assert conn.skipped_lines == 0


async def test_last_line_without_newline_is_handled_at_end_of_stream() -> None:
    seen: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(params)

    peer = RawPeer()
    conn = peer.connection(on_notification=on_notification)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send_raw(line(notif("n", 1)) + line(notif("n", 2))[:-1])
    assert seen == [1, 2]


# -- junk -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "junk",
    [b"this is not json", b'{"jsonrpc": "2.0", "id": 1', b"\xff\xfe\x00garbage", b"[" * 100_000],
    ids=["text", "truncated-json", "invalid-utf8", "deep-nesting"],
)
async def test_non_json_line_is_logged_and_skipped(
    junk: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler, name="agent")
    with caplog.at_level(logging.WARNING, logger=LOGGER), anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send_raw(junk + b"\n")
            await assert_still_works(conn, peer)
    assert conn.skipped_lines == 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("agent sent a line that is not JSON" in w for w in warnings)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    ("message", "reply_id"),
    [
        ({"jsonrpc": "2.0", "id": 5, "method": 42}, 5),
        ({"jsonrpc": "2.0", "id": "five", "method": ["x"]}, "five"),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "echo"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "echo"}, None),
        ({"jsonrpc": "2.0", "id": [1], "method": "echo"}, None),
    ],
)
async def test_invalid_request_with_id_gets_32600(message: Any, reply_id: Any) -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(message)
            reply = await peer.read()
            assert reply["id"] == reply_id
            assert type(reply["id"]) is type(reply_id)
            assert reply["error"]["code"] == ErrorCode.INVALID_REQUEST
            await assert_still_works(conn, peer)


@pytest.mark.parametrize(
    "message",
    # (An empty batch is not among them: JSON-RPC 2.0 answers it with one -32600.)
    [42, "text", None, True, {}, {"foo": 1}, {"jsonrpc": "2.0", "method": 7}, [[1, 2]]],
)
async def test_invalid_message_without_id_is_skipped_silently(message: Any) -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(message)
            await peer.send(req("next", "echo", 1))
            # Nothing was sent for the junk: the first output is the reply to the next request.
            assert await peer.read() == result("next", 1)
    assert conn.skipped_lines >= 1


# -- batches ----------------------------------------------------------------------------------


async def test_batch_is_dispatched_item_by_item() -> None:
    seen: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(params)

    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler, on_notification=on_notification)
    got: list[Any] = []
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                got.append(await conn.request("m"))
                got.append(list(seen))

            tg.start_soon(call)
            ours = await peer.read()
            batch = [
                notif("n", "first"),
                req(1, "echo", "a"),
                42,
                req("2", "echo", "b"),
                result(ours["id"], "from batch"),
                notif("n", "after reply"),
            ]
            await peer.send(batch)
            answered = await peer.read()  # one array for the whole batch (JSON-RPC 2.0 §6)
            assert isinstance(answered, list)
            replies = {r["id"]: r["result"] for r in answered}
            assert replies == {1: "a", "2": "b"}  # the 42 names no request: not answered
    # The reply came after "first" in the batch, so "first" was handled before request() returned.
    assert got[0] == "from batch"
    assert got[1][0] == "first"
    assert seen == ["first", "after reply"]


async def test_an_empty_batch_gets_one_invalid_request_error() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send([])
            reply = await peer.read()
    assert isinstance(reply, dict)  # one error, not an array
    assert reply["id"] is None
    assert reply["error"]["code"] == ErrorCode.INVALID_REQUEST


async def test_a_batch_is_answered_once_all_its_requests_are() -> None:
    release = anyio.Event()

    async def handler(method: str, params: Any) -> Any:
        if method == "slow":
            await release.wait()
        return await echo_handler("echo", params) if method in ("slow", "echo") else None

    peer = RawPeer()
    conn = peer.connection(on_request=handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send([req(1, "slow", "late"), req(2, "echo", "early")])
            await peer.send(req(3, "echo", "alone"))
            # The lone request is answered at once; the batch waits for its slow request.
            assert await peer.read() == result(3, "alone")
            release.set()
            answered = await peer.read()
    assert sorted(answered, key=lambda r: r["id"]) == [result(1, "late"), result(2, "early")]


async def test_a_batch_of_notifications_and_replies_gets_no_answer() -> None:
    seen: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        seen.append(params)

    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler, on_notification=on_notification)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send([notif("n", 1), notif("n", 2), result(99, "unknown")])
            await peer.send(req(7, "echo", "after"))
            assert await peer.read() == result(7, "after")  # nothing came before it
    assert seen == [1, 2]


async def test_an_invalid_request_in_a_batch_is_answered_in_the_array() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send([{"jsonrpc": "2.0", "id": 5, "method": 42}, req(6, "echo", "ok")])
            answered = await peer.read()
    by_id = {r["id"]: r for r in answered}
    assert by_id[5]["error"]["code"] == ErrorCode.INVALID_REQUEST
    assert by_id[6] == result(6, "ok")


async def test_a_batch_answer_that_is_not_json_is_an_error_in_the_array() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send([req(1, "unserialisable"), req(2, "echo", "fine")])
            answered = await peer.read()
    by_id = {r["id"]: r for r in answered}
    assert by_id[1]["error"]["code"] == ErrorCode.INTERNAL_ERROR
    assert by_id[2] == result(2, "fine")


# -- end of stream and broken pipes -----------------------------------------------------------


async def test_end_of_stream_fails_pending_requests_with_connection_closed() -> None:
    peer = RawPeer()
    conn = peer.connection(name="agent")
    failures: list[str] = []
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(conn.run)

            async def call(n: int) -> None:
                with pytest.raises(ConnectionClosed) as info:
                    await conn.request("session/prompt", {"n": n})
                failures.append(str(info.value))

            for n in range(3):
                tg.start_soon(call, n)
            for _ in range(3):
                await peer.read()
            await peer.close()
    assert failures == ["agent exited"] * 3
    assert conn.is_closed
    assert conn.closed.is_set()


async def test_request_and_notify_after_close_raise_immediately() -> None:
    peer = RawPeer()
    conn = peer.connection(name="agent")
    with anyio.fail_after(5):
        async with running(conn, peer):
            pass
        with anyio.fail_after(0.5):
            with pytest.raises(ConnectionClosed, match="agent exited"):
                await conn.request("m")
            with pytest.raises(ConnectionClosed, match="agent exited"):
                await conn.notify("n")
    assert peer.pending_output() == []


async def test_explicit_close_fails_pending_with_the_reason() -> None:
    peer = RawPeer()
    conn = peer.connection()
    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:

            async def call() -> None:
                with pytest.raises(ConnectionClosed, match="user quit"):
                    await conn.request("m")

            tg.start_soon(call)
            await peer.read()
            conn.close("user quit")
        with pytest.raises(ConnectionClosed, match="user quit"):
            await conn.request("m")


async def test_end_of_stream_while_a_handler_runs_returns_normally() -> None:
    started = anyio.Event()
    cancelled: list[bool] = []

    async def on_request(method: str, params: Any) -> Any:
        started.set()
        try:
            await anyio.sleep(3600)
        except anyio.get_cancelled_exc_class():
            cancelled.append(True)
            raise

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(1, "slow"))
            await started.wait()
    assert cancelled == [True]
    assert peer.pending_output() == []


async def test_broken_send_stream_raises_connection_closed() -> None:
    peer = RawPeer()
    conn = peer.connection(name="agent")
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.reader.aclose()  # the agent stopped reading: sends hit a broken pipe
            with pytest.raises(ConnectionClosed, match="agent exited"):
                await conn.request("m")
            with pytest.raises(ConnectionClosed, match="agent exited"):
                await conn.notify("n")
            assert not conn._pending


class _FailingStream:
    """A byte stream whose every operation fails with ``exc``."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    async def send(self, data: bytes) -> None:
        raise self.exc

    async def receive(self, max_bytes: int = 65536) -> bytes:
        raise self.exc

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize(
    "exc",
    [BrokenPipeError(32, "Broken pipe"), anyio.ClosedResourceError(), anyio.BrokenResourceError()],
)
async def test_send_failures_become_connection_closed(exc: BaseException) -> None:
    send, receive = memory_pipe()
    conn = Connection(cast(ByteReceiveStream, receive), cast(ByteSendStream, _FailingStream(exc)))
    with pytest.raises(ConnectionClosed) as info:
        await conn.request("m")
    assert info.value.__cause__ is exc
    with pytest.raises(ConnectionClosed):
        await conn.notify("n")
    send.close()
    receive.close()


@pytest.mark.parametrize("exc", [ConnectionResetError(104, "reset"), anyio.BrokenResourceError()])
async def test_receive_failure_ends_the_read_loop_like_end_of_stream(exc: BaseException) -> None:
    out_send, out_receive = memory_pipe()
    conn = Connection(
        cast(ByteReceiveStream, _FailingStream(exc)), cast(ByteSendStream, out_send), name="agent"
    )
    with anyio.fail_after(5):
        await conn.run()
    assert conn.is_closed
    out_send.close()
    out_receive.close()
    with pytest.raises(ConnectionClosed, match="agent exited"):
        await conn.request("m")


# -- two connections ----------------------------------------------------------------------------


async def test_two_connections_talk_both_ways() -> None:
    notes: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        notes.append((method, params))

    with anyio.fail_after(5):
        async with connection_pair(
            a_on_request=echo_handler,
            b_on_request=echo_handler,
            b_on_notification=on_notification,
        ) as (a, b):
            assert await a.request("echo", [1, 2]) == [1, 2]
            assert await b.request("echo", {"k": "v"}) == {"k": "v"}
            with pytest.raises(RpcError) as info:
                await a.request("crash")
            assert "disk on fire" in info.value.message
            await a.notify("hello", {"x": 1})
            assert await a.request("echo", "sync") == "sync"
    assert notes == [("hello", {"x": 1})]


async def test_notify_many_sends_separate_notifications_in_order_in_few_writes() -> None:
    seen: list[int] = []
    writes: list[bytes] = []

    async def on_notification(method: str, params: Any) -> None:
        assert method == "session/update"
        seen.append(params["n"])

    with anyio.fail_after(5):
        async with connection_pair(b_on_notification=on_notification) as (a, _b):
            original = a._send_stream.send

            async def counting_send(data: bytes) -> None:
                writes.append(data)
                await original(data)

            a._send_stream.send = counting_send  # type: ignore[method-assign]
            await a.notify_many("session/update", ({"n": n} for n in range(1000)), batch=256)
            while len(seen) < 1000:
                await anyio.lowlevel.checkpoint()
    assert seen == list(range(1000))
    assert len(writes) == 4  # 256 + 256 + 256 + 232 lines
    assert all(chunk.count(b"\n") <= 256 for chunk in writes)


# -- writes of one step go out together ------------------------------------------------------


def counted_writes(conn: Connection) -> list[bytes]:
    """Every write ``conn`` makes from now on, as it made it."""
    writes: list[bytes] = []
    original = conn._send_stream.send

    async def counting_send(data: bytes) -> None:
        writes.append(data)
        await original(data)

    conn._send_stream.send = counting_send  # type: ignore[method-assign]
    return writes


async def test_requests_answered_in_one_step_are_answered_in_few_writes_each_by_its_id() -> None:
    """A flood of requests answered at once (a client refusing them) cost a write and a wait
    for the pipe per answer: the answers of one step of the event loop go out in one write."""
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    writes = counted_writes(conn)
    count = 500
    with anyio.fail_after(10):
        async with running(conn, peer):
            await peer.send_raw(b"".join(line(req(i, "echo", [i])) for i in range(count)))
            replies = [await peer.read() for _ in range(count)]
    assert sorted(reply["id"] for reply in replies) == list(range(count))
    assert all(reply["result"] == [reply["id"]] for reply in replies)
    assert sum(data.count(b"\n") for data in writes) == count
    assert len(writes) <= count // 10


async def test_lines_written_in_one_step_keep_their_order_and_each_writer_waits_for_its_own() -> (
    None
):
    peer = RawPeer()
    conn = peer.connection()
    writes = counted_writes(conn)
    done: list[int] = []

    async def say(n: int) -> None:
        await conn.notify("n", {"n": n})
        done.append(n)

    with anyio.fail_after(5):
        async with running(conn, peer), anyio.create_task_group() as tg:
            for n in range(20):
                tg.start_soon(say, n)
    assert [m["params"]["n"] for m in peer.pending_output()] == list(range(20))
    assert sorted(done) == list(range(20))
    assert len(writes) < 20


async def test_a_writer_cancelled_while_its_line_waits_leaves_it_sent() -> None:
    peer = RawPeer()
    conn = peer.connection(on_request=echo_handler)
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(0, "echo", "reading"))
            await peer.read_reply(0)
            with anyio.CancelScope() as scope:
                scope.cancel()  # cancelled at its first wait: its line is queued already
                await conn.notify("first")
            await conn.notify("second")
    assert [m["method"] for m in peer.pending_output()] == ["first", "second"]


async def test_lines_waiting_when_the_stream_breaks_fail_their_writers() -> None:
    peer = RawPeer()
    conn = peer.connection(name="agent")
    failed: list[str] = []

    async def say(n: int) -> None:
        try:
            await conn.notify("n", {"n": n})
        except ConnectionClosed as exc:
            failed.append(str(exc))

    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.reader.aclose()
            async with anyio.create_task_group() as tg:
                for n in range(5):
                    tg.start_soon(say, n)
    assert failed == ["agent exited"] * 5


# -- a flood leaves the app its turns ---------------------------------------------------------


async def test_a_flood_of_requests_read_at_once_lets_the_app_run_between_a_few() -> None:
    """A pipe hands over a thousand small requests at once, and each handler runs in the next
    step of the event loop: the read loop started them all in one step, a step as long as all
    their handlers, and keys and frames waited for it."""
    peer = RawPeer()
    started: list[int] = []
    seen_by_the_app: list[int] = []

    async def handler(method: str, params: Any) -> Any:
        started.append(params)
        return params

    async def the_app() -> None:
        while len(started) < 200:
            seen_by_the_app.append(len(started))
            await anyio.lowlevel.checkpoint()

    conn = peer.connection(on_request=handler)
    with anyio.fail_after(10):
        async with running(conn, peer), anyio.create_task_group() as tg:
            await peer.send(req(0, "echo", -1))
            await peer.read_reply(0)
            tg.start_soon(the_app)
            await peer.send_raw(b"".join(line(req(i, "echo", i)) for i in range(1, 201)))
            for _ in range(200):
                await peer.read()
    assert len({n for n in seen_by_the_app if 1 < n < 200}) >= 5


async def test_a_flood_of_notifications_is_read_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """However fast each notification is handled, the read loop lets the app run once its
    slice of time is spent (here: none, so after each line); what it holds back to apply
    together takes effect at the end of the block, as before."""
    monkeypatch.setattr("acp_tui.protocol.connection.READ_SLICE", 0.0)
    peer = RawPeer()
    handled: list[int] = []
    drained_at: list[int] = []
    seen_by_the_app: list[int] = []

    def now(method: str, params: Any) -> bool:
        handled.append(params)
        return True

    async def the_app() -> None:
        while len(handled) < 100:
            seen_by_the_app.append(len(handled))
            await anyio.lowlevel.checkpoint()

    conn = peer.connection()
    conn.on_notification_now = now
    conn.on_drain = lambda: drained_at.append(len(handled))
    with anyio.fail_after(10):
        async with running(conn, peer), anyio.create_task_group() as tg:
            tg.start_soon(the_app)
            await peer.send_raw(b"".join(line(notif("n", i)) for i in range(100)))
    assert handled == list(range(100))
    assert len({n for n in seen_by_the_app if 0 < n < 100}) >= 50
    assert set(drained_at) == {100}  # not once per slice


async def test_a_request_answered_at_once_needs_no_handler_and_keeps_its_id() -> None:
    """``on_request_now`` answers in the read loop's step (a refusal known before anything
    is asked); what it leaves (``NOT_NOW``), or fails on, is served as usual."""
    from acp_tui.protocol.connection import NOT_NOW

    served: list[Any] = []

    async def on_request(method: str, params: Any) -> Any:
        served.append(params)
        return {"served": params}

    def now(method: str, params: Any) -> Any:
        if params == "later":
            return NOT_NOW
        if params == "bad":
            raise RpcError.invalid_params("bad params")
        if params == "invalid":
            return Point.model_validate({"x": "not a number"})
        if params == "oops":
            raise RuntimeError("a bug")
        return {"now": params}

    peer = RawPeer()
    conn = peer.connection(on_request=on_request)
    conn.on_request_now = now
    with anyio.fail_after(5):
        async with running(conn, peer):
            await peer.send(req(0, "echo", "reading"))
            await peer.read_reply(0)
            served.clear()
            await peer.send_raw(
                b"".join(
                    line(req(n, "m", params))
                    for n, params in enumerate(["a", "later", "bad", "invalid", "oops", "b"], 1)
                )
            )
            replies = {reply["id"]: reply for reply in [await peer.read() for _ in range(6)]}
    assert replies[1]["result"] == {"now": "a"}
    assert replies[2]["result"] == {"served": "later"}
    assert replies[3]["error"]["code"] == ErrorCode.INVALID_PARAMS
    assert replies[4]["error"]["code"] == ErrorCode.INVALID_PARAMS
    assert replies[5]["result"] == {"served": "oops"}
    assert replies[6]["result"] == {"now": "b"}
    assert served == ["later", "oops"]
