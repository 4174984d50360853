"""Provides CtrlC, what Ctrl+C does next, and quit_reasons, why Ctrl+Q should ask first.

Ctrl+C is the key people press to stop something, so it does what Claude Code does with it:

- with text selected it copies (the focused prompt or input, or the screen's mouse selection:
  their own Ctrl+C binding runs first and passes the key on when nothing is selected; Textual
  apps hold the mouse, so this is the only way to copy there, and Windows Terminal does the same
  for its own selection);
- while the current tab's turn runs (or a login is under way) it interrupts it, as Esc does;
- with a draft in the focused prompt it clears it (Ctrl+Z, undo, brings it back);
- otherwise, or when it comes within 2 s of the last Ctrl+C, it offers to quit: "Press Ctrl+C
  again to quit" shows for 2 s, and a Ctrl+C meanwhile quits.

The offer is a line, not a dialog: a reflexive Ctrl+C Ctrl+C quits as in Claude Code and Node's
REPL, and a Ctrl+C pressed to stop a turn that is already ending never pops a question over the
chat. A second Ctrl+C during a turn only offers: pressing it twice to stop a stubborn agent
never quits by surprise.

Ctrl+Q quits at once unless that loses something: a turn running in any tab (it is stopped) or
a dialog open (its question goes unanswered). Then it asks, and a second Ctrl+Q answers yes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual.screen import ModalScreen, SystemModalScreen

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from acp_tui.client.workspace.workspace import Workspace

__all__ = ["OFFER", "WINDOW", "CtrlC", "Step", "quit_reasons"]

WINDOW = 2.0
"""Seconds within which a second Ctrl+C offers to quit, and the offer stands."""

OFFER = "Press Ctrl+C again to quit"

Step = Literal["quit", "offer", "interrupt", "clear"]


@dataclass
class CtrlC:
    """What the next Ctrl+C (that nothing copied) does; it remembers the last one."""

    clock: Callable[[], float] = time.monotonic
    last: float | None = None
    """When the last Ctrl+C was pressed."""
    offered_until: float | None = None
    """Until when a Ctrl+C quits (the offer shown)."""

    def press(self, *, turn: bool, draft: bool) -> Step:
        """Ctrl+C was pressed; ``turn``: a turn (or a login) can be interrupted in the current
        tab; ``draft``: the focused prompt holds text."""
        now = self.clock()
        recent = self.last is not None and now - self.last < WINDOW
        self.last = now
        if self.offered_until is not None and now < self.offered_until:
            self.offered_until = None
            return "quit"
        if recent or not (turn or draft):
            self.offered_until = now + WINDOW
            return "offer"
        self.offered_until = None
        return "interrupt" if turn else "clear"


def quit_reasons(app: App[int], workspace: Workspace | None) -> list[str]:
    """What quitting now would lose, in words ([]: nothing, quit at once)."""
    reasons: list[str] = []
    slots = workspace.slots if workspace is not None else []
    for number, slot in enumerate(slots, start=1):
        if slot.busy:
            where = f" in tab {number}" if len(slots) > 1 else ""
            reasons.append(f"A turn is running{where}: it is stopped.")
    if any(is_dialog(screen) for screen in app.screen_stack):
        reasons.append("A dialog is open: what it asks is left unanswered.")
    return reasons


def is_dialog(screen: Screen[object]) -> bool:
    """A dialog of the app's own (the command palette and Textual's other system screens hold
    nothing to lose)."""
    return isinstance(screen, ModalScreen) and not isinstance(screen, SystemModalScreen)
