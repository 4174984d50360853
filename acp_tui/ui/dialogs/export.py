"""Provides ExportDialog: where to save the transcript as Markdown.

The dialog only chooses the path; the caller writes the file. It returns an absolute path
(relative input is taken from the session's cwd), checks that the folder exists and asks once
more before an existing file would be overwritten.
"""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from acp_tui.ui.plain_text import sanitize


class ExportDialog(ModalScreen[Path | None]):
    """Returns the absolute path to write the Markdown export to, or None when cancelled."""

    DEFAULT_CSS = """
    ExportDialog {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 100;
            height: auto;
            border: thick $primary;
            background: $panel;
            padding: 1 2;
        }
        #export-title { text-style: bold; margin-bottom: 1; }
        #export-message { height: auto; color: $text-muted; margin-top: 1; }
        #export-message.-error { color: $error; }
        #export-message.-confirm { color: $warning; }
        #export-buttons { height: auto; margin-top: 1; align-horizontal: right; }
        #export-buttons Button { margin-left: 2; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#export-path"

    def __init__(self, default_path: Path, *, cwd: Path, own_folder: Path | None = None) -> None:
        super().__init__()
        self.default_path = default_path
        self.cwd = cwd
        self.own_folder = own_folder
        """acp-tui's own exports folder: made when a file is saved in it (a fresh install has
        none yet); any other folder must exist."""
        self.confirming: Path | None = None
        """The existing file the user was asked about; a second Save overwrites it."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Export the transcript as Markdown", id="export-title")
            yield Input(str(self.default_path), id="export-path")
            yield Static(
                Text(f"Relative paths are saved under {sanitize(str(self.cwd))}"),
                id="export-message",
            )
            with Horizontal(id="export-buttons"):
                yield Button("Cancel", id="export-cancel")
                yield Button("Save", id="export-save", variant="primary")

    def target(self) -> Path | None:
        """The absolute path the input names (None when it is empty)."""
        raw = self.query_one(Input).value.strip()
        if not raw:
            return None
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = self.cwd / path
        return Path(os.path.normpath(path))

    def show_message(self, text: str, state: str = "") -> None:
        message = self.query_one("#export-message", Static)
        message.update(Text(sanitize(text)))
        message.set_class(state == "error", "-error")
        message.set_class(state == "confirm", "-confirm")

    @on(Input.Submitted)
    @on(Button.Pressed, "#export-save")
    def save(self) -> None:
        path = self.target()
        if path is None:
            self.show_message("Enter a file name.", "error")
            return
        if path.is_dir():
            self.show_message(f"{path} is a folder: enter a file name.", "error")
            return
        if not path.parent.is_dir() and path.parent != self.own_folder:
            self.show_message(f"The folder {path.parent} does not exist.", "error")
            return
        if path.exists() and self.confirming != path:
            self.confirming = path
            self.query_one("#export-save", Button).label = "Overwrite"
            self.show_message(f"{path.name} exists: save again to overwrite it.", "confirm")
            return
        self.dismiss(path)

    @on(Input.Changed)
    def path_edited(self) -> None:
        if self.confirming is not None or self.query_one("#export-message").has_class("-error"):
            self.confirming = None
            self.query_one("#export-save", Button).label = "Save"
            self.show_message(f"Relative paths are saved under {self.cwd}")

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
