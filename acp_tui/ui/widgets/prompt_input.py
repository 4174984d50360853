"""Provides PromptInput: the multi-line prompt editor (Enter sends, Ctrl+J adds a line)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class PromptInput(TextArea):
    """Where the user writes; Enter sends, Shift+Enter or Ctrl+J inserts a newline."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: tall $border-blurred;
        &:focus { border: tall $border; }
    }
    """

    BINDINGS = [
        Binding("enter", "submit", "Send", priority=True),
        Binding("shift+enter,ctrl+j", "newline", "New line", show=False, priority=True),
    ]

    @dataclass
    class Submitted(Message):
        """The user sent the text in the editor."""

        prompt_input: PromptInput
        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")

    def action_submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.post_message(self.Submitted(self, text))

    def action_newline(self) -> None:
        self.insert("\n")
