"""The demo agent in the test's own event loop: a `Connect` stand-in, and what it stands on.

Starting ``python -m acp_tui.demo_agent`` costs a Python process per agent, hundreds of them in
the suite. `connect_in_process` has the signature of
``acp_tui.client.agent.agent_client.connect``; given the demo agent's command line it runs the
agent on in-memory pipes (``acp_tui.demo_agent.in_process``) and builds the real `AgentClient`
on them (``connect_over``), so everything from the bytes on the wire up is what a process gives.
Any other command (a stub agent, a registry install, a demo agent with its own environment)
starts as a process, as usual.

What is left of the process is stubbed honestly by `AgentInProcess`: the exit code is the
in-process agent's (0 when its input ends, the code of a crash on purpose), stderr holds what it
said on its way out, and it has no pid and takes no signals (a stop that outlasts the grace
cancels it, reported like SIGKILL). Tests about processes (exit signals, reaping, stderr, big
lines through a real pipe, the watchdog, terminal logins, interop) and the smoke set are marked
``real_agent`` and get a real process.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import anyio
import anyio.abc

from acp_tui.client.agent.agent_client import AgentClient, connect, connect_over
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.errors import AgentExited
from acp_tui.client.process.command import AgentCommand
from acp_tui.demo_agent.in_process import InProcessAgent

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import Connect

DEMO_MODULE = "acp_tui.demo_agent"
STOP_GRACE = 2.0
"""How long a stop waits for the agent to end after its input closed (a process gets as long
before SIGTERM)."""

REAL_AGENT = "real_agent"
"""The marker of tests that need the demo agent as a real process."""


def demo_agent_args(command: AgentCommand) -> list[str] | None:
    """The demo agent's own arguments when ``command`` starts it and nothing in it needs a
    process (its own environment or working directory, a terminal login); None otherwise."""
    argv = list(command.argv)
    if argv[:3] != [sys.executable, "-m", DEMO_MODULE]:
        return None
    args = argv[3:]
    if command.env or "--login" in args:
        return None
    data_dir = args[args.index("--data-dir") + 1] if "--data-dir" in args[:-1] else None
    if data_dir is not None and not Path(data_dir).is_absolute() and command.cwd is not None:
        return None  # relative to the process's working directory
    return args


class AgentInProcess:
    """What `AgentClient` uses of an `AgentProcess`, for an agent run in this event loop."""

    def __init__(self, agent: InProcessAgent, command: AgentCommand) -> None:
        self.agent = agent
        self.command = command
        self.stdin: anyio.abc.ByteSendStream = agent.stdin
        self.stdout: anyio.abc.ByteReceiveStream = agent.stdout
        self.exited = agent.exited
        self.log_path: Path | None = None
        self._signals: list[signal.Signals] = []

    @property
    def pid(self) -> int:
        raise AttributeError(f"an agent run in-process has no pid: mark the test {REAL_AGENT}")

    @property
    def pgid(self) -> int:
        raise AttributeError(f"an agent run in-process has no pid: mark the test {REAL_AGENT}")

    @property
    def returncode(self) -> int | None:
        return self.agent.returncode if self.exited.is_set() else None

    @property
    def signals_sent(self) -> list[signal.Signals]:
        """SIGKILL once a stop had to cancel the agent; no signal is really sent."""
        return list(self._signals)

    async def wait(self) -> int:
        await self.exited.wait()
        assert self.agent.returncode is not None
        return self.agent.returncode

    def stderr_tail(self, n: int = 20) -> list[str]:
        return self.agent.stderr[-n:] if n > 0 else []

    def exit_error(self, context: str = "") -> AgentExited:
        return AgentExited(self.returncode, self.stderr_tail(8), context)

    def kill(self) -> None:
        """What SIGKILL does to a process: it ends at once (no signal is really sent)."""
        self._signals.append(signal.SIGKILL)
        self.agent.kill()

    async def shutdown(self) -> int | None:
        """Close its input and let it finish; cancel it if it outlasts the grace."""
        with anyio.CancelScope(shield=True):
            await self.stdin.aclose()
            with anyio.move_on_after(STOP_GRACE):
                await self.exited.wait()
            if not self.exited.is_set():
                self.kill()
                await self.exited.wait()
        return self.returncode


class InProcessConnect:
    """A `Connect` (the Workspace's) that runs every demo agent in this event loop.

    An instance, not a function, so that it can sit on a class (``AcpApp.connect``) without
    becoming a method. ``started`` counts the agents it ran in-process, ``spawned`` the commands
    it had to start as processes.
    """

    def __init__(self) -> None:
        self.started = 0
        self.spawned: list[Sequence[str]] = []

    def __call__(self, launch: LaunchSpec, **kwargs: Any) -> Any:
        return self.connect(launch, **kwargs)

    @asynccontextmanager
    async def connect(
        self, launch: LaunchSpec, *, paths: Any = None, **kwargs: Any
    ) -> AsyncIterator[AgentClient]:
        args = demo_agent_args(launch.command)
        if args is None:
            self.spawned.append(launch.command.argv)
            async with connect(launch, paths=paths, **kwargs) as client:
                yield client
            return
        self.started += 1
        agent = InProcessAgent(args)
        process = AgentInProcess(agent, launch.command)
        # Raised after the task group is left, unwrapped (as `connect` does).
        failure: BaseException | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent.run)
            try:
                async with connect_over(process, launch, **kwargs) as client:  # type: ignore[arg-type]
                    yield client
            except Exception as exc:
                failure = exc
            finally:
                await process.shutdown()
        if failure is not None:
            raise failure


current: Connect = connect
"""The `Connect` the running test asked for (the ``agent_connect`` fixture sets it): helpers
that build a Workspace or a client take it from here."""


def wanted() -> bool:
    """Whether the running test takes the demo agent in-process (not marked ``real_agent``)."""
    return isinstance(current, InProcessConnect)


@asynccontextmanager
async def demo_agent_process(
    argv: Sequence[str], stderr: int | IO[Any]
) -> AsyncIterator[anyio.abc.Process | AgentInProcess]:
    """The demo agent started with ``argv`` for a test that talks to it on raw JSON-RPC: a
    process (stderr to ``stderr``) or, where ``wanted``, an agent in this event loop with what
    such tests use of a process (``stdin``, ``stdout``, ``wait``, ``returncode``, ``kill``)."""
    command = AgentCommand(list(argv), name="demo")
    args = demo_agent_args(command)
    if args is None or not wanted():
        yield await anyio.open_process(list(argv), stderr=stderr)
        return
    agent = InProcessAgent(args)
    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.run)
        yield AgentInProcess(agent, command)
