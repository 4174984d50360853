"""Provides QuestionQueue: the agents' questions for the user, asked one at a time, in order.

Agents may send many ``session/request_permission`` and ``elicitation/create`` requests at once
(several sessions, or one agent flooding). The user answers one question at a time, so the
queue runs one question (the UI's dialog) at a time across all sessions and both kinds, first
come first served. A question cancelled while it waits (the agent's ``$/cancel_request``, or the
user's ``session/cancel`` through ``LiveSession.cancel_pending_permissions``) simply leaves the
queue; one cancelled while it is being asked is cancelled itself, and its dialog closes. UI-free:
listeners are told when the number of waiting questions changes. (``PermissionQueue`` is its
older name.)
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

if TYPE_CHECKING:
    from acp_tui.client.session.live_session import LiveSession, PermissionHandler
    from acp_tui.protocol.client_methods import RequestPermissionOutcome, RequestPermissionRequest

__all__ = ["PermissionQueue", "QuestionQueue"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class QuestionQueue:
    """Runs one question at a time, in the order they came (permissions: ``handler``)."""

    def __init__(self, handler: PermissionHandler) -> None:
        self.handler = handler
        self._turns: deque[anyio.Event] = deque()
        """One event per question not yet answered; the first is the one being asked."""
        self._listeners: list[Callable[[], None]] = []

    @property
    def pending(self) -> int:
        """Questions not answered yet, the one being asked included."""
        return len(self._turns)

    @property
    def waiting(self) -> int:
        """Questions waiting behind the one being asked."""
        return max(len(self._turns) - 1, 0)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` whenever a question joins or leaves the queue; returns unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def ask(
        self,
        session: LiveSession,
        request: RequestPermissionRequest,
        handler: PermissionHandler | None = None,
    ) -> RequestPermissionOutcome:
        """Wait for this permission request's turn, then run ``handler`` (default: the queue's
        own). With the default handler this is a `PermissionHandler` itself."""
        return await self.turn(lambda: (handler or self.handler)(session, request))

    async def turn(self, question: Callable[[], Awaitable[T]]) -> T:
        """Wait for the turn of this question, then ask it (``question()``)."""
        turn = anyio.Event()
        self._turns.append(turn)
        if len(self._turns) == 1:
            turn.set()
        self._changed()
        try:
            await turn.wait()
            return await question()
        finally:
            was_first = self._turns[0] is turn
            self._turns.remove(turn)
            if was_first and self._turns:
                self._turns[0].set()
            self._changed()

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # one failing listener must not stop the queue
                log.exception("question queue listener failed")


PermissionQueue = QuestionQueue
