"""Provides the session browser's filter bar and action bar.

BrowserFilters: the local text search (instant), "All directories" (drops the cwd filter) and
the extra-roots filter (comma or newline separated absolute paths, applied on Enter; empty: any,
``none``: exactly no extra roots). ActionBar: one button per action on the highlighted row,
disabled with the reason as its tooltip and, below the buttons, as a line the user can read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Grid, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Static

from acp_tui.ui.render import sanitize

ACTIONS: dict[str, str] = {
    "replay": "Replay",
    "resume": "Resume",
    "fork": "Fork",
    "close": "Close",
    "delete": "Delete",
}
"""The row actions, in button order, with their labels."""


class BrowserFilters(Vertical):
    """Search, all-directories and extra-roots filters; posts Changed."""

    DEFAULT_CSS = """
    BrowserFilters {
        height: auto;
        Input { height: 1; border: none; padding: 0 1; background: $boost; }
        Input:focus { background: $surface-lighten-1; }
        Checkbox { height: 1; border: none; padding: 0 1; background: transparent; }
    }
    """

    @dataclass
    class Changed(Message):
        """One filter changed: ``what`` is "text", "all" or "roots"."""

        what: str
        value: str | bool

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Search loaded titles  (/)", id="browser-search")
        yield Checkbox("All directories  (a)", id="browser-all", compact=True)
        yield Input(
            placeholder="Extra roots: /abs/a, /abs/b  (none = no extra roots)",
            id="browser-roots",
        )

    @on(Input.Changed, "#browser-search")
    def search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed("text", event.value))

    @on(Input.Submitted, "#browser-roots")
    def roots_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Changed("roots", event.value))

    @on(Checkbox.Changed, "#browser-all")
    def all_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.post_message(self.Changed("all", event.value))

    def toggle_all(self) -> None:
        self.query_one("#browser-all", Checkbox).toggle()


class ActionBar(Vertical):
    """The row actions as buttons; an unavailable one is disabled and says why."""

    DEFAULT_CSS = """
    ActionBar {
        height: auto;
        #browser-buttons { grid-size: 3; grid-gutter: 0 1; height: auto; grid-rows: 1; }
        Button { width: 1fr; min-width: 6; }
        #browser-reasons { height: auto; color: $text-muted; padding: 0 1; }
    }
    """

    @dataclass
    class Requested(Message):
        """A button was pressed: ``action`` is a key of ACTIONS."""

        action: str

    def compose(self) -> ComposeResult:
        with Grid(id="browser-buttons"):
            for action, label in ACTIONS.items():
                yield Button(label, id=f"act-{action}", compact=True)
        yield Static("", id="browser-reasons")

    def set_reasons(self, reasons: Mapping[str, str | None]) -> None:
        """Enable each action, or disable it with its reason (tooltip and reasons line)."""
        grouped: dict[str, list[str]] = {}
        for action, label in ACTIONS.items():
            reason = reasons.get(action)
            button = self.query_one(f"#act-{action}", Button)
            button.disabled = reason is not None
            button.tooltip = reason
            if reason is not None:
                grouped.setdefault(reason, []).append(label)
        lines = [f"{', '.join(labels)}: {sanitize(why)}" for why, labels in grouped.items()]
        self.query_one("#browser-reasons", Static).update(Text("\n".join(lines)))

    @on(Button.Pressed)
    def button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("act-"):
            self.post_message(self.Requested(event.button.id.removeprefix("act-")))
