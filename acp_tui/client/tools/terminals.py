"""Provides TerminalManager: the client side of ACP's ``terminal/*`` methods.

Each terminal is one command run without a shell (``argv = [command, *args]``), in its own
session and process group, with stdin closed and stdout and stderr merged into one buffer. The
buffer keeps at most ``outputByteLimit`` bytes, dropping the oldest output at a UTF-8 character
boundary. ``kill`` sends SIGTERM to the command's whole process tree, then SIGKILL after a grace
period (and to anything of it still holding the output pipe or still running); the terminal stays
valid. ``release`` kills and forgets the id; the final output stays available to ``snapshot``
for display.

The tree is the command's group and session and every process it started, also one that called
``setsid()`` or whose parent already exited (``acp_tui.client.process.reaper`` guards it, and its
watchdog ends it if acp-tui dies first). The working directory is opened inside the roots
without following links and the command starts in that directory, and the agent's environment
variables that could run hidden code are dropped (``acp_tui.client.tools.terminal_spawn``).
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import secrets
import signal
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType

import anyio
from anyio.abc import Process, TaskGroup

from acp_tui.client.process import reaper, watchdog
from acp_tui.client.tools.roots import RootSet, show_path
from acp_tui.client.tools.terminal_spawn import EnvPolicy, spawn_terminal
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

log = logging.getLogger(__name__)

DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024
MAX_OUTPUT_BYTE_LIMIT = 64 * 1024 * 1024

OutputCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """What a terminal printed so far, and how it ended (when it did)."""

    output: str
    truncated: bool
    exit_code: int | None
    signal: str | None
    exited: bool


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def _trim_start(data: bytes | bytearray, limit: int) -> int:
    """How many leading bytes to drop to keep at most ``limit``, at a character boundary."""
    cut = len(data) - limit
    if cut <= 0:
        return 0
    while cut < len(data) and data[cut] & 0xC0 == 0x80:  # a UTF-8 continuation byte
        cut += 1
    return cut


AGENT_TERMINAL_LIMIT = 1_000_000
"""How many bytes of an agent-owned terminal's output are kept (the latest)."""


class AgentTerminal:
    """An agent-owned, display-only terminal (ACP v2): its output as the agent reports it."""

    def __init__(self, limit: int = AGENT_TERMINAL_LIMIT) -> None:
        self.buffer = bytearray()
        self.limit = limit
        self.truncated = False
        self.exited = False
        self.exit_code: int | None = None
        self.signal: str | None = None

    def add(self, data: bytes, *, replace: bool = False) -> None:
        """More output (``replace``: all of it); only the last ``limit`` bytes are kept."""
        if replace:
            self.buffer, self.truncated = bytearray(), False
        self.buffer += data
        cut = _trim_start(self.buffer, self.limit)
        if cut:
            del self.buffer[:cut]
            self.truncated = True

    def set_exit(self, exited: bool, exit_code: int | None = None, sig: str | None = None) -> None:
        self.exited, self.exit_code, self.signal = exited, exit_code, sig

    def snapshot(self) -> TerminalOutput:
        text = bytes(self.buffer).decode("utf-8", "replace")
        return TerminalOutput(text, self.truncated, self.exit_code, self.signal, self.exited)


KILL_WAIT = 2.0
"""How long to wait for the tree to be gone after SIGKILL."""


class _Terminal:
    def __init__(self, terminal_id: str, process: Process, root: reaper.Root, limit: int) -> None:
        self.id = terminal_id
        self.process = process
        self.root = root
        self.limit = limit
        self.dropped_env: tuple[str, ...] = ()
        self.buffer = bytearray()
        self.truncated = False
        self.returncode: int | None = None
        self.exited = anyio.Event()  # the process ended and its output was drained (bounded)
        self.eof = anyio.Event()  # nothing holds the output pipe any more
        self.done = anyio.Event()  # the supervisor finished: process reaped, streams closed
        self.scope = anyio.CancelScope()

    def append(self, data: bytes) -> None:
        self.buffer += data
        cut = _trim_start(self.buffer, self.limit)
        if cut:
            del self.buffer[:cut]
            self.truncated = True

    def status(self) -> tuple[int | None, str | None]:
        code = self.returncode
        if code is None:
            return None, None
        if code < 0:
            return None, signal_name(-code)
        return code, None

    def snapshot(self) -> TerminalOutput:
        exited = self.exited.is_set()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        text = decoder.decode(bytes(self.buffer), final=exited)
        truncated = self.truncated
        encoded = text.encode("utf-8")
        if len(encoded) > self.limit:  # replacement characters made it longer
            text = encoded[_trim_start(encoded, self.limit) :].decode("utf-8")
            truncated = True
        exit_code, sig = self.status()
        return TerminalOutput(text, truncated, exit_code, sig, exited)


class TerminalManager:
    """Runs the agent's commands; use as ``async with TerminalManager(roots) as terminals:``."""

    def __init__(
        self,
        roots: RootSet,
        *,
        on_output: OutputCallback | None = None,
        kill_grace: float = 2.0,
        drain_seconds: float = 1.0,
        max_terminals: int = 64,
        keep_released: int = 32,
        env_policy: EnvPolicy | None = None,
    ) -> None:
        self.roots = roots
        self.env_policy = env_policy or EnvPolicy()
        self.on_output = on_output
        self.kill_grace = kill_grace
        self.drain_seconds = drain_seconds
        self.max_terminals = max_terminals
        self.keep_released = keep_released
        self._terminals: dict[str, _Terminal] = {}
        self._released: OrderedDict[str, TerminalOutput] = OrderedDict()
        self._tg: TaskGroup | None = None
        self._closed = False

    async def __aenter__(self) -> TerminalManager:
        tg = anyio.create_task_group()
        await tg.__aenter__()
        self._tg = tg
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        tg = self._tg
        assert tg is not None, "TerminalManager exited without being entered"
        try:
            with anyio.CancelScope(shield=True):
                await self.close()
        finally:
            self._tg = None
            handled = await tg.__aexit__(exc_type, exc, tb)
        return handled

    def __contains__(self, terminal_id: object) -> bool:
        return terminal_id in self._terminals

    @property
    def terminal_ids(self) -> list[str]:
        return list(self._terminals)

    async def create(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> str:
        """Start ``command`` with ``args`` and return its terminal id at once."""
        tg = self._tg
        if tg is None or self._closed:
            raise RpcError.internal("terminals are not available (the session is closing)")
        if not isinstance(command, str) or not command:
            raise RpcError.invalid_params(f"command must be a non-empty string, not {command!r}")
        if isinstance(args, str) or not all(isinstance(arg, str) for arg in args):
            raise RpcError.invalid_params("args must be a list of strings")
        env = dict(env or {})
        if not all(isinstance(k, str) and k and isinstance(v, str) for k, v in env.items()):
            raise RpcError.invalid_params("env must map non-empty names to string values")
        limit = self._output_limit(output_byte_limit)
        if len(self._terminals) >= self.max_terminals:
            raise RpcError.internal(
                f"too many terminals ({self.max_terminals}); release some before creating more"
            )
        requested = self.roots.cwd if cwd is None else cwd
        spawned = await spawn_terminal(self.roots, command, args, env, requested, self.env_policy)
        terminal = _Terminal(f"term_{secrets.token_hex(8)}", spawned.process, spawned.root, limit)
        terminal.dropped_env = spawned.dropped_env
        self._terminals[terminal.id] = terminal
        tg.start_soon(self._supervise, terminal)
        if self._closed:  # close() ran while the process was starting
            await self.release(terminal.id)
            raise RpcError.internal("terminals are not available (the session is closing)")
        return terminal.id

    def dropped_env(self, terminal_id: str) -> tuple[str, ...]:
        """The names of the agent's environment variables the command did not get."""
        return self._get(terminal_id).dropped_env

    def output(self, terminal_id: str) -> TerminalOutput:
        """The current output and, once it ended, the exit status."""
        return self._get(terminal_id).snapshot()

    def snapshot(self, terminal_id: str) -> TerminalOutput | None:
        """Like ``output`` but for display: also answers for recently released terminals."""
        terminal = self._terminals.get(terminal_id)
        if terminal is not None:
            return terminal.snapshot()
        return self._released.get(terminal_id)

    async def wait_for_exit(self, terminal_id: str) -> tuple[int | None, str | None]:
        """Wait for the command to end; returns ``(exit_code, signal_name)``."""
        terminal = self._get(terminal_id)
        await terminal.exited.wait()
        return terminal.status()

    async def kill(self, terminal_id: str) -> None:
        """Kill the command's process tree; the terminal stays valid."""
        await self._kill(self._get(terminal_id))

    async def release(self, terminal_id: str) -> None:
        """Kill the command if it still runs and forget the id."""
        terminal = self._get(terminal_id)
        del self._terminals[terminal_id]
        with anyio.CancelScope(shield=True):
            try:
                await self._kill(terminal)
            finally:
                terminal.scope.cancel()
                await terminal.done.wait()
                self._released[terminal_id] = terminal.snapshot()
                while len(self._released) > self.keep_released:
                    self._released.popitem(last=False)

    async def close(self) -> None:
        """Kill and release every terminal; no terminal can be created afterwards."""
        self._closed = True
        async with anyio.create_task_group() as tg:
            for terminal_id in list(self._terminals):
                tg.start_soon(self._release_quietly, terminal_id)

    async def _release_quietly(self, terminal_id: str) -> None:
        with contextlib.suppress(RpcError):  # released concurrently
            await self.release(terminal_id)

    def _get(self, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id) if isinstance(terminal_id, str) else None
        if terminal is None:
            raise RpcError(
                ErrorCode.RESOURCE_NOT_FOUND,
                f"Unknown terminal: {show_path(terminal_id)} (never created, or released)",
                {"terminalId": terminal_id},
            )
        return terminal

    @staticmethod
    def _output_limit(value: int | None) -> int:
        if value is None:
            return DEFAULT_OUTPUT_BYTE_LIMIT
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RpcError.invalid_params(f"outputByteLimit must be an integer >= 0, not {value!r}")
        return min(value, MAX_OUTPUT_BYTE_LIMIT)

    def _notify(self, terminal_id: str) -> None:
        callback = self.on_output
        if callback is None:
            return
        try:
            callback(terminal_id)
        except Exception:
            log.exception("terminal output callback failed")

    async def _supervise(self, terminal: _Terminal) -> None:
        try:
            with terminal.scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._pump, terminal)
                    await terminal.process.wait()
                    with anyio.move_on_after(self.drain_seconds):
                        await terminal.eof.wait()
                    self._mark_exited(terminal)
        finally:
            with anyio.CancelScope(shield=True):
                if terminal.process.returncode is None:
                    await self._signal_tree(terminal, signal.SIGKILL)
                await terminal.process.aclose()
                self._mark_exited(terminal)
                terminal.done.set()

    async def _pump(self, terminal: _Terminal) -> None:
        stream = terminal.process.stdout
        assert stream is not None
        try:
            async for chunk in stream:
                terminal.append(chunk)
                self._notify(terminal.id)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            terminal.eof.set()

    def _mark_exited(self, terminal: _Terminal) -> None:
        if terminal.exited.is_set() or terminal.process.returncode is None:
            return
        terminal.returncode = terminal.process.returncode
        terminal.exited.set()
        self._notify(terminal.id)

    async def _kill(self, terminal: _Terminal) -> None:
        process = terminal.process
        if process.returncode is None or await self._tree_alive(terminal):
            await self._signal_tree(terminal, signal.SIGTERM)
            deadline = anyio.current_time() + self.kill_grace
            with anyio.move_on_after(self.kill_grace):
                await process.wait()
            await self._wait_tree_gone(terminal, max(0.0, deadline - anyio.current_time()))
        # The leader may be gone while others of its tree still run, some perhaps holding the
        # output pipe, some perhaps outside its group (setsid).
        if (
            process.returncode is None
            or not terminal.eof.is_set()
            or await self._tree_alive(terminal)
        ):
            await self._signal_tree(terminal, signal.SIGKILL)
            await self._wait_tree_gone(terminal, KILL_WAIT)
        with anyio.move_on_after(self.drain_seconds + 5):
            await terminal.exited.wait()
        if not await self._tree_alive(terminal):
            reaper.forget(terminal.root)

    @staticmethod
    async def _tree_alive(terminal: _Terminal) -> bool:
        return await anyio.to_thread.run_sync(watchdog.trees_alive, [terminal.root])

    @staticmethod
    async def _wait_tree_gone(terminal: _Terminal, within: float) -> bool:
        return await anyio.to_thread.run_sync(watchdog.wait_trees_gone, [terminal.root], within)

    @staticmethod
    async def _signal_tree(terminal: _Terminal, sig: signal.Signals) -> None:
        try:
            await anyio.to_thread.run_sync(watchdog.signal_trees, [terminal.root], sig)
        except OSError as exc:
            log.warning("cannot signal terminal %s: %s", terminal.id, exc)
        if terminal.process.returncode is None and not watchdog.have_proc():
            with contextlib.suppress(OSError):  # the group may be unreachable: the leader is not
                terminal.process.send_signal(sig)
