"""Provides FindBar: the find line of a chat pane (Ctrl+F), over the pane's transcript.

Typing searches at once and shows "3 of 17"; Enter, Down, F3 or Ctrl+G goes to the next
match, Up (or Shift+Enter, Shift+F3 where the terminal sends them: tmux 3.3 does not) to the
previous one; Esc closes the bar (the matches are no longer
marked) and posts ``Closed`` so the pane gives the prompt the focus back. The bar searches
through whatever it is given as its ``target`` (the transcript view, see `Findable`), so it
imports no view.
"""

from __future__ import annotations

from typing import Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

__all__ = ["FindBar", "Findable"]


class Findable(Protocol):
    """What the bar searches (the transcript view). ``find`` and ``find_step`` return how
    many matches there are and the number of the one shown (None: none)."""

    def find(self, query: str) -> tuple[int, int | None]: ...

    def find_step(self, step: int) -> tuple[int, int | None]: ...

    def clear_find(self) -> None: ...


class FindBar(Horizontal):
    """Find in the transcript: a query field and where the current match is."""

    DEFAULT_CSS = """
    FindBar {
        height: 1;
        display: none;
        background: $panel;
        &.-open { display: block; }
        #find-label { width: auto; padding: 0 1; color: $text-muted; }
        #find-input { width: 1fr; }
        #find-count { width: auto; min-width: 12; padding: 0 1; color: $text-muted; }
        #find-count.-none { color: $text-warning; }
    }
    """

    BINDINGS = [
        Binding("enter,down,f3,ctrl+g", "step(1)", "Next", key_display="⏎/↓"),
        Binding("up,shift+enter,shift+f3", "step(-1)", "Previous", key_display="↑"),
        Binding("escape", "close", "Close"),
    ]

    class Closed(Message):
        """The bar was closed: the focus goes back to the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.target: Findable | None = None
        self.total = 0
        """How many matches the query has."""
        self.current: int | None = None
        """The number of the match shown (from 0)."""

    def compose(self) -> ComposeResult:
        yield Static("Find", id="find-label")
        yield Input(placeholder="in the transcript", id="find-input", compact=True)
        yield Static("", id="find-count")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    def open(self, target: Findable) -> None:
        """Show the bar over ``target`` with the focus in the field (its text selected)."""
        self.target = target
        self.add_class("-open")
        field = self.query_one(Input)
        field.focus()
        field.select_all()
        if field.value:
            self.search(field.value)

    def action_close(self) -> None:
        if self.target is not None:
            self.target.clear_find()
        self.remove_class("-open")
        self.post_message(self.Closed())

    @on(Input.Changed, "#find-input")
    def query_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search(event.value)

    @on(Input.Submitted, "#find-input")
    def next_match(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(1)

    def search(self, query: str) -> None:
        if self.target is None:
            return
        self.total, self.current = self.target.find(query)
        self.show_count(query)

    def action_step(self, step: int) -> None:
        if self.target is None or not self.query_text:
            return
        self.total, self.current = self.target.find_step(step)
        self.show_count(self.query_text)

    def show_count(self, query: str) -> None:
        count = self.query_one("#find-count", Static)
        if not query:
            text = ""
        elif self.current is None:
            text = "no matches"
        else:
            text = f"{self.current + 1} of {self.total}"
        count.update(Content(text))
        count.set_class(bool(query) and self.current is None, "-none")
