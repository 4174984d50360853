"""Provides CallClock: the calls that wait for the agent, each bounded in time and timed.

Nothing waits for an agent forever. `session/new`, `session/load`, `session/resume`,
`session/fork`, `session/list` and `authenticate` (v2 `auth/login`) give up after the
``request_timeout`` setting: the request is cancelled (the connection sends
``$/cancel_request``) and :class:`RequestTimedOut` says which call it was. A session being
restored whose replay is still arriving is not stuck: each of its updates moves the deadline on.

While such calls wait, :meth:`CallClock.longest` says which one has waited longest and since
when, so that the status line can count the seconds.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TypeVar

import anyio

from acp_tui.client.errors import RequestTimedOut
from acp_tui.client.listeners import Listeners
from acp_tui.protocol.updates import SessionUpdate

__all__ = ["LIST_CALLS", "SETUP_CALLS", "CallClock", "Waiting"]

T = TypeVar("T")

SETUP_CALLS = frozenset(
    {"session/new", "session/load", "session/resume", "session/fork", "authenticate", "auth/login"}
)
"""The timed calls a tab waits for while its session opens (or its agent logs in)."""
LIST_CALLS = frozenset({"session/list"})
"""The timed call a session browser waits for."""

PUSH_EVERY = 1.0
"""A replay moves its deadline at most once in this many seconds (it may bring 50,000 updates)."""


@dataclass(eq=False, slots=True)
class Waiting:
    """A call waiting for the agent: its method, and since when (``time.monotonic()``)."""

    method: str
    since: float

    def seconds(self, now: float | None = None) -> int:
        """Whole seconds waited so far."""
        return int((time.monotonic() if now is None else now) - self.since)


class CallClock:
    """Runs the calls that must not wait forever, ``timeout`` seconds at most each."""

    def __init__(self, timeout: float, updates: Listeners[[str, SessionUpdate]]) -> None:
        self.timeout = timeout
        self.updates = updates
        """Every session update (a replay in progress moves its restore's deadline)."""
        self.waiting: list[Waiting] = []
        """The calls waiting now, oldest first."""

    async def run(
        self, method: str, call: Callable[[], Awaitable[T]], *, watch: str | None = None
    ) -> T:
        """``call()`` (the request ``method``), cancelled after ``timeout`` seconds without an
        answer; ``watch``: a session whose updates show the agent is still at work on it.

        Raises :class:`RequestTimedOut` when the time is up.
        """
        waiting = Waiting(method, time.monotonic())
        self.waiting.append(waiting)
        unsubscribe: Callable[[], None] | None = None
        timeout = self.timeout
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
                if watch is not None:
                    unsubscribe = self.updates.subscribe(_mover(scope, watch, timeout))
                return await call()
        finally:
            self.waiting.remove(waiting)
            if unsubscribe is not None:
                unsubscribe()
            if scope.cancelled_caught:
                raise RequestTimedOut(method, timeout)

    def longest(self, methods: Collection[str]) -> Waiting | None:
        """The call of one of ``methods`` that has waited longest, if any waits."""
        return next((w for w in self.waiting if w.method in methods), None)


def _mover(
    scope: anyio.CancelScope, session_id: str, timeout: float
) -> Callable[[str, SessionUpdate], None]:
    """A listener that moves ``scope``'s deadline on while updates of ``session_id`` arrive."""
    pushed = anyio.current_time()

    def moved(updated: str, _update: SessionUpdate) -> None:
        nonlocal pushed
        if updated != session_id:
            return
        now = anyio.current_time()
        if now - pushed >= PUSH_EVERY:
            pushed = now
            scope.deadline = now + timeout

    return moved
