"""Provides Paced: a redraw asked for by the thousand, done once for all of them, at a bounded rate.

A widget that shows what the agent's updates say (the session's pickers, its usage) used to be
redrawn once per batch of updates. While an agent floods the client, the connection lets the app
run every few milliseconds (so that keys and frames are not held back), and a batch is a handful
of updates: the redraws, each a layout of the screen, became most of the flood's cost. A
``Paced`` redraw runs once for every call made while it waits, soon after the first one (once
the messages already waiting are handled, like ``call_later``), and never more often than
``EVERY`` seconds: the first change after a quiet moment shows at once, a flood of them a few
times a second, the last one always.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.message_pump import MessagePump

__all__ = ["EVERY", "Paced"]

EVERY = 0.05
"""Seconds between two runs of a paced redraw, at least."""
_clock = time.monotonic


class Paced:
    """``callback`` run once for any number of calls, soon, at most once per ``every``."""

    def __init__(
        self, owner: MessagePump, callback: Callable[[], None], every: float = EVERY
    ) -> None:
        self._owner = owner
        self._callback = callback
        self._every = every
        self._last = float("-inf")
        self.waiting = False
        """A run is scheduled (calls made meanwhile are part of it)."""

    def __call__(self) -> None:
        if self.waiting:
            return
        self.waiting = True
        wait = self._last + self._every - _clock()
        if wait > 0:
            self._owner.set_timer(wait, self._run)
        else:
            self._owner.call_later(self._run)

    def _run(self) -> None:
        self.waiting = False
        self._last = _clock()
        self._callback()
