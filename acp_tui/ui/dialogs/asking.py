"""Provides AskingScreen: a question from the agent, which takes no answer at first.

The agent asks when it likes, so its dialog may appear while the user is typing: for ``GRACE``
seconds it takes no answer at all (keys, clicks, Esc), its buttons disabled, so that keys
meant for the prompt answer nothing. The permission, elicitation and terminal dialogs share it.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen
from textual.widgets import Button

__all__ = ["AskingScreen"]

T = TypeVar("T")


class AskingScreen(ModalScreen[T]):
    """A modal question whose buttons wait out the grace period; ``accepting`` says when."""

    GRACE = 0.5
    """Seconds after the dialog appears during which it takes no answer (keys meant for the
    prompt); a class attribute, so tests can shorten it and wait on ``accepting``."""

    accepting = False
    """Whether the grace period is over: answers are taken from now on."""

    def start_grace(self) -> None:
        """Take answers once ``GRACE`` has passed (call it when the dialog is mounted)."""
        if self.GRACE > 0:
            self.set_timer(self.GRACE, self.accept_answers)
        else:
            self.accept_answers()

    def accept_answers(self) -> None:
        """The grace period is over: enable the buttons and take answers."""
        self.accepting = True
        for button in self.query(Button):
            button.disabled = not self.button_enabled(button)

    def button_enabled(self, button: Button) -> bool:
        """Whether ``button`` may be pressed now (after the grace period)."""
        return True
