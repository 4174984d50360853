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
    from acp_tui.client.agent.capabilities import AuthMethodInfo
    from acp_tui.client.session.elicitation import Answer, Elicitation
    from acp_tui.client.tools.terminal_gate import TerminalAnswer, TerminalAsk
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import SessionSlot

__all__ = ["Headless", "Interaction", "TerminalRun"]


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
        """The method named by ``auth``; else an error naming the methods and the flag."""
        from acp_tui.client.errors import AgentError

        usable = [m for m in methods if m.usable and not m.terminal]
        offered = ", ".join(
            f"{m.id} ({m.name}{', in the terminal: run acp-tui to use it' if m.terminal else ''})"
            for m in methods
            if m.usable
        )
        name = agent.display_name
        if self.auth is None:
            raise AgentError(
                f"{name} needs a login ({reason}); pass --auth METHOD_ID, one of: {offered}"
            )
        chosen = next((m for m in methods if m.id == self.auth), None)
        if chosen is None:
            raise AgentError(f"{name} offers no login {self.auth!r}; it offers: {offered}")
        if chosen not in usable:
            raise AgentError(
                f"{self.auth!r} is a login {name} runs in a terminal: run acp-tui once to log "
                "in that way, or pass --auth with another method"
            )
        return chosen

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
