"""Provides PlainToasts: an App whose toasts are plain, sanitised text, and never a flood.

Toasts quote the agent (its name, its errors), and Textual parses a toast's message as markup
unless each caller remembers ``markup=False``: an agent's ``[@click=app.quit]`` would then be a
live action in a toast, and its ``[/]`` a crash. Here no call site can forget it, whether it
calls ``App.notify`` or ``Widget.notify``.

An agent may also send notices by the thousand: each toast is a widget (thousands froze the app
for minutes), and a pile of them covers the chat. At most a few are on screen, filling at most
about a third of it; while the screen is full the others are counted, and one toast says how
many once there is room ("12 more notices ..."). A toast costs nothing while it is counted.
"""

from __future__ import annotations

import time
from collections import deque

from textual.app import App
from textual.notifications import SeverityLevel
from textual.timer import Timer

from acp_tui.ui.plain_text import NAME_LIMIT, TEXT_LIMIT, sanitize

ROWS_PER_TOAST = 4
"""The rows a one-line toast takes (its padding and margin): the limit is a third of the screen
divided by this, at least one."""
DEFAULT_TIMEOUT = 5.0
_RANK = {"information": 0, "warning": 1, "error": 2}


class PlainToasts(App[int]):
    """Every toast is literal text (sanitised, clipped, never parsed as markup), and only a few
    are on screen at once (the rest counted in one)."""

    _shown: deque[float] | None = None
    """When each toast on screen goes away (monotonic seconds)."""
    _held = 0
    _held_severity: SeverityLevel = "information"
    _held_timer: Timer | None = None

    def toast_limit(self) -> int:
        """How many toasts may be on screen: those that fit in a third of it."""
        return max(1, self.size.height // 3 // ROWS_PER_TOAST)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a toast, or count it while the screen has its share of them; ``markup`` is
        ignored (always off)."""
        if self._room() <= 0:
            self._held += 1
            if _RANK.get(severity, 0) > _RANK.get(self._held_severity, 0):
                self._held_severity = severity
            self._show_held_later()
            return
        self._toast(message, title, severity, timeout)

    def say_now(self, message: str, timeout: float) -> None:
        """A toast shown even while the screen has its share of them: the answer to a key just
        pressed ("Press Ctrl+C again to quit"), which a count would not tell."""
        self._room()  # the toasts gone make room
        self._toast(message, "", "information", timeout)

    def _room(self) -> int:
        shown = self._shown
        if shown is None:
            shown = self._shown = deque()
        now = time.monotonic()
        while shown and shown[0] <= now:
            shown.popleft()
        return self.toast_limit() - len(shown)

    def _toast(
        self, message: str, title: str, severity: SeverityLevel, timeout: float | None
    ) -> None:
        seconds = DEFAULT_TIMEOUT if timeout is None else timeout
        assert self._shown is not None
        self._shown.append(time.monotonic() + seconds)
        message, title = sanitize(message, TEXT_LIMIT), sanitize(title, NAME_LIMIT)
        super().notify(message, title=title, severity=severity, timeout=seconds, markup=False)

    def _show_held_later(self) -> None:
        """Say how many toasts were counted, once a toast on screen has gone."""
        if self._held_timer is not None or not self._shown:
            return
        wait = max(0.05, self._shown[0] - time.monotonic())
        self._held_timer = self.set_timer(wait, self._show_held)

    def _show_held(self) -> None:
        self._held_timer = None
        if not self._held:
            return
        if self._room() <= 0:
            self._show_held_later()
            return
        count, severity = self._held, self._held_severity
        self._held, self._held_severity = 0, "information"
        what = "1 more notice" if count == 1 else f"{count:,} more notices"
        self._toast(f"{what} came meanwhile (not shown).", "", severity, None)

    def action_help_quit(self) -> None:
        """Ctrl+C outside a text field: say how to quit (Textual's own hint uses markup)."""
        keys = [k for k, b in self.active_bindings.items() if b.binding.action == "quit"]
        if keys:
            self.notify(f"Press {keys[0]} to quit the app", title="Do you want to quit?")
