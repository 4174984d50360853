"""Provides RenameDialog: a session's local title, typed.

The local title wins over the agent's in the browser, the tabs and the header. The dialog
returns what was typed (an empty field: back to the agent's title), or None when cancelled;
the caller keeps it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from acp_tui.ui.plain_text import LABEL_LIMIT, sanitize

__all__ = ["RenameDialog"]


class RenameDialog(ModalScreen[str | None]):
    """Returns the new local title ("" clears it), or None when cancelled."""

    DEFAULT_CSS = """
    RenameDialog {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 80;
            height: auto;
            border: thick $primary;
            background: $panel;
            padding: 1 2;
        }
        #rename-title { text-style: bold; margin-bottom: 1; }
        #rename-hint { height: auto; color: $text-muted; margin-top: 1; }
        #rename-buttons { height: auto; margin-top: 1; align-horizontal: right; }
        #rename-buttons Button { margin-left: 2; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#rename-input"

    def __init__(self, current: str, agent_title: str | None) -> None:
        super().__init__()
        self.current = current
        self.agent_title = agent_title

    def compose(self) -> ComposeResult:
        agent = sanitize(self.agent_title, LABEL_LIMIT) if self.agent_title else "none"
        with Vertical():
            yield Static("Rename the session (here only)", id="rename-title")
            yield Input(self.current, id="rename-input", placeholder="the agent's title")
            yield Static(Text(f"Empty: back to the agent's title ({agent})."), id="rename-hint")
            with Horizontal(id="rename-buttons"):
                yield Button("Cancel", id="rename-cancel")
                yield Button("Rename", id="rename-save", variant="primary")

    @on(Input.Submitted)
    @on(Button.Pressed, "#rename-save")
    def save(self) -> None:
        self.dismiss(self.query_one(Input).value)

    @on(Button.Pressed, "#rename-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
