"""Provides the agent subprocess: spawned in its own process group, stderr drained, always reaped.

`spawn_agent` starts the agent with stdin/stdout pipes for the JSON-RPC connection. A task drains
stderr into a bounded ring buffer (for error messages) and an `AgentLog`; another notices the exit.
Leaving the context shuts the agent's whole process tree down (EOF, then SIGTERM, then SIGKILL),
shielded from cancellation and bounded in time. The tree is its process group and everything else it
started, also what called ``setsid()`` (see ``acp_tui.client.process.reaper``), which guards it
until it is gone: an ``atexit`` hook SIGKILLs any tree still guarded, and a watchdog process ends
them if acp-tui dies without doing it, even by SIGKILL.
"""

from __future__ import annotations

import codecs
import errno
import logging
import os
import shutil
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_thread

from acp_tui.client.errors import AgentExited, AgentNotFound, AgentStartFailed
from acp_tui.client.process import reaper, watchdog
from acp_tui.client.process.agent_log import AgentLog
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import get_paths

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 4096
"""Longer stderr lines are cut in the ring buffer so a giant line cannot eat memory."""
KILL_WAIT = 2.0
"""How long to wait for an exit after SIGKILL before giving up on it."""
STDERR_GRACE = 0.5
"""How long after the exit `exited` waits for stderr to be drained (a grandchild may hold it)."""
TRUNCATED = " …[line truncated]"


def live_process_groups() -> frozenset[int]:
    """The process groups of agents this process started and has not seen gone yet."""
    return frozenset(root.pid for root in reaper.guarded("agent"))


def kill_live_process_groups() -> None:
    """SIGKILL every guarded agent tree now (the `atexit` safety net does it for all trees)."""
    reaper.kill_all("agent")


class AgentProcess:
    """A running agent: its pipes, its exit, its recent stderr and its shutdown."""

    def __init__(
        self,
        command: AgentCommand,
        process: anyio.abc.Process,
        root: reaper.Root,
        *,
        log_dir: Path,
        stderr_lines: int,
        stop_timeout: float,
        term_timeout: float,
    ) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        self.command = command
        self.stdin: anyio.abc.ByteSendStream = process.stdin
        self.stdout: anyio.abc.ByteReceiveStream = process.stdout
        self.pid: int = process.pid
        self.pgid: int = process.pid  # start_new_session: the agent leads its own group
        self.root = root
        self.exited = anyio.Event()
        self._process = process
        self._stderr = process.stderr
        self._log = AgentLog(command, process.pid, log_dir)
        self._stop_timeout = stop_timeout
        self._term_timeout = term_timeout
        self._returncode: int | None = None
        self._signals: list[signal.Signals] = []
        self._lines: deque[str] = deque(maxlen=max(stderr_lines, 1))
        self._partial = bytearray()
        self._partial_cut = False
        self._stderr_done = anyio.Event()
        self._shutdown_started = False
        self._shutdown_done = anyio.Event()
        self._task_scopes: list[anyio.CancelScope] = []
        self._tasks_stopped = False

    @property
    def log_path(self) -> Path | None:
        """The stderr log file, once it is open."""
        return self._log.path

    @property
    def returncode(self) -> int | None:
        """The exit code once `exited` is set (negative: killed by that signal), else None."""
        return self._returncode

    @property
    def signals_sent(self) -> list[signal.Signals]:
        """The signals sent to the process group, in order (empty for a clean EOF exit)."""
        return list(self._signals)

    async def wait(self) -> int:
        """Wait for the agent to exit and return its exit code."""
        await self.exited.wait()
        assert self._returncode is not None
        return self._returncode

    def stderr_tail(self, n: int = 20) -> list[str]:
        """The last `n` lines the agent wrote to stderr, including an unfinished last line."""
        if n <= 0:
            return []
        lines = list(self._lines)
        if self._partial:
            lines.append(self._decode_partial())
        return lines[-n:]

    def exit_error(self, context: str = "") -> AgentExited:
        """The typed error for "the agent is gone", with its exit code and last stderr lines."""
        return AgentExited(self._returncode, self.stderr_tail(8), context)

    async def shutdown(self) -> int | None:
        """Stop the agent and its whole process group; bounded, and not interrupted by cancel.

        Returns the exit code, or None if the agent could not be killed.
        """
        with anyio.CancelScope(shield=True):
            if self._shutdown_started:
                await self._shutdown_done.wait()
            else:
                self._shutdown_started = True
                try:
                    await self._stop()
                finally:
                    self._shutdown_done.set()
        return self._returncode

    async def _stop(self) -> None:
        with anyio.move_on_after(self._stop_timeout):
            with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await self.stdin.aclose()
            await self.exited.wait()
        if not self.exited.is_set():
            await self._signal_tree(signal.SIGTERM)
            with anyio.move_on_after(self._term_timeout):
                await self.exited.wait()
        if not self.exited.is_set():
            await self._signal_tree(signal.SIGKILL)
            with anyio.move_on_after(KILL_WAIT):
                await self.exited.wait()
        if not self.exited.is_set():
            log.error("agent %s (pid %d) survived SIGKILL", self.command.name, self.pid)
            return
        # The leader is gone, but wrappers (npx, uvx...) can leave their real agent in the group,
        # and daemons it started may have left the group (setsid).
        if await self._clear_tree():
            reaper.forget(self.root)

    async def _clear_tree(self) -> bool:
        """Make sure nothing is left alive of the agent's tree; True once it is gone."""
        if not await anyio.to_thread.run_sync(watchdog.trees_alive, [self.root]):
            return True
        if not self._signals:
            await self._signal_tree(signal.SIGTERM)
            if await self._wait_tree_gone(self._term_timeout):
                return True
        await self._signal_tree(signal.SIGKILL)
        if await self._wait_tree_gone(KILL_WAIT):
            return True
        log.error("the processes of agent %s survived SIGKILL", self.command.name)
        return False

    async def _wait_tree_gone(self, within: float) -> bool:
        return await anyio.to_thread.run_sync(watchdog.wait_trees_gone, [self.root], within)

    async def _signal_tree(self, sig: signal.Signals) -> None:
        self._signals.append(sig)
        try:
            await anyio.to_thread.run_sync(watchdog.signal_trees, [self.root], sig)
        except OSError as exc:
            log.warning("cannot send %s to agent %s: %s", sig.name, self.command.name, exc)

    async def _run_shielded(self, task: Callable[[], Awaitable[None]]) -> None:
        """Run a background task that an outer cancellation cannot stop: shutdown relies on it."""
        with anyio.CancelScope(shield=True) as scope:
            self._task_scopes.append(scope)
            if not self._tasks_stopped:
                await task()

    def _stop_tasks(self) -> None:
        self._tasks_stopped = True
        for scope in self._task_scopes:
            scope.cancel()

    async def _watch_exit(self) -> None:
        """Set `returncode` and `exited` when the agent exits (after draining stderr, briefly)."""
        async with anyio.create_task_group() as tg:

            async def native_wait() -> None:
                await self._process.wait()
                tg.cancel_scope.cancel()

            async def poll_returncode() -> None:
                # Older anyio on asyncio only returns from wait() once every pipe is closed, which a
                # leftover grandchild can delay forever; the return code is set on reaping anyway.
                delay = 0.05
                while self._process.returncode is None:
                    await anyio.sleep(delay)
                    delay = min(delay * 2, 1.0)
                tg.cancel_scope.cancel()

            tg.start_soon(native_wait)
            tg.start_soon(poll_returncode)
        with anyio.move_on_after(STDERR_GRACE):
            await self._stderr_done.wait()
        self._returncode = self._process.returncode
        self.exited.set()

    async def _drain_stderr(self) -> None:
        """Read stderr to EOF into the ring buffer and the log, so the agent never blocks on it."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            await self._log.open()
            while True:
                try:
                    data = await self._stderr.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    break
                self._feed(data)
                await self._log.write(decoder.decode(data))
            if self._partial:
                self._finish_line()
            await self._log.write(decoder.decode(b"", final=True))
        except Exception:
            log.exception("draining the stderr of agent %s failed", self.command.name)
        finally:
            self._stderr_done.set()

    def _feed(self, data: bytes) -> None:
        pieces = data.split(b"\n")
        for piece in pieces[:-1]:
            self._add_partial(piece)
            self._finish_line()
        self._add_partial(pieces[-1])

    def _add_partial(self, piece: bytes) -> None:
        room = MAX_LINE_BYTES - len(self._partial)
        if len(piece) > room:
            self._partial += piece[: max(room, 0)]
            self._partial_cut = True
        else:
            self._partial += piece

    def _decode_partial(self) -> str:
        text = bytes(self._partial).decode("utf-8", errors="replace").rstrip("\r")
        return text + TRUNCATED if self._partial_cut else text

    def _finish_line(self) -> None:
        self._lines.append(self._decode_partial())
        self._partial.clear()
        self._partial_cut = False

    async def _close(self) -> None:
        """Release the pipes and the log once the agent is stopped."""
        if self.exited.is_set():  # aclose() would wait, shielded, for an unkillable process
            with anyio.move_on_after(KILL_WAIT):
                await self._process.aclose()
        signals = ", ".join(sig.name for sig in self._signals) or "none"
        await self._log.close(f"# acp-tui: exit code {self._returncode}; signals sent: {signals}\n")


@asynccontextmanager
async def spawn_agent(
    command: AgentCommand,
    *,
    log_dir: Path | None = None,
    stderr_lines: int = 200,
    stop_timeout: float = 2.0,
    term_timeout: float = 2.0,
) -> AsyncIterator[AgentProcess]:
    """Start the agent in its own process group; on exit (even cancelled) stop its whole tree.

    Raises AgentNotFound when the command cannot be found or executed, AgentStartFailed for any
    other reason it cannot start (empty command, bad cwd...). The log goes to `log_dir`
    (default: the acp-tui log directory).
    """
    argv = list(command.argv)
    if not argv:
        raise AgentStartFailed(f"cannot start agent {command.name!r}: its command is empty")
    token = reaper.new_token()
    env = reaper.marked_env({**os.environ, **command.env}, token)
    log_dir = log_dir if log_dir is not None else get_paths().log_dir
    await anyio.to_thread.run_sync(_check_startable, argv[0], command, env)
    since = reaper.spawn_time()
    try:
        process = await anyio.open_process(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=command.cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        raise _start_error(argv[0], command, exc) from exc
    except ValueError as exc:  # e.g. an embedded NUL byte
        raise AgentStartFailed(f"cannot start agent {command.name!r}: {exc}") from exc
    root = reaper.guard(process.pid, token, since, "agent")
    agent = AgentProcess(
        command,
        process,
        root,
        log_dir=log_dir,
        stderr_lines=stderr_lines,
        stop_timeout=stop_timeout,
        term_timeout=term_timeout,
    )
    body_error: BaseException | None = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent._run_shielded, agent._drain_stderr)
            tg.start_soon(agent._run_shielded, agent._watch_exit)
            try:
                yield agent
            except anyio.get_cancelled_exc_class():
                raise
            except BaseException as exc:
                # Re-raised below, outside the task group, so callers see it unwrapped.
                body_error = exc
            finally:
                await agent.shutdown()
                with anyio.CancelScope(shield=True), anyio.move_on_after(STDERR_GRACE):
                    await agent._stderr_done.wait()
                agent._stop_tasks()
    finally:
        with anyio.CancelScope(shield=True):
            await agent.shutdown()
            await agent._close()
    if body_error is not None:
        raise body_error


def _check_startable(program: str, command: AgentCommand, env: Mapping[str, str]) -> None:
    """Fail early, with a clear reason, for a bad cwd or a program that cannot be executed."""
    cwd = command.cwd
    if cwd is not None and not cwd.is_dir():
        why = "is not a directory" if cwd.exists() else "does not exist"
        raise AgentStartFailed(
            f"cannot start agent {command.name!r}: its working directory {str(cwd)!r} {why}"
        )
    if os.sep in program:
        path = Path(program)
        if not path.is_absolute() and cwd is not None:
            path = cwd / path  # exec resolves a relative program against the child's cwd
        if not path.exists():
            raise AgentNotFound(program, "no such file")
        if path.is_dir():
            raise AgentNotFound(program, "is a directory")
        if not os.access(path, os.X_OK):
            raise AgentNotFound(program, "not executable (permission denied)")
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise AgentNotFound(program, "not found on PATH (or not executable)")


def _start_error(program: str, command: AgentCommand, exc: OSError) -> Exception:
    reason = exc.strerror or str(exc)
    if command.cwd is not None and exc.filename == str(command.cwd):
        return AgentStartFailed(
            f"cannot start agent {command.name!r}: working directory {str(command.cwd)!r}: {reason}"
        )
    if (
        isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError)
        or exc.errno == errno.ENOEXEC
    ):
        return AgentNotFound(program, reason)
    return AgentStartFailed(f"cannot start agent {command.name!r} ({program!r}): {reason}")
