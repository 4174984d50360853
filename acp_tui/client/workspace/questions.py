"""Provides Questions, the part of the Workspace that asks the user the agent's questions:
permission requests, elicitations and the agent's commands (the ``terminal`` setting).

They are asked one at a time, in the order they came (`QuestionQueue`), each over the tab of
its session; a question of a session in the background marks its tab and waits until the user
comes to it, so it never blocks the questions of the tab shown. The interaction only shows the
question and returns the answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from acp_tui.client.session.elicitation import (
    ACCEPTED,
    CANCELLED,
    Answer,
    Elicitation,
    ElicitationHandler,
)
from acp_tui.client.session.live_session import refuse_permission
from acp_tui.client.session.question_queue import PermissionQueue
from acp_tui.client.tools.terminal_gate import AskingSession, TerminalAsk, TerminalPolicy
from acp_tui.client.tools.terminal_spawn import EnvPolicy
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
)

if TYPE_CHECKING:
    from acp_tui.client.session.live_session import LiveSession, PermissionHandler
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.interaction import Interaction
    from acp_tui.client.workspace.slots import SessionSlot

__all__ = ["Questions"]

T = TypeVar("T")


class Questions:
    """The handlers an agent's questions go through (``ws.questions``).

    The user is asked through ``interaction``; which tab a question belongs to, and whether
    it is shown, comes from ``board``.
    """

    def __init__(self, board: Board, interaction: Interaction) -> None:
        self.board = board
        self.interaction = interaction
        self.permissions = PermissionQueue(refuse_permission)
        """Every agent's questions (permissions, elicitations, commands), asked one at a time,
        in order."""

    def permission_handler(self, agent: AgentRuntime) -> PermissionHandler:
        """Ask the user, one question at a time; a session in the background is marked and
        asked once the user comes to it (it never blocks the questions of the one shown)."""

        async def ask(
            live: LiveSession, request: RequestPermissionRequest
        ) -> RequestPermissionOutcome:
            slot = self.board.slot_showing(agent, live.session_id)
            if slot is None:
                return CancelledPermissionOutcome()
            return await self._ask_in_turn(
                slot, lambda: self.interaction.ask_permission(slot, request)
            )

        return ask

    def elicitation_handler(self, agent: AgentRuntime) -> ElicitationHandler:
        """Elicitations wait their turn with the permission requests; a session-scoped one is
        asked over its tab (none shows it: cancelled), a request-scoped one over any tab."""

        async def ask(elicitation: Elicitation) -> Answer:
            slot = None
            if elicitation.session_id is not None:
                slot = self.board.slot_showing(agent, elicitation.session_id)
                if slot is None:
                    return CANCELLED
                self.board.want_attention(slot, "permission")

            async def ask_user() -> Answer:
                if elicitation.completed.is_set():  # done while it waited: nothing to ask
                    return ACCEPTED
                if slot is not None:
                    self.board.focus(slot)
                return await self.interaction.ask_elicitation(agent, slot, elicitation)

            try:
                return await self.permissions.turn(ask_user)
            finally:
                if slot is not None and slot.attention == "permission":
                    self.board.clear_attention(slot)

        return ask

    def terminal_policy(self, agent: AgentRuntime) -> TerminalPolicy:
        """The agent's commands run as the ``terminal`` setting says (asked like permission)."""
        settings = agent.launch.settings
        env = EnvPolicy(allow=frozenset(settings.terminal_env_allow))

        async def approve(live: AskingSession, ask: TerminalAsk) -> bool:
            mode = settings.terminal
            if mode != "ask" or ask.key in live.allowed_commands:
                return mode != "deny"
            slot = self.board.slot_showing(agent, live.session_id)
            if slot is None:
                return False
            answer = await self._ask_in_turn(
                slot, lambda: self.interaction.confirm_terminal(slot, ask)
            )
            if answer == "session":
                live.allowed_commands.add(ask.key)
            return answer in ("once", "session")

        return TerminalPolicy(env, approve)

    async def _ask_in_turn(self, slot: SessionSlot, question: Callable[[], Awaitable[T]]) -> T:
        """Ask once the slot is shown (marked meanwhile), one question at a time, over its
        tab (the user may have gone to another while it waited for its turn)."""

        def over_its_tab() -> Awaitable[T]:
            self.board.focus(slot)
            return question()

        try:
            while slot is not self.board.current:
                self.board.want_attention(slot, "permission")
                await self.board.focus_changed()
            return await self.permissions.turn(over_its_tab)
        finally:
            if slot.attention == "permission":
                self.board.clear_attention(slot)
