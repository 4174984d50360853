"""Provides AgentRuntime: one agent process for as long as the Workspace wants it.

Its task runs a loop: start the agent (or first run the terminal login it asked for), keep the
connection until the agent exits or a restart or stop is asked for, and then wait for a restart
instead of ending, so that Restart is one event and never a race between two workers. A terminal
login chosen during any call is kept in ``pending_login`` until the loop runs it: nothing
overwrites it (a restart used to reset it to None and the user looped forever). An ``env_var``
login restarts the agent with the values the user gave (``login_env``, in memory only, kept for
every later start of this run) and `authenticate`s with it before the agent is called ready.

The states are explicit (``starting``, ``ready``, ``logging_in``, ``exited``, ``failed``,
``stopped``) and every change is reported to the Workspace, which tells its slots.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio

from acp_tui.client.agent.capabilities import AuthMethodInfo, Capabilities
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.refusals import QuestionGate, refuse_at_once
from acp_tui.client.agent.wire_log import WireLog, WireLogFile
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.history.recorder import SessionRecorder
from acp_tui.client.history.restore import CacheHistory, LocalHistory
from acp_tui.protocol.jsonrpc import RpcError

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.session.elicitation import ElicitationHandler
    from acp_tui.client.session.live_session import PermissionHandler
    from acp_tui.client.tools.terminal_gate import TerminalPolicy
    from acp_tui.config.paths import Paths
    from acp_tui.store.transcripts import TranscriptCache

__all__ = ["AgentRuntime", "AgentState", "Hooks"]

log = logging.getLogger(__name__)

AgentState = Literal["starting", "ready", "logging_in", "exited", "failed", "stopped"]


@dataclass(frozen=True, slots=True)
class Hooks:
    """What the runtime tells its owner (the Workspace) and asks of it, as the functions that
    do it: the Workspace's own for the agent's life, its parts' for logins and questions."""

    agent_changed: Callable[[AgentRuntime], None]
    agent_up: Callable[[AgentRuntime], None]
    agent_down: Callable[[AgentRuntime, BaseException | None], None]
    terminal_login: Callable[[AgentRuntime, AuthMethodInfo], Awaitable[bool]]
    env_login: Callable[[AgentRuntime, AuthMethodInfo], Awaitable[bool]]
    permission_handler: Callable[[AgentRuntime], PermissionHandler]
    elicitation_handler: Callable[[AgentRuntime], ElicitationHandler]
    terminal_policy: Callable[[AgentRuntime], TerminalPolicy]
    question_gate: Callable[[AgentRuntime], QuestionGate]


Connect = Callable[..., AbstractAsyncContextManager["AgentClient"]]
"""`acp_tui.client.agent.agent_client.connect`, or a stand-in with its signature."""


class AgentRuntime:
    """An agent the Workspace runs: its process, connection, recorder and state."""

    def __init__(
        self,
        launch: LaunchSpec,
        key: str,
        *,
        hooks: Hooks,
        paths: Paths,
        cache: TranscriptCache,
        wire_file: WireLogFile | None = None,
    ) -> None:
        self.launch = launch
        self.key = key
        self.hooks = hooks
        self.paths = paths
        self.recorder = SessionRecorder(cache, key)
        self.wire = WireLog(launch.display_name or launch.command.name, file=wire_file)
        """The agent's JSON-RPC traffic, across restarts (the wire inspector shows it)."""
        self.history: LocalHistory = CacheHistory(cache, key)
        self.state: AgentState = "starting"
        self.status = "starting the agent…"
        self.client: AgentClient | None = None
        self.error: str | None = None
        """Why the agent is not running, for the user (its exit code and last stderr)."""
        self.failure: BaseException | None = None
        """The error that stopped the agent's last connection (None after a clean stop)."""
        self.pending_login: AuthMethodInfo | None = None
        self.next_launch: LaunchSpec | None = None
        """What the agent starts with at its next restart (a reloaded config changed it)."""
        self.pending_env_login: AuthMethodInfo | None = None
        """An ``env_var`` login to `authenticate` with once the agent is up again."""
        self.login_env: dict[str, str] = {}
        """Values the user gave for ``env_var`` logins: set for each start of the agent in this
        run, never written anywhere (saving them in the config is the user's own choice)."""
        self._name: str | None = None
        self.connections = 0
        """How many times the agent connected (a restart makes it one more)."""
        self.logins = 0
        """How many agent-method logins succeeded (calls waiting on one retry after it)."""
        self.login_lock = anyio.Lock()
        self.login_cancel: anyio.Event | None = None
        """Set to give up the agent-method login under way (see `Login.cancel_login`)."""
        self._stopping = False
        self._wake = anyio.Event()
        self._restart = False
        self._ready = anyio.Event()
        self._starting: anyio.CancelScope | None = None
        """Cancelled by stop/restart while the agent starts (initialize may take long)."""
        self._logging_in: anyio.CancelScope | None = None
        """The terminal login under way: stopping the agent ends it (nobody waits for a login
        that may never finish while acp-tui quits)."""

    # -- what the Workspace reads ------------------------------------------------------------

    @property
    def display_name(self) -> str:
        """The config's title for it, else the agent's own name once it said it (kept after it
        exits), else the launch's."""
        if self.launch.title:
            return self.launch.title
        if self.client is not None:
            self._name = self.client.capabilities.display_name
        return self._name or self.launch.display_name or self.launch.command.name

    @property
    def protocol_version(self) -> int:
        """The negotiated version once connected, else the one we offer."""
        if self.client is not None:
            return self.client.capabilities.protocol_version
        return self.launch.protocol_version

    @property
    def alive(self) -> bool:
        return self.state == "ready" and self.client is not None

    @property
    def capabilities(self) -> Capabilities | None:
        """What the agent advertised, while it runs (None otherwise)."""
        return self.client.capabilities if self.alive and self.client is not None else None

    @property
    def stopping(self) -> bool:
        return self._stopping

    async def wait_ready(self) -> AgentClient:
        """Wait until the agent is connected; raises the error that stopped it instead."""
        while True:
            if self.alive and self.client is not None:
                return self.client
            if self.state in ("exited", "failed", "stopped"):
                if self.failure is not None:
                    raise self.failure
                raise AgentError(self.error or f"the agent {self.state}")
            await self._ready.wait()

    async def wait_ready_or_stopped(self) -> None:
        """Wait for the next change of readiness (connected, gone, stopped)."""
        await self._ready.wait()

    # -- what the Workspace asks -------------------------------------------------------------

    def restart(self) -> None:
        """Stop the agent if it runs and start it again (its slots are reopened)."""
        self._restart = True
        self._wake.set()
        if self._starting is not None:
            self._starting.cancel()

    def reconfigure(self, launch: LaunchSpec, restart_with: LaunchSpec | None = None) -> None:
        """A reloaded config: ``launch`` takes effect now (its settings, its MCP servers for the
        sessions opened from now on, its title), ``restart_with`` at the next restart."""
        self.launch = launch
        self.next_launch = restart_with
        client = self.client
        if client is not None:
            client.mcp_servers = launch.mcp_servers
            client.terminal_policy = self.hooks.terminal_policy(self)
        self.hooks.agent_changed(self)

    def login_and_restart(self, method: AuthMethodInfo) -> None:
        """Run ``method`` (a terminal login) before the agent starts again."""
        self.pending_login = method
        self.restart()

    def env_login_and_restart(self, method: AuthMethodInfo, values: dict[str, str]) -> None:
        """Start the agent again with ``values`` in its environment, and log in with
        ``method`` (an ``env_var`` login) before it is ready."""
        self.login_env.update(values)
        self.pending_env_login = method
        self.restart()

    @property
    def started_launch(self) -> LaunchSpec:
        """The launch as the agent is started: with the ``env_var`` logins' values."""
        if not self.login_env:
            return self.launch
        command = self.launch.command
        env = {**command.env, **self.login_env}
        return replace(self.launch, command=replace(command, env=env))

    def stop(self) -> None:
        """Stop the agent for good (gracefully: EOF, TERM, KILL to its group), and end a
        terminal login under way."""
        self._stopping = True
        self._wake.set()
        if self._starting is not None:
            self._starting.cancel()
        if self._logging_in is not None:
            self._logging_in.cancel()

    # -- the lifetime --------------------------------------------------------------------------

    async def run(self, connect: Connect) -> None:
        """Keep the agent for as long as it is wanted; returns once stopped."""
        while not self._stopping:
            self._restart = False
            if self.next_launch is not None:  # a changed config, taken at this restart
                self.launch, self.next_launch = self.next_launch, None
            login, self.pending_login = self.pending_login, None
            if login is not None:
                self._set("logging_in", f"logging in: {login.name}…")
                # A failed login was said; the agent starts anyway, and what needs the login
                # asks again.
                with anyio.CancelScope() as self._logging_in:
                    await self.hooks.terminal_login(self, login)
                self._logging_in = None
                if self._stopping:
                    break
            with anyio.CancelScope() as self._starting:
                await self._connection(connect)
            self._starting = None
            if self._stopping:
                break
            if not self._restart and self.pending_login is None:
                await self._wait_for_restart()
        self._set("stopped", "stopped")
        self._signal_ready()

    async def _connection(self, connect: Connect) -> None:
        self._set("starting", "starting the agent…")
        error: BaseException | None = None
        try:
            async with connect(
                self.started_launch,
                permission_handler=self.hooks.permission_handler(self),
                elicitation_handler=self.hooks.elicitation_handler(self),
                terminal_policy=self.hooks.terminal_policy(self),
                paths=self.paths,
                tap=self.wire.tap,
            ) as client:
                self._starting = None  # up: stop and restart go through the wake event
                self.client = client
                client.connection.on_unmatched_reply = self.wire.mark_unmatched
                gate = self.hooks.question_gate(self)
                client.connection.on_request_now = lambda method, params: refuse_at_once(
                    client, gate, method, params
                )
                self.connections += 1
                self.recorder.attach(client)
                self.error = None
                self.failure = None
                method, self.pending_env_login = self.pending_env_login, None
                if method is not None:  # a failed login was said; what needs it asks again
                    self._set("logging_in", f"logging in: {method.name}…")
                    await self.hooks.env_login(self, method)
                self._set("ready", "ready")
                self._signal_ready()
                self.hooks.agent_up(self)
                await self._wait_for_wake_or_exit(client)
                if client.exited.is_set() and not (self._stopping or self._restart):
                    raise client.process.exit_error()
        except AgentExited as exc:
            error = exc
            self.error = describe_exit(exc, self.paths.log_dir)
            code = "" if exc.exit_code is None else f" (code {exc.exit_code})"
            self._set("exited", f"the agent exited{code}")
        except (AgentError, RpcError, OSError) as exc:
            error = exc
            self.error = f"Could not talk to the agent: {exc}"
            self._set("failed", "could not talk to the agent: Ctrl+R tries again")
        finally:
            self.recorder.detach()
            self.client = None
            self._signal_ready()
        self.failure = error
        self.hooks.agent_down(self, error)

    async def _wait_for_wake_or_exit(self, client: AgentClient) -> None:
        async with anyio.create_task_group() as tg:

            async def exited() -> None:
                await client.exited.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(exited)
            await self._wake.wait()
            tg.cancel_scope.cancel()
        self._wake = anyio.Event()

    async def _wait_for_restart(self) -> None:
        while not (self._stopping or self._restart or self.pending_login is not None):
            await self._wake.wait()
            self._wake = anyio.Event()

    def _set(self, state: AgentState, status: str) -> None:
        self.state = state
        self.status = status
        self.hooks.agent_changed(self)

    def _signal_ready(self) -> None:
        self._ready.set()
        self._ready = anyio.Event()


def describe_exit(exc: AgentExited, log_dir: Path) -> str:
    """The agent exited: how, its last words on stderr, and where its full log is."""
    message = f"The {exc.args[0].splitlines()[0].strip()}."
    if exc.stderr_tail:
        message += " Its last words on stderr:\n" + "\n".join(exc.stderr_tail)
    message += f"\n(The agent's full stderr is logged in {log_dir}.)"
    return message


def login_command(launch: LaunchSpec, method: AuthMethodInfo) -> tuple[list[str], dict[str, str]]:
    """A terminal login's command: the agent's own with the method's args and env, or the
    whole command line the method gives (``_meta["terminal-auth"]``)."""
    command = launch.command
    argv = list(method.command) if method.command else [*command.argv, *method.args]
    return argv, {**os.environ, **command.env, **dict(method.env)}
