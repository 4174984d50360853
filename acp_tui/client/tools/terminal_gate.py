"""Provides TerminalPolicy: whether an agent's ``terminal/create`` runs, and with which env.

The ``terminal`` setting decides: ``"allow"`` runs every command, ``"deny"`` none, and ``"ask"``
(the default) asks the user for each command not allowed yet in that session, showing the
command, its arguments, its working directory and the environment the agent sets for it. The
answer is "allow once", "allow this command for the session" or "deny"; a denied command is
answered with a JSON-RPC error and never starts. "For the session" covers exactly what was
shown (`Approval`): the same command line in another directory or with another env is asked
again, since either can make an allowed program run another (``HOME`` with a ``.gitconfig``
of the agent's, a directory holding its ``Makefile``). ``terminal_env_allow`` names the unsafe
environment variables (``LD_PRELOAD``...) let through all the same (``EnvPolicy``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from acp_tui.client.tools.roots import show_path
from acp_tui.client.tools.terminal_spawn import EnvPolicy
from acp_tui.protocol.errors import ErrorCode, RpcError

__all__ = [
    "Approval",
    "AskingSession",
    "Origin",
    "TerminalAnswer",
    "TerminalAsk",
    "TerminalMode",
    "TerminalPolicy",
    "refused",
]

TerminalMode = Literal["ask", "allow", "deny"]
"""The ``terminal`` setting."""

TerminalAnswer = Literal["once", "session", "deny"]
"""The user's answer: allow this once, allow it for the session (`Approval`), or deny."""

Origin = Literal["agent", "user"]
"""Who wants the command run: the agent (``terminal/create``) or the user (a ``!`` command)."""


@dataclass(frozen=True, slots=True)
class Approval:
    """What "allow this command for the session" remembers: all a later command must match to
    run without asking. The agent's whole env counts, names and values (in any order), the
    variables the filter drops too: allowing one later must not let it through unasked."""

    command: str
    args: tuple[str, ...]
    cwd: str
    env: frozenset[tuple[str, str]]
    origin: Origin = "agent"
    """Allowing the user's own ``!`` command for the session never lets the agent run it
    unasked, nor the other way round."""


@dataclass(frozen=True, slots=True)
class TerminalAsk:
    """A command the agent wants to run, as the user is asked about it (agent strings, raw:
    whoever shows them sanitises them)."""

    command: str
    args: tuple[str, ...]
    cwd: str
    env: tuple[tuple[str, str], ...]
    """The agent's variables the command gets (after the filter)."""
    dropped_env: tuple[tuple[str, str], ...] = ()
    """The agent's variables the filter drops (the dialog names them)."""
    origin: Origin = "agent"
    """Whose command it is: the agent's, or the user's ``!`` command (the dialog says so)."""

    @classmethod
    def build(
        cls,
        command: str,
        args: Sequence[str],
        cwd: str,
        env: Mapping[str, str],
        policy: EnvPolicy,
        origin: Origin = "agent",
    ) -> TerminalAsk:
        kept, dropped = policy.filter(env)
        dropped_env = tuple((name, env[name]) for name in dropped)
        return cls(command, tuple(args), cwd, tuple(kept.items()), dropped_env, origin)

    @property
    def key(self) -> Approval:
        """What "allow this command for the session" remembers (`Approval`)."""
        env = frozenset((*self.env, *self.dropped_env))
        return Approval(self.command, self.args, self.cwd, env, self.origin)


class AskingSession(Protocol):
    """The session a command is for (a ``LiveSession``)."""

    session_id: str
    allowed_commands: set[Approval]
    """The commands the user allowed for the rest of the session (`TerminalAsk.key`)."""


Approver = Callable[[AskingSession, TerminalAsk], Awaitable[bool]]
"""Decides whether a command may run (asking the user when the setting says so)."""


@dataclass(frozen=True, slots=True)
class TerminalPolicy:
    """How a client treats ``terminal/create``: the env filter, and who approves commands.

    Without ``approve`` every command runs (a bare client, as in tests); the Workspace always
    gives one that follows the ``terminal`` setting.
    """

    env: EnvPolicy = field(default_factory=EnvPolicy)
    approve: Approver | None = None
    asks: Callable[[AskingSession, TerminalAsk], bool] | None = None
    """Whether ``approve`` would ask the user about a command (None: never): one refused at
    once, without asking, is answered before it is served (`acp_tui.client.agent.refusals`)."""


def refused(ask: TerminalAsk, why: str = "the user did not allow it") -> RpcError:
    """The error a command that may not run is answered with."""
    return RpcError(
        ErrorCode.INVALID_REQUEST,
        f"Refused to run {show_path(ask.command)}: {why}",
        {"command": ask.command},
    )
