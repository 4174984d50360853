"""Provides Login, the part of the Workspace that logs in: what to do when an agent answers
"authentication required" (-32000), whichever call it answers.

The methods offered are the agent's ``authMethods`` (with the older ``_meta["terminal-auth"]``
form understood) and any an error carries in its ``data``. An agent-type method runs
`authenticate` (v2 `auth/login`) while the slot's status says so; it can be cancelled (Esc in
the chat: `$/cancel_request` is sent) and the user is asked again. A terminal method restarts
the agent: it runs first, in the real terminal (the UI suspends itself), and the call that
needed it is retried once the agent is back. An ``env_var`` method uses the values of its
variables the agent already has (then it only `authenticate`s), else asks for them (masked),
starts the agent again with them and `authenticate`s before anything else (`env_login`). A
method of an unknown type is shown, never run.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

import anyio

from acp_tui.client.agent.capabilities import AuthMethodInfo, auth_methods_in_error
from acp_tui.client.errors import AgentError, AgentExited, LoginRestart
from acp_tui.client.workspace.agent_runtime import AgentRuntime, login_command
from acp_tui.client.workspace.env_login import missing_vars, save_in_config
from acp_tui.client.workspace.events import Notice
from acp_tui.config.edit import ConfigEditError
from acp_tui.protocol.jsonrpc import RpcError

if TYPE_CHECKING:
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.interaction import Interaction

__all__ = ["Authenticated", "Login", "offered_methods", "printed_lines"]

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 3


class Authenticated(Protocol):
    """What the other parts receive of Login: `Login.authenticated`."""

    async def __call__(self, agent: AgentRuntime, call: Callable[[], Awaitable[T]]) -> T: ...


def offered_methods(agent: AgentRuntime, exc: RpcError) -> tuple[AuthMethodInfo, ...]:
    """The login methods for ``exc``: the error's own first, then the advertised ones."""
    caps = agent.client.capabilities if agent.client is not None else None
    version = caps.protocol_version if caps is not None else agent.launch.protocol_version
    methods = list(auth_methods_in_error(exc.data, version))
    known = {m.id for m in methods}
    methods += [m for m in (caps.auth_methods if caps else ()) if m.id not in known]
    return tuple(methods)


class Login:
    """Logging in when an agent asks, and out when the user asks (``ws.login``).

    It asks the user through ``interaction`` and says what happens through ``board``; the
    other parts run their calls through `authenticated`.
    """

    def __init__(self, board: Board, interaction: Interaction) -> None:
        self.board = board
        self.interaction = interaction

    async def authenticated(self, agent: AgentRuntime, call: Callable[[], Awaitable[T]]) -> T:
        """Run ``call``; when the agent answers "authentication required", log in and retry.

        Several calls may need the login at once: one asks, the others wait and retry. A
        terminal login restarts the agent (`LoginRestart`); the caller's slot reopens after it.
        """
        for _attempt in range(ATTEMPTS):
            seen = agent.logins
            try:
                return await call()
            except RpcError as exc:
                if not exc.is_auth_required:
                    raise
                async with agent.login_lock:
                    if agent.logins == seen:
                        await self._log_in(agent, exc)
        raise AgentError("the agent still asks for a login after three attempts")

    async def _log_in(self, agent: AgentRuntime, exc: RpcError) -> None:
        """Ask which method, and log in with it (again, when the user cancels a login)."""
        client = agent.client
        if client is None:
            raise exc
        name = agent.display_name
        methods = offered_methods(agent, exc)
        if not any(m.usable for m in methods):
            raise AgentError(f"{name} needs a login but offers no way to log in: {exc}")
        reason = exc.said
        while True:
            method = await self.interaction.choose_auth_method(agent, methods, reason)
            if method is None or not method.usable:
                raise AgentError(f"login cancelled; {name} cannot be used without it")
            if method.terminal:
                agent.login_and_restart(method)
                raise LoginRestart(f"logging in from the terminal: {method.name}")
            if method.env_var:
                if await self._env_login(agent, method):
                    agent.logins += 1
                    return
            elif await self._agent_login(agent, method):
                agent.logins += 1
                return
            reason = f"The login with {method.name} was cancelled. {exc.said}"

    async def _env_login(self, agent: AgentRuntime, method: AuthMethodInfo) -> bool:
        """An ``env_var`` login: `authenticate` when the agent has every value it needs, else
        ask for them and start the agent again with them (`LoginRestart`); False: cancelled."""
        missing = missing_vars(agent, method)
        if not missing:
            return await self._agent_login(agent, method)
        answer = await self.interaction.ask_env_vars(agent, method, missing)
        if answer is None:
            return False
        asked = {var.name for var in missing}
        values = {k: v for k, v in answer.values.items() if k in asked and v}
        if any(not var.optional and var.name not in values for var in missing):
            return False
        names = " and ".join(values)
        if answer.save:
            try:
                note = save_in_config(agent, values)
            except ConfigEditError as exc:
                text = f"Could not save {names} in the config ({exc}); used for this run only."
                self.board.tell(agent, text, "warning")
            else:
                where = agent.paths.config_file
                saved = f"Saved {names} in the agent's env in {where}."
                self.board.tell(agent, f"{saved} {note}" if note else saved)
        agent.env_login_and_restart(method, values)
        raise LoginRestart(f"starting the agent again with {names} set: {method.name}")

    async def env_login(self, agent: AgentRuntime, method: AuthMethodInfo) -> bool:
        """`authenticate` with an ``env_var`` method once the agent started again with its
        values; a failure is said, and what needs the login asks again."""
        try:
            done = await self._agent_login(agent, method)
        except AgentExited:
            raise
        except (AgentError, RpcError) as exc:
            text = f"The login {method.name} did not succeed: {exc}"
            self.board.tell(agent, text, "error")
            return False
        if done:
            agent.logins += 1
            self.board.tell(agent, f"Logged in with {method.name}.")
        return done

    async def _agent_login(self, agent: AgentRuntime, method: AuthMethodInfo) -> bool:
        """`authenticate` with ``method``, cancellable (`cancel_login`); False if cancelled."""
        client = agent.client
        if client is None:
            raise AgentError("the agent is gone")
        cancelled = agent.login_cancel = anyio.Event()
        agent.status = f"logging in with {method.name}…"  # the status line adds "Esc cancels"
        self.board.agent_changed(agent)
        try:
            async with anyio.create_task_group() as tg:

                async def on_cancel() -> None:
                    await cancelled.wait()
                    tg.cancel_scope.cancel()  # the request's cancel sends $/cancel_request

                tg.start_soon(on_cancel)
                await client.authenticate(method.id)
                tg.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            # The task group wraps the call's own error (the agent exited, an RpcError): the
            # caller handles those by their type, so it gets the error itself.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        finally:
            agent.login_cancel = None
            agent.status = "ready" if agent.alive else agent.status
            self.board.agent_changed(agent)
        return not cancelled.is_set()

    async def log_out(self, agent: AgentRuntime) -> bool:
        """`logout` (v2 `auth/logout`) where the agent advertises it; True when it logged out.

        Nothing else changes here: the next call that needs a login answers -32000 and
        `authenticated` asks for one then, as on a first start.
        """
        client = agent.client
        caps = agent.capabilities
        name = agent.display_name
        if client is None or caps is None:
            self.board.emit(Notice(f"{name} is not running.", "warning"))
            return False
        if not caps.can_logout:
            self.board.emit(Notice(f"{name} does not support logging out.", "warning"))
            return False
        try:
            await client.logout()
        except (AgentError, RpcError) as exc:
            self.board.tell(agent, f"Could not log out of {name}: {exc}", "error")
            return False
        self.board.tell(agent, f"Logged out of {name}. It will ask you to log in when it needs to.")
        return True

    def cancel_login(self, agent: AgentRuntime) -> bool:
        """Give up the agent-method login under way (the user pressed Esc); False: none."""
        if agent.login_cancel is None:
            return False
        agent.login_cancel.set()
        return True

    async def terminal_login(self, agent: AgentRuntime, method: AuthMethodInfo) -> bool:
        """Run a terminal login (the agent is not running meanwhile); True when it succeeded.

        A failed one is said, with what it printed, and the agent starts anyway: the call
        that needs a login then asks again.
        """
        argv, env = login_command(agent.launch, method)
        cwd = agent.launch.command.cwd or agent.launch.cwd
        try:
            result = await self.interaction.run_terminal_login(argv, env, cwd)
        except Exception as exc:
            self.board.tell(agent, f"Could not run the login {method.name}: {exc}", "error")
            return False
        printed = printed_lines(result.output)
        if result.code != 0:
            text = f"The login {method.name} did not succeed (exit code {result.code})."
            if printed:
                text += " It printed:\n" + printed
            self.board.tell(agent, text, "error")
            return False
        said = f"The login {method.name} finished (exit code 0)."
        for slot in self.board.slots_of(agent):
            slot.transcript.add_notice(f"{said} It printed:\n{printed}" if printed else said)
        self.board.emit(Notice(said))
        return True


_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""Terminal escape sequences (CSI, OSC, two-byte): how a program drew, not what it said."""
PRINTED_LINES = 12
"""How many of the last lines a terminal command printed are shown."""


def printed_lines(output: str, keep: int = PRINTED_LINES) -> str:
    """The last ``keep`` lines a command showed on the terminal, as text: its escape sequences
    dropped, and each line as a carriage return left it (a progress line shows its last state)."""
    lines = []
    for line in _ESCAPES.sub("", output).replace("\r\n", "\n").split("\n"):
        shown = line.rsplit("\r", 1)[-1].rstrip()
        if shown:
            lines.append(shown)
    return "\n".join(lines[-keep:])
