"""Provides ConfirmDialog: a yes/no question before something that cannot be undone.

It names what will happen (the caller lists the items); Enter or ``y`` confirms, Esc or ``n``
cancels. The answer is a bool through ``dismiss``; focus starts on Cancel so that a stray Enter
does not delete anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from acp_tui.ui.plain_text import sanitize

MAX_LISTED = 8
"""Items listed by name; the rest are counted."""


class ConfirmDialog(ModalScreen[bool]):
    """Asks ``question`` about ``items``; True only when the user confirms."""

    DEFAULT_CSS = """
    ConfirmDialog {
        align: center middle;
        #confirm-box {
            width: 80%;
            max-width: 80;
            height: auto;
            max-height: 90%;
            border: thick $error;
            background: $panel;
            padding: 1 2;
        }
        #confirm-title { text-style: bold; margin-bottom: 1; }
        #confirm-items { height: auto; color: $text-muted; }
        #confirm-buttons { height: auto; margin-top: 1; align-horizontal: right; }
        #confirm-buttons Button { margin-left: 2; }
    }
    """

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel"),
        Binding("y", "answer(True)", "Confirm"),
    ]
    AUTO_FOCUS = "#confirm-no"

    def __init__(
        self,
        question: str,
        items: Sequence[str] = (),
        *,
        confirm_label: str = "Delete",
        cancel_label: str = "Cancel",
        note: str | None = "This cannot be undone.",
        destructive: bool = True,
    ) -> None:
        super().__init__()
        self.question = question
        self.items = list(items)
        self.confirm_label = confirm_label
        self.cancel_label = cancel_label
        self.note = note
        self.destructive = destructive

    def compose(self) -> ComposeResult:
        box = VerticalScroll(id="confirm-box")  # scrolls on a small terminal
        box.can_focus = False
        with box:
            yield Static(Text(sanitize(self.question)), id="confirm-title")
            yield Static(Text(self.items_text()), id="confirm-items")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.cancel_label, id="confirm-no")
                if self.destructive:
                    yield Button(self.confirm_label, id="confirm-yes", variant="error")
                else:
                    yield Button(self.confirm_label, id="confirm-yes", variant="primary")

    def items_text(self) -> str:
        shown = [f"• {sanitize(item)}" for item in self.items[:MAX_LISTED]]
        hidden = len(self.items) - MAX_LISTED
        if hidden > 0:
            shown.append(f"… and {hidden} more")
        if self.note:
            shown.append(self.note)
        return "\n".join(shown)

    @on(Button.Pressed, "#confirm-yes")
    def confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def cancel(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class QuitDialog(ConfirmDialog):
    """Quit, when that loses something (``reasons`` say what); Ctrl+Q again also quits."""

    def __init__(self, reasons: Sequence[str]) -> None:
        super().__init__("Quit acp-tui?", reasons, confirm_label="Quit", note=None)
