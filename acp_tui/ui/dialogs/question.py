"""Provides AgentQuestion: an agent's question (permission, form, command) that offers to refuse
every question of the agent at once.

An agent may ask by the thousand; answering each took one Esc each. ``REFUSE_ALL_KEY`` answers
this one with its refusal (a reject option, a decline, a denial) and calls ``on_refuse_all``,
through which the Workspace refuses the others (``Questions.refuse_all``). Like every answer, it
is taken only once the keyboard has been quiet (`AskingScreen`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import ClassVar, TypeVar

from textual.binding import Binding

from acp_tui.ui.dialogs.asking import AskingScreen

__all__ = ["AgentQuestion", "waiting_text"]

T = TypeVar("T")

REFUSE_ALL_KEY = "ctrl+r"


def waiting_text(waiting: int) -> str:
    """The note of the questions waiting behind this one (and how to refuse them all)."""
    plural = "question waits" if waiting == 1 else "questions wait"
    return f"{waiting:,} more {plural} after this one. Ctrl+R refuses all of this agent's."


class AgentQuestion(AskingScreen[T]):
    """A question of the agent; subclasses say what refusing it answers (``refusal``)."""

    BINDINGS = [
        Binding(REFUSE_ALL_KEY, "refuse_all", "Refuse all", priority=True),
    ]

    REFUSE_ALL_KEY: ClassVar[str] = REFUSE_ALL_KEY

    on_refuse_all: Callable[[], None] | None = None
    """What refuses the agent's other questions (set by the interaction that shows it)."""

    @abstractmethod
    def refusal(self) -> T:
        """The answer that refuses this question (each kind of question says its own)."""

    def action_refuse_all(self) -> None:
        """Refuse this question and every other of the agent."""
        if not self.accepting or self.answered:
            return
        if self.on_refuse_all is not None:
            self.on_refuse_all()
        self.answer(self.refusal())
