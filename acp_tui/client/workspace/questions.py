"""Provides Questions, the part of the Workspace that asks the user the agent's questions:
permission requests, elicitations and the agent's commands (the ``terminal`` setting).

They are asked one at a time, in the order they came (`QuestionQueue`), each over the tab of
its session; a question of a session in the background marks its tab and waits until the user
comes to it, so it never blocks the questions of the tab shown. The interaction only shows the
question and returns the answer.

An agent may ask by the thousand (one Esc each, before). The user may refuse every question of
an agent at once (``refuse_all``: those waiting, and those it asks until its turns end), and
past ``LIMIT`` questions of one agent waiting at once, the rest are refused as they come; each
refusal is counted in one note in the session's transcript, and said once in passing. A refusal
is a permission's reject option (else cancelled), a form's decline, a command's denial.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

from acp_tui.client.session.elicitation import (
    ACCEPTED,
    CANCELLED,
    DECLINED,
    Answer,
    Elicitation,
    ElicitationHandler,
)
from acp_tui.client.session.live_session import permission_refusal, refuse_permission
from acp_tui.client.session.question_queue import PermissionQueue
from acp_tui.client.tools.terminal_gate import AskingSession, TerminalAsk, TerminalPolicy
from acp_tui.client.tools.terminal_spawn import EnvPolicy
from acp_tui.client.workspace.events import Notice, TurnChanged
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
)

if TYPE_CHECKING:
    from acp_tui.client.agent.refusals import QuestionGate
    from acp_tui.client.session.live_session import LiveSession, PermissionHandler
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.interaction import Interaction
    from acp_tui.client.workspace.slots import SessionSlot

__all__ = ["Questions"]

T = TypeVar("T")

LIMIT = 50
"""Questions of one agent waiting at once (the one asked included) before the rest are refused
as they come."""


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
        self.refusing: set[AgentRuntime] = set()
        """Agents whose questions are all refused (``refuse_all``) until their turns end."""
        self.refused: dict[AgentRuntime, int] = {}
        """How many questions of each agent were refused without asking (never reset)."""
        self._asking: dict[AgentRuntime, set[anyio.CancelScope]] = {}
        """The questions of each agent not answered yet: cancelling one refuses it."""
        self._last_why: dict[AgentRuntime, str] = {}
        board.on(TurnChanged, self._turn_changed)

    def refuse_all(self, agent: AgentRuntime) -> None:
        """Refuse every question of ``agent`` waiting, and those it asks until none of its
        tabs has a turn running."""
        self.refusing.add(agent)
        for scope in list(self._asking.get(agent, ())):
            scope.cancel()

    def _in_turn(self, agent: AgentRuntime) -> bool:
        return any(slot.transcript.state != "idle" for slot in self.board.slots_of(agent))

    def _turn_changed(self, event: TurnChanged) -> None:
        """The agent's turns are over: its questions are asked again."""
        agent = event.slot.agent
        if agent in self.refusing and not self._in_turn(agent):
            self.refusing.discard(agent)

    def _refuse_now(self, agent: AgentRuntime) -> str | None:
        """Why a new question of ``agent`` is refused without asking (None: it is asked)."""
        if agent in self.refusing:
            if self._in_turn(agent):
                return "you refused all its questions"
            self.refusing.discard(agent)
        if len(self._asking.get(agent, ())) >= LIMIT:
            return f"it asked more than {LIMIT} at once"
        return None

    async def _guarded(
        self,
        agent: AgentRuntime,
        slot: SessionSlot | None,
        refusal: Callable[[], T],
        question: Callable[[], Awaitable[T]],
    ) -> T:
        """``question()``, unless the agent's questions are refused (now or while it waits):
        then ``refusal()``, counted in a note."""
        why = self._refuse_now(agent)
        if why is None:
            scope = anyio.CancelScope()
            asking = self._asking.setdefault(agent, set())
            asking.add(scope)
            try:
                with scope:
                    return await question()
            finally:
                asking.discard(scope)
            why = "you refused all its questions"
        self._count_refusal(agent, slot, why)
        return refusal()

    def _count_refusal(self, agent: AgentRuntime, slot: SessionSlot | None, why: str) -> None:
        count = self.refused[agent] = self.refused.get(agent, 0) + 1
        name = agent.display_name
        text = f"Refused {count:,} {'question' if count == 1 else 'questions'} of {name}: {why}."
        for shown in [slot] if slot is not None else self.board.slots_of(agent):
            shown.transcript.notices.tally("refused", text, "warning")
        if count == 1 or why != self._last_why.get(agent):
            self._last_why[agent] = why
            self.board.emit(Notice(f"Refusing the questions of {name}: {why}.", "warning"))

    def gate(self, agent: AgentRuntime) -> QuestionGate:
        """Which questions of ``agent`` are refused without asking (`refuse_at_once` answers
        them before they are served, counted here as if they had been)."""
        return _Gate(self, agent)

    def permission_handler(self, agent: AgentRuntime) -> PermissionHandler:
        """Ask the user, one question at a time; a session in the background is marked and
        asked once the user comes to it (it never blocks the questions of the one shown)."""

        async def ask(
            live: LiveSession, request: RequestPermissionRequest
        ) -> RequestPermissionOutcome:
            slot = self.board.slot_showing(agent, live.session_id)
            if slot is None:
                return CancelledPermissionOutcome()
            return await self._guarded(
                agent,
                slot,
                lambda: permission_refusal(request),
                lambda: self._ask_in_turn(
                    slot, lambda: self.interaction.ask_permission(slot, request)
                ),
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
                return await self._guarded(
                    agent, slot, lambda: DECLINED, lambda: self.permissions.turn(ask_user)
                )
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
            answer = await self._guarded(
                agent,
                slot,
                lambda: "deny",
                lambda: self._ask_in_turn(
                    slot, lambda: self.interaction.confirm_terminal(slot, ask)
                ),
            )
            if answer == "session":
                live.allowed_commands.add(ask.key)
            return answer in ("once", "session")

        def asks(live: AskingSession, ask: TerminalAsk) -> bool:
            return settings.terminal == "ask" and ask.key not in live.allowed_commands

        return TerminalPolicy(env, approve, asks)

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


class _Gate:
    """`Questions.gate`: the refusals of one agent's questions, by session."""

    def __init__(self, questions: Questions, agent: AgentRuntime) -> None:
        self.questions = questions
        self.agent = agent

    def refusing(self, session_id: str) -> str | None:
        questions = self.questions
        if questions.board.slot_showing(self.agent, session_id) is None:
            return None  # asked of no tab: served as usual (answered cancelled)
        return questions._refuse_now(self.agent)

    def refused(self, session_id: str, why: str) -> None:
        slot = self.questions.board.slot_showing(self.agent, session_id)
        self.questions._count_refusal(self.agent, slot, why)
