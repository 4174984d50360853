"""Provides the demo agent run inside the caller's event loop, on in-memory pipes.

``InProcessAgent(argv)`` takes the command line ``python -m acp_tui.demo_agent`` takes (the same
parser: ``--require-auth``, ``--fault X``, ``--protocol 2``...) and serves one client through the
real `Connection`, so a client reading its ``stdout`` gets the bytes a process would write.
Tests use it to skip starting a Python process per agent (see ``tests/in_process.py``).

What only a process has is modelled plainly, never faked: the agent ends when its input ends
(exit code 0) or when it crashes on purpose (the ``crash`` keyword, ``--fault login-exits``:
the code it asks for, its words in ``stderr``, nothing written after). Its ``stderr`` has the
lines the process would print: its log records of level WARNING and above, formatted alike
(``-v`` changes nothing here), and its last words. It has no pid and takes no signals; ``kill``
cancels it (exit code -9, as SIGKILL reports).
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import NoReturn

import anyio
import anyio.lowlevel
from anyio.abc import ByteReceiveStream, ByteSendStream

from acp_tui.demo_agent.command_line import agent_options, build_parser, data_dir_of
from acp_tui.demo_agent.options import AgentOptions
from acp_tui.demo_agent.serving import build_agent, run_agent
from acp_tui.demo_agent.stdio import READ_SIZE, WatchedOutput

PIPE_CAPACITY = 65536
"""What a Linux pipe holds before its writer has to wait."""

LOG_FORMAT = "demo-agent %(levelname)s %(name)s: %(message)s"
"""How the process writes its log records to stderr (see ``acp_tui.demo_agent.__main__``)."""

_serving: ContextVar[InProcessAgent | None] = ContextVar("serving", default=None)
"""The in-process agent whose task (or a task it started) runs, if any."""


class AgentStderr(logging.Handler):
    """Adds each record logged by an in-process agent's tasks to that agent's ``stderr``, as
    its process would print it (the records of other code are left alone)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter(LOG_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        agent = _serving.get()
        if agent is not None:
            agent.stderr.extend(self.format(record).splitlines())


_STDERR_HANDLER = AgentStderr()


class BytePipe:
    """A one-way byte channel in memory that behaves like a pipe.

    A write waits while the pipe is full (so a slow reader slows the writer down, as with a
    process); a read returns what is there, up to ``max_bytes``, so long lines arrive in pieces;
    the reader sees the end once the writer closed and everything was read; a write fails once
    the reader closed. Every call is a checkpoint, so two peers in one event loop take turns.
    """

    def __init__(self, capacity: int = PIPE_CAPACITY) -> None:
        self.capacity = capacity
        self._buffer = bytearray()
        self._writer_closed = False
        self._reader_closed = False
        self._changed = anyio.Event()
        self._write_lock = anyio.Lock()
        self.reader = PipeReader(self)
        self.writer = PipeWriter(self)

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def _read(self, max_bytes: int) -> bytes:
        await anyio.lowlevel.checkpoint()
        while not self._buffer:
            if self._reader_closed:
                raise anyio.ClosedResourceError
            if self._writer_closed:
                raise anyio.EndOfStream
            await self._changed.wait()
        data = bytes(self._buffer[:max_bytes])
        del self._buffer[:max_bytes]
        self._wake()
        return data

    async def _write(self, data: bytes) -> None:
        async with self._write_lock:
            # Like a write to a pipe that is never abandoned half-way: a torn JSON-RPC line
            # would corrupt the stream for good.
            with anyio.CancelScope(shield=True):
                view = memoryview(data)
                while view:
                    if self._writer_closed:
                        raise anyio.ClosedResourceError
                    if self._reader_closed:
                        raise anyio.BrokenResourceError
                    room = self.capacity - len(self._buffer)
                    if room <= 0:
                        await self._changed.wait()
                        continue
                    self._buffer += view[:room]
                    view = view[room:]
                    self._wake()
        await anyio.lowlevel.checkpoint()

    def close_writer(self) -> None:
        """No more writes: the reader gets what is buffered, then the end."""
        self._writer_closed = True
        self._wake()

    def close_reader(self) -> None:
        """No more reads: what is buffered is dropped and writes fail (a broken pipe)."""
        self._reader_closed = True
        self._buffer.clear()
        self._wake()


class PipeReader(ByteReceiveStream):
    """The reading end of a `BytePipe`."""

    def __init__(self, pipe: BytePipe) -> None:
        self.pipe = pipe

    async def receive(self, max_bytes: int = READ_SIZE) -> bytes:
        return await self.pipe._read(max_bytes)

    async def aclose(self) -> None:
        self.pipe.close_reader()


class PipeWriter(ByteSendStream):
    """The writing end of a `BytePipe`."""

    def __init__(self, pipe: BytePipe) -> None:
        self.pipe = pipe

    async def send(self, item: bytes) -> None:
        await self.pipe._write(item)

    async def aclose(self) -> None:
        self.pipe.close_writer()


class PipeOutput(WatchedOutput):
    """The agent's output (see `WatchedOutput`) into a `BytePipe`."""

    def __init__(self, pipe: BytePipe) -> None:
        super().__init__()
        self.pipe = pipe

    async def _write(self, data: bytes) -> None:
        await self.pipe._write(data)

    async def aclose(self) -> None:
        await super().aclose()
        self.pipe.close_writer()


class DrainingInput(ByteReceiveStream):
    """The agent's input: a stream that calls ``on_eof`` once at its end, before the reader
    learns of it (as `StdinStream` does, so requests already received are answered)."""

    def __init__(self, stream: ByteReceiveStream, on_eof: Callable[[], Awaitable[None]]) -> None:
        self.stream = stream
        self.on_eof = on_eof
        self._ended = False

    async def receive(self, max_bytes: int = READ_SIZE) -> bytes:
        try:
            return await self.stream.receive(max_bytes)
        except anyio.EndOfStream:
            if not self._ended:
                self._ended = True
                await self.on_eof()
            raise

    async def aclose(self) -> None:
        await self.stream.aclose()


def options_from_argv(argv: Sequence[str]) -> AgentOptions:
    """The options the demo agent's command line ``argv`` (without the program) asks for.

    Raises ValueError for a command line the agent would refuse, and for ``--login``, which is a
    prompt on a terminal rather than an agent.
    """
    try:
        args = build_parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse has printed why
        raise ValueError(f"the demo agent refuses the arguments {list(argv)!r}") from exc
    if args.login:
        raise ValueError("--login is a prompt on a terminal: run it as a process")
    return agent_options(args, data_dir_of(args))


class InProcessAgent:
    """The demo agent serving one client inside this event loop, once `run` is started.

    A client writes to ``stdin`` and reads from ``stdout``, as with a process; closing
    ``stdin`` makes the agent finish what it was asked and end.
    """

    def __init__(self, argv: Sequence[str]) -> None:
        self.options = options_from_argv(argv)
        to_agent, from_agent = BytePipe(), BytePipe()
        self.stdin: ByteSendStream = to_agent.writer
        self.stdout: ByteReceiveStream = from_agent.reader
        self.stderr: list[str] = []
        """The lines its process would have written to stderr (see the module's docstring)."""
        self.returncode: int | None = None
        self.exited = anyio.Event()
        self._input = to_agent.reader
        self._output = PipeOutput(from_agent)
        self._scope = anyio.CancelScope()

    async def run(self) -> None:
        """Serve until the input ends, the agent crashes on purpose or `kill` is called."""
        _serving.set(self)  # this task's context, which the agent's own tasks inherit
        root = logging.getLogger()
        if _STDERR_HANDLER not in root.handlers:
            root.addHandler(_STDERR_HANDLER)
        try:
            with self._scope:
                agent = build_agent(self.options, self._output, exit_now=self._exit_now)
                await run_agent(agent, DrainingInput(self._input, agent.drain), self._output)
        finally:
            self._output.pipe.close_writer()
            self._input.pipe.close_reader()
            if self.returncode is None:
                self.returncode = 0
            self.exited.set()

    def kill(self) -> None:
        """End it now, whatever it is doing (what SIGKILL is to a process)."""
        if self.returncode is None and not self.exited.is_set():
            self.returncode = -signal.SIGKILL
        self._scope.cancel()

    async def _exit_now(self, code: int, why: str) -> NoReturn:
        """What ``os._exit`` is to a process: nothing more is written, the output ends."""
        self.stderr.append(why)
        if self.returncode is None:
            self.returncode = code
        self._output.pipe.close_writer()
        self._scope.cancel()
        await anyio.sleep_forever()
        raise AssertionError("a cancelled agent went on")  # pragma: no cover
