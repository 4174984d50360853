"""Provides ContextBar: what goes with the next message besides its text, above the prompt.

Today that is the output of the user's ``!`` commands (`acp_tui.client.workspace.shell`): one
row each, with the command, its size and how it ended. Backspace in an empty prompt takes the
last one off (the prompt asks for it); in the bar, which a click focuses, Delete or ``x`` takes
off the highlighted one and Esc goes back to the prompt. Hidden while nothing is attached. The
bar only shows and asks: whoever owns the context handles `RemoveRequested`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.ui.plain_text import LABEL_LIMIT, sanitize

__all__ = ["ContextBar"]

HEADER = "📎 goes with your next message · Backspace in the empty prompt takes the last off"


class ContextBar(OptionList):
    """The attachments of the next message (``!`` output), each removable."""

    DEFAULT_CSS = """
    ContextBar {
        height: auto;
        max-height: 5;
        border: none;
        padding: 0 1;
        background: $boost;
        display: none;
        &.-shown { display: block; }
        &:focus { background-tint: $foreground 5%; }
    }
    """

    BINDINGS = [
        Binding("delete,x", "remove", "Take off", show=True),
        Binding("escape", "back", "Prompt", show=False),
    ]

    @dataclass
    class RemoveRequested(Message):
        """Take this attachment off the next message (its position in the list)."""

        index: int

    class Back(Message):
        """Done with the attachments: back to the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: list[str] = []

    def show_context(self, labels: Sequence[str]) -> None:
        """Show one row per attachment (hidden when there is none)."""
        if self.option_count and list(labels) == self.labels:
            return  # the pane asks on every change of its slot; rebuilding restyles the rows
        keep = self.highlighted
        self.labels = list(labels)
        options = [Option(Content.styled(HEADER, "dim"), disabled=True)]
        options += [Option(Content(sanitize(label, LABEL_LIMIT))) for label in self.labels]
        self.set_options(options)
        self.set_class(bool(self.labels), "-shown")
        if self.labels:
            self.highlighted = min(max(keep or 1, 1), len(self.labels))
        elif self.has_focus:
            self.post_message(self.Back())

    def action_remove(self) -> None:
        index = self.highlighted
        if index is not None and 0 < index <= len(self.labels):
            self.post_message(self.RemoveRequested(index - 1))

    def action_back(self) -> None:
        self.post_message(self.Back())
