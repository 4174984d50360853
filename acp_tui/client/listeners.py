"""Provides Listeners: an ordered set of callbacks where one failing listener harms no other.

Updates reach the transcript recorder, the views and the Workspace from the protocol's read
loop; a view that raises must not stop the recording of that update nor the other views. Every
listener is called in turn and an exception is logged, never propagated. ``subscribe`` returns
the function that unsubscribes; ``first=True`` puts a listener before all others (the recorder).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, ParamSpec

__all__ = ["Listeners"]

log = logging.getLogger(__name__)

P = ParamSpec("P")


class Listeners(Generic[P]):
    """Callbacks taking ``P``, called in order, each isolated from the others' failures."""

    def __init__(self, name: str = "listener") -> None:
        self.name = name
        self._listeners: list[Callable[P, object]] = []
        self.failures = 0
        """How many listener calls raised (for tests and diagnostics)."""

    def subscribe(
        self, listener: Callable[P, object], *, first: bool = False
    ) -> Callable[[], None]:
        """Call ``listener`` on every emit (``first``: before the others); returns the
        function that unsubscribes it (calling that twice is harmless)."""
        if first:
            self._listeners.insert(0, listener)
        else:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def __len__(self) -> int:
        return len(self._listeners)

    def __contains__(self, listener: object) -> bool:
        return listener in self._listeners

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Call every listener; one that raises is logged and the others still run."""
        listeners = self._listeners
        if not listeners:
            return
        for listener in tuple(listeners) if len(listeners) > 1 else listeners[:1]:
            try:
                listener(*args, **kwargs)
            except Exception:
                self.failures += 1
                log.exception("%s %r failed", self.name, listener)
