"""Provides anyio byte streams over the process's stdin and stdout file descriptors.

Pipes, terminals and sockets are polled with ``anyio.wait_readable``/``wait_writable`` (no
thread per message, which keeps ``stream 10000`` fast); regular files and Windows fall back to a
worker thread. A write is never abandoned half-way, so cancellation can't tear a JSON-RPC line.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from abc import abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, Protocol

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

READ_SIZE = 65536

ExitNow = Callable[[int, str], Awaitable[NoReturn]]
"""Ends the agent at once with an exit code, after saying ``why`` on stderr (a crash)."""


async def exit_process(code: int, why: str) -> NoReturn:
    """End the agent's process now, as a crashing agent does: no reply, no cleanup."""
    sys.stderr.write(f"{why}\n")
    sys.stderr.flush()
    os._exit(code)


def _std_fd(stream: Any, default: int) -> int:
    """The real descriptor of a standard stream, even after ``sys.stdout`` was redirected."""
    try:
        return int(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return default


def _pollable(fd: int) -> bool:
    if os.name == "nt":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def _regular_file(fd: int) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Output(Protocol):
    """The raw output stream: whole writes, plus an event once a marker has been written."""

    async def send(self, item: bytes) -> None: ...

    def after(self, marker: bytes) -> anyio.Event: ...

    @property
    def writes(self) -> int: ...

    @property
    def writing(self) -> bool: ...


class StdinStream(ByteReceiveStream):
    """Reads raw bytes from a file descriptor (stdin by default).

    ``on_eof`` runs when the end is reached, before the reader learns of it: the agent uses it to
    finish requests already received (so ``printf ... | agent`` gets every answer).
    """

    def __init__(
        self, fd: int | None = None, *, on_eof: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        self._fd = _std_fd(sys.__stdin__, 0) if fd is None else fd
        self._poll = _pollable(self._fd)
        self._eof = False
        self._on_eof = on_eof

    async def receive(self, max_bytes: int = READ_SIZE) -> bytes:
        if self._eof:
            raise anyio.EndOfStream
        if self._poll:
            await anyio.wait_readable(self._fd)
            data = os.read(self._fd, max_bytes)
        else:
            data = await anyio.to_thread.run_sync(
                os.read, self._fd, max_bytes, abandon_on_cancel=True
            )
        if not data:
            self._eof = True
            if self._on_eof is not None:
                await self._on_eof()
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        self._eof = True


class WatchedOutput(ByteSendStream):
    """The agent's output: whole byte strings written one at a time, counted.

    ``after(marker)`` returns an event set once a write containing ``marker`` has gone out, which
    lets the agent send a notification strictly after the reply it belongs behind. Subclasses
    say where the bytes go (``_write``).
    """

    def __init__(self) -> None:
        self._lock = anyio.Lock()
        self._watchers: list[tuple[bytes, anyio.Event]] = []
        self._closed = False
        self.writes = 0
        self.writing = False

    def after(self, marker: bytes) -> anyio.Event:
        event = anyio.Event()
        self._watchers.append((marker, event))
        return event

    async def send(self, item: bytes) -> None:
        async with self._lock:
            if self._closed:
                raise anyio.ClosedResourceError
            self.writes += 1
            self.writing = True
            try:
                await self._write(item)
            finally:
                self.writing = False
        if self._watchers:
            for entry in [w for w in self._watchers if w[0] in item]:
                self._watchers.remove(entry)
                entry[1].set()

    @abstractmethod
    async def _write(self, data: bytes) -> None:
        """Write ``data`` whole (each output says where)."""

    async def aclose(self) -> None:
        self._closed = True


class StdoutStream(WatchedOutput):
    """Writes whole byte strings to a file descriptor (stdout by default), one at a time."""

    def __init__(self, fd: int | None = None) -> None:
        super().__init__()
        self._fd = _std_fd(sys.__stdout__, 1) if fd is None else fd
        self._poll = _pollable(self._fd)
        self._regular = _regular_file(self._fd)

    async def _write(self, data: bytes) -> None:
        if self._regular:
            _write_all(self._fd, data)  # a regular file never blocks for long
            return
        if self._poll and len(data) <= select.PIPE_BUF:
            # Up to PIPE_BUF bytes go out in one piece once the pipe reports space for them.
            _, ready, _ = select.select([], [self._fd], [], 0)
            if not ready:
                await anyio.wait_writable(self._fd)
            _write_all(self._fd, data)
            return
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_write_all, self._fd, data)
