"""Provides KEYBOARD: what the terminal's input thread knows of the keyboard, for the dialogs
that take no answer until it has been quiet (`acp_tui.ui.dialogs.asking`).

The event loop handles a key some time after the input thread reads it, and on a busy machine
the input thread itself may not run for a while, the keys typed meanwhile waiting unread in the
terminal. So the thread notes when it read the last key (the driver, `acp_tui.ui.driver`) and
when it last found nothing left to read (the parser, `acp_tui.ui.terminal_keys`): the keyboard
is known to have been quiet only between those two times. A wait that brought nothing is not
taken at its word: one cut short by a signal after its time ran out (the app stopped and
continued, as a loaded machine or a debugger leaves it) returns empty without looking, the keys
typed meanwhile unread; the terminal is asked again.

One terminal per process, so one clock. Its times are `time.monotonic` seconds; 0.0 means never,
or no terminal read by acp-tui's parser (Pilot and the web driver hand keys to the app, which
counts a key as it handles it).
"""

from __future__ import annotations

import select
import time

__all__ = ["KEYBOARD", "Keyboard"]


class Keyboard:
    """When the input thread last read a key or a paste, and last found nothing to read."""

    __slots__ = ("clear_at", "key_read_at", "terminal")

    def __init__(self) -> None:
        self.key_read_at = 0.0
        self.clear_at = 0.0
        self.terminal: int | None = None
        """The file descriptor the input thread reads (set by the driver)."""

    def found_nothing(self) -> None:
        """The input thread's wait brought nothing: the keyboard is clear now, unless bytes
        wait unread in the terminal all the same."""
        if self.terminal is not None:
            try:
                unread, _, _ = select.select([self.terminal], [], [], 0)
            except (OSError, ValueError):  # no terminal to read: nothing waits in it
                unread = []
            if unread:
                return
        self.clear_at = time.monotonic()

    def quiet_for(self, since: float, now: float) -> float:
        """How long the keyboard is known to have been quiet at ``now``, no key having come
        after ``since`` (a key the app handled itself): up to the last time the input thread
        found nothing unread, when a terminal is read; up to ``now`` otherwise."""
        since = max(since, self.key_read_at)
        until = min(now, self.clear_at) if self.clear_at else now
        return until - since


KEYBOARD = Keyboard()
