"""A bare Textual app with one Static: the baseline for the startup benchmark."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("Hello from a bare Textual app")


if __name__ == "__main__":
    BareApp().run()
