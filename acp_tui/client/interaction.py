"""Provides Interaction: the questions only the user can answer, and Headless, nobody to ask.

The Workspace asks through an Interaction (the app answers with dialogs); a headless command
gives `Headless`, which approves nothing, answers no elicitation (``cancel``: nobody saw it, so
``decline`` would be a lie), logs in with nothing and drops no roots.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from acp_tui.client.elicitation import CANCELLED
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
)

if TYPE_CHECKING:
    from acp_tui.client.capabilities import AuthMethodInfo
    from acp_tui.client.elicitation import Answer, Elicitation
    from acp_tui.client.runtime import AgentRuntime
    from acp_tui.client.slots import SessionSlot

__all__ = ["Headless", "Interaction"]


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

    async def run_terminal_login(self, argv: list[str], env: dict[str, str], cwd: Path) -> int: ...


class Headless:
    """An Interaction with nobody to ask: nothing is approved, no login, no roots dropped."""

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
        return None

    async def confirm_without_roots(
        self, agent: AgentRuntime, cwd: Path, roots: tuple[Path, ...], reason: str
    ) -> bool:
        return False

    async def run_terminal_login(self, argv: list[str], env: dict[str, str], cwd: Path) -> int:
        return 127
