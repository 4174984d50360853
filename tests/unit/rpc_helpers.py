"""Test helpers for the JSON-RPC Connection: a raw byte-level peer and running connections."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from acp_tui.protocol.connection import Connection


def line(obj: Any) -> bytes:
    """One wire line (ASCII-escaped, so lone surrogates survive)."""
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def memory_pipe() -> tuple[MemoryObjectSendStream[bytes], MemoryObjectReceiveStream[bytes]]:
    return anyio.create_memory_object_stream[bytes](math.inf)


_live_peers: list[RawPeer] = []


def dispose_peers() -> None:
    """Close the streams of every RawPeer made so far (call at test teardown)."""
    while _live_peers:
        _live_peers.pop().dispose()


class RawPeer:
    """The far end of a Connection at the byte level: writes raw bytes, reads the lines it got."""

    def __init__(self) -> None:
        _live_peers.append(self)
        self.writer, self.conn_receive = memory_pipe()
        self.conn_send, self.reader = memory_pipe()
        self._buffer = bytearray()

    def connection(self, **kwargs: Any) -> Connection:
        return Connection(
            cast(ByteReceiveStream, self.conn_receive),
            cast(ByteSendStream, self.conn_send),
            **kwargs,
        )

    async def send_raw(self, data: bytes) -> None:
        await self.writer.send(data)

    async def send(self, obj: Any) -> None:
        await self.writer.send(line(obj))

    async def read_line(self) -> bytes:
        while (newline := self._buffer.find(b"\n")) < 0:
            self._buffer += await self.reader.receive()
        data = bytes(self._buffer[:newline])
        del self._buffer[: newline + 1]
        return data

    async def read(self) -> Any:
        """The next message the connection sent, decoded."""
        return json.loads(await self.read_line())

    async def read_reply(self, msg_id: Any) -> dict[str, Any]:
        """Skip messages until the reply for ``msg_id`` (type-exact) arrives."""
        while True:
            msg = await self.read()
            if (
                isinstance(msg, dict)
                and ("result" in msg or "error" in msg)
                and type(msg.get("id")) is type(msg_id)
                and msg.get("id") == msg_id
            ):
                return msg

    def pending_output(self) -> list[Any]:
        """Every message already written by the connection, without waiting."""
        out = []
        while True:
            try:
                self._buffer += self.reader.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                break
        while (newline := self._buffer.find(b"\n")) >= 0:
            out.append(json.loads(bytes(self._buffer[:newline])))
            del self._buffer[: newline + 1]
        return out

    async def close(self) -> None:
        """End of stream for the connection."""
        await self.writer.aclose()

    def dispose(self) -> None:
        """Close all four stream ends (memory streams warn when collected unclosed)."""
        for stream in (self.writer, self.conn_receive, self.conn_send, self.reader):
            stream.close()


@asynccontextmanager
async def running(conn: Connection, peer: RawPeer | None = None) -> AsyncIterator[Connection]:
    """Run ``conn`` for the block; on exit end its input (if ``peer``) and wait for run()."""
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        yield conn
        if peer is not None:
            await peer.close()
            with anyio.fail_after(5):
                await conn.closed.wait()
        else:
            tg.cancel_scope.cancel()


@asynccontextmanager
async def connection_pair(**kwargs: Any) -> AsyncIterator[tuple[Connection, Connection]]:
    """Two running Connections wired to each other; kwargs prefixed ``a_`` / ``b_`` go to each."""
    a_out, b_in = memory_pipe()
    b_out, a_in = memory_pipe()
    a_kwargs = {k[2:]: v for k, v in kwargs.items() if k.startswith("a_")}
    b_kwargs = {k[2:]: v for k, v in kwargs.items() if k.startswith("b_")}
    streams = (a_out, b_in, b_out, a_in)
    a = Connection(cast(ByteReceiveStream, a_in), cast(ByteSendStream, a_out), name="a", **a_kwargs)
    b = Connection(cast(ByteReceiveStream, b_in), cast(ByteSendStream, b_out), name="b", **b_kwargs)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(a.run)
            tg.start_soon(b.run)
            yield a, b
            await a_out.aclose()
            await b_out.aclose()
            with anyio.fail_after(5):
                await a.closed.wait()
                await b.closed.wait()
    finally:
        for stream in streams:
            stream.close()
