"""Provides PlainToasts: an App whose toasts are always plain, sanitised text.

Toasts quote the agent (its name, its errors), and Textual parses a toast's message as markup
unless each caller remembers ``markup=False``: an agent's ``[@click=app.quit]`` would then be a
live action in a toast, and its ``[/]`` a crash. Here no call site can forget it, whether it
calls ``App.notify`` or ``Widget.notify``.
"""

from __future__ import annotations

from textual.app import App
from textual.notifications import SeverityLevel

from acp_tui.ui.plain_text import NAME_LIMIT, TEXT_LIMIT, sanitize


class PlainToasts(App[int]):
    """Every toast is literal text: sanitised, clipped, never parsed as markup."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a toast; ``markup`` is ignored (always off)."""
        message, title = sanitize(message, TEXT_LIMIT), sanitize(title, NAME_LIMIT)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """Ctrl+C outside a text field: say how to quit (Textual's own hint uses markup)."""
        keys = [k for k, b in self.active_bindings.items() if b.binding.action == "quit"]
        if keys:
            self.notify(f"Press {keys[0]} to quit the app", title="Do you want to quit?")
