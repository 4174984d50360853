"""A bare app that shows one AddAgentDialog, for the dialog's Pilot and snapshot tests.

The dialog is self-contained, so it is tested on its own, outside the chat app.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from acp_tui.config.paths import get_paths
from acp_tui.ui.dialogs.add_agent import AddAgentDialog, AddedAgent
from tests.registry_helpers import PLATFORM

RESULT_UNSET = object()


def with_npx(name: str) -> str | None:
    """A PATH with npx on it, and neither uvx nor anything else."""
    return f"/usr/bin/{name}" if name == "npx" else None


class DialogHost(App[None]):
    """Pushes the dialog at once and keeps what it returns in `result`."""

    def __init__(self, registry_url: str, **dialog_options: Any) -> None:
        super().__init__()
        self.registry_url = registry_url
        self.dialog_options = {"platform": PLATFORM, "which": with_npx, **dialog_options}
        self.result: object = RESULT_UNSET

    def compose(self) -> ComposeResult:
        yield Static("behind the dialog")

    def on_mount(self) -> None:
        self.push_screen(self.make_dialog(), callback=self.dismissed)

    def make_dialog(self) -> AddAgentDialog:
        return AddAgentDialog(self.registry_url, get_paths(), **self.dialog_options)

    def dismissed(self, result: AddedAgent | None) -> None:
        self.result = result
