"""Provides Interaction: the questions only the user can answer, and Headless, nobody to ask.

The Workspace asks through an Interaction (the app answers with dialogs); a headless command
gives `Headless`, which approves nothing (no permission, no command unless the ``terminal``
setting allows them all), answers no elicitation (``cancel``: nobody saw it, so ``decline``
would be a lie), logs in with nothing and drops no roots.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from acp_tui.client.session.elicitation import CANCELLED
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
)

if TYPE_CHECKING:
    from acp_tui.client.agent.auth_methods import AuthMethodInfo, EnvVarSpec
    from acp_tui.client.session.elicitation import Answer, Elicitation
    from acp_tui.client.tools.terminal_gate import TerminalAnswer, TerminalAsk
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.env_login import EnvAnswer
    from acp_tui.client.workspace.slots import SessionSlot

__all__ = ["Headless", "Interaction", "TerminalRun", "offered_method"]


def offered_method(method: AuthMethodInfo) -> str:
    """A login method for a message: its id, name, and how it logs in when that is not by
    asking the agent."""
    if method.terminal:
        return f"{method.id} ({method.name}, in the terminal: run acp-tui to use it)"
    if method.env_var and method.env_vars:
        return f"{method.id} ({method.name}, type env_var: reads {method.variables})"
    return f"{method.id} ({method.name})"


@dataclass(frozen=True, slots=True)
class TerminalRun:
    """How a command run in the terminal ended: its exit code and the end of its output."""

    code: int
    output: str = ""


class Interaction(Protocol):
    """The questions only the user can answer; the UI implements them."""

    async def ask_permission(
        self, slot: SessionSlot, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome: ...

    async def ask_elicitation(
        self, agent: AgentRuntime, slot: SessionSlot | None, elicitation: Elicitation
    ) -> Answer:
        """Ask a form or URL question; ``slot`` is None for a request-scoped one."""
        ...

    async def choose_auth_method(
        self, agent: AgentRuntime, methods: tuple[AuthMethodInfo, ...], reason: str
    ) -> AuthMethodInfo | None: ...

    async def ask_env_vars(
        self, agent: AgentRuntime, method: AuthMethodInfo, missing: tuple[EnvVarSpec, ...]
    ) -> EnvAnswer | None:
        """The values of an ``env_var`` login's ``missing`` variables (secrets: masked), and
        whether to save them; None when the user cancels."""
        ...

    async def confirm_without_roots(
        self, agent: AgentRuntime, cwd: Path, roots: tuple[Path, ...], reason: str
    ) -> bool: ...

    async def run_terminal_login(
        self, argv: list[str], env: dict[str, str], cwd: Path
    ) -> TerminalRun: ...

    async def confirm_terminal(
        self, slot: SessionSlot, request: TerminalAsk
    ) -> TerminalAnswer | None: ...


class Headless:
    """An Interaction with nobody to ask: nothing is approved, no roots dropped, and a login
    only with the agent-type method named beforehand (``acp-tui sessions --auth METHOD_ID``)."""

    def __init__(self, auth: str | None = None) -> None:
        self.auth = auth

    async def ask_permission(
        self, slot: SessionSlot, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        return CancelledPermissionOutcome()

    async def ask_elicitation(
        self, agent: AgentRuntime, slot: SessionSlot | None, elicitation: Elicitation
    ) -> Answer:
        return CANCELLED

    async def choose_auth_method(
        self, agent: AgentRuntime, methods: tuple[AuthMethodInfo, ...], reason: str
    ) -> AuthMethodInfo | None:
        """The method named by ``auth``; else an error naming the methods and the flag.

        An ``env_var`` method is taken when the agent has its values (acp-tui's environment,
        the agent's configured env): nobody is there to type them."""
        from acp_tui.client.errors import AgentError
        from acp_tui.client.workspace.env_login import missing_vars

        offered = ", ".join(offered_method(m) for m in methods if m.usable)
        name = agent.display_name
        if self.auth is None:
            raise AgentError(
                f"{name} needs a login ({reason}); pass --auth METHOD_ID, one of: {offered}"
            )
        chosen = next((m for m in methods if m.id == self.auth), None)
        if chosen is None:
            raise AgentError(f"{name} offers no login {self.auth!r}; it offers: {offered}")
        if chosen.terminal:
            raise AgentError(
                f"{self.auth!r} is a login of type 'terminal', which {name} runs in a terminal: "
                "run acp-tui once to log in that way, or pass --auth with another method"
            )
        if not chosen.usable:
            raise AgentError(
                f"{self.auth!r} is a login of type {chosen.kind!r}, which acp-tui cannot run; "
                f"pass --auth with another method: {offered}"
            )
        missing = missing_vars(agent, chosen)
        if missing:
            names = " and ".join(var.name for var in missing)
            raise AgentError(
                f"{self.auth!r} is a login of type 'env_var': {name} reads {names}, which is "
                "not set; set it in the environment (or in the agent's env in the config) "
                "and try again"
            )
        return chosen

    async def ask_env_vars(
        self, agent: AgentRuntime, method: AuthMethodInfo, missing: tuple[EnvVarSpec, ...]
    ) -> EnvAnswer | None:
        return None  # nobody to type them: `choose_auth_method` said which to set

    async def confirm_without_roots(
        self, agent: AgentRuntime, cwd: Path, roots: tuple[Path, ...], reason: str
    ) -> bool:
        return False

    async def confirm_terminal(
        self, slot: SessionSlot, request: TerminalAsk
    ) -> TerminalAnswer | None:
        """Nobody to ask: with ``terminal = "ask"`` no command runs."""
        return "deny"

    async def run_terminal_login(
        self, argv: list[str], env: dict[str, str], cwd: Path
    ) -> TerminalRun:
        return TerminalRun(127, "acp-tui cannot run a terminal login without its window")
