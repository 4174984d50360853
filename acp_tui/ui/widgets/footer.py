"""Provides QuietFooter: Textual's footer, redrawn only when the keys it shows change.

Textual's Footer recomposes all its keys whenever the focus moves, even between two widgets
with the same bindings (two tabs' prompts): tens of milliseconds each time, most of a tab
switch. This one compares what it would show and leaves itself alone when nothing changed.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer

__all__ = ["QuietFooter"]

Shown = tuple[tuple[str, str, str, bool, str | None], ...]


def shown_keys(screen: Screen[object]) -> Shown:
    """What the footer would show: each shown binding's key, action, label, state, tip."""
    return tuple(
        (binding.key, binding.action, binding.description, enabled, tooltip or binding.tooltip)
        for (_node, binding, enabled, tooltip) in screen.active_bindings.values()
        if binding.show
    )


class QuietFooter(Footer):
    """A footer that recomposes only when its keys change."""

    _shown: Shown | None = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            shown = shown_keys(screen)
            if shown == self._shown and self._bindings_ready:
                return
            self._shown = shown
        super().bindings_changed(screen)
