"""Provides CallClock: the calls that wait for the agent, each bounded in time and timed.

Nothing waits for an agent forever. `session/new`, `session/load`, `session/resume`,
`session/fork`, `session/list` and `authenticate` (v2 `auth/login`) give up after the
``request_timeout`` setting: the request is cancelled (the connection sends
``$/cancel_request``) and :class:`RequestTimedOut` says which call it was. A session being
restored whose replay is still arriving is not stuck: its updates move the deadline on. The user
may stop waiting sooner (:meth:`CallClock.cancel`, Esc): :class:`RequestCancelled` then.

While such calls wait, :meth:`CallClock.longest` says which one has waited longest and since
when, so that the status line and the session browser can count the seconds.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio

from acp_tui.client.errors import RequestCancelled, RequestTimedOut
from acp_tui.client.listeners import Listeners
from acp_tui.protocol.updates import SessionUpdate

__all__ = ["LIST_CALLS", "SETUP_CALLS", "TIMED_CALLS", "CallClock", "Waiting"]

T = TypeVar("T")

SETUP_CALLS = frozenset(
    {"session/new", "session/load", "session/resume", "session/fork", "authenticate", "auth/login"}
)
"""The timed calls a tab waits for while its session opens (or its agent logs in)."""
LIST_CALLS = frozenset({"session/list"})
"""The timed call a session browser waits for."""
TIMED_CALLS = SETUP_CALLS | LIST_CALLS
REPLAYS = frozenset({"session/load", "session/resume"})
"""The calls during which the agent may replay the session named in their params."""

PUSH_EVERY = 1.0
"""A replay moves its deadline at most once in this many seconds (it may bring 50,000 updates)."""


@dataclass(eq=False, slots=True)
class Waiting:
    """A call waiting for the agent: its method, and since when (``time.monotonic()``)."""

    method: str
    since: float
    scope: anyio.CancelScope | None = None
    cancelled: bool = False
    """The user stopped waiting (not the clock)."""

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
        """The timed calls waiting now, oldest first."""

    async def run(self, method: str, params: Any, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, the request ``method`` with ``params``: when it is one of the
        ``TIMED_CALLS``, cancelled after ``timeout`` seconds without an answer (a replay of the
        session a restore names moves that on) or when the user cancels it.

        Raises :class:`RequestTimedOut` or :class:`RequestCancelled` then.
        """
        if method not in TIMED_CALLS:
            return await call()
        watch = getattr(params, "session_id", None) if method in REPLAYS else None
        waiting = Waiting(method, time.monotonic())
        self.waiting.append(waiting)
        unsubscribe: Callable[[], None] | None = None
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + self.timeout) as scope:
                waiting.scope = scope
                if isinstance(watch, str):
                    unsubscribe = self.updates.subscribe(_mover(scope, watch, self.timeout))
                return await call()
        finally:
            self.waiting.remove(waiting)
            if unsubscribe is not None:
                unsubscribe()
        # Only a cancellation of this scope (its deadline, or `cancel`) ends up here.
        if waiting.cancelled:
            raise RequestCancelled(method)
        raise RequestTimedOut(method, self.timeout)

    def longest(self, methods: Collection[str]) -> Waiting | None:
        """The call of one of ``methods`` that has waited longest, if any waits."""
        return next((w for w in self.waiting if w.method in methods), None)

    def cancel(self, methods: Collection[str]) -> bool:
        """Stop waiting for the calls of ``methods`` (the user pressed Esc); False: none waits."""
        found = False
        for waiting in self.waiting:
            if waiting.method in methods and waiting.scope is not None:
                waiting.cancelled = found = True
                waiting.scope.cancel()
        return found


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
