"""Provides QuietFooter: Textual's compact footer, redrawn only when its keys change, showing
only the keys that fit whole.

Textual's Footer recomposes all its keys whenever the focus moves, even between two widgets
with the same bindings (two tabs' prompts): tens of milliseconds each time, most of a tab
switch. This one compares what it would show and leaves itself alone when nothing changed.

Textual's footer also scrolls sideways when its keys are wider than the terminal, so on 80
columns a key's label is cut in two under the command palette's key, and the palette key,
docked right with the margin every compact key has, leaves the last column to whatever
scrolled beneath it (the junk in ``^p palettet``). This footer gives the palette key the last
column and shows the keys in order (those of the focused widget first) as long as they fit
whole; the others are left out until the terminal is wider. Every key is in the command
palette's key panel anyway.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

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
    """A compact footer that recomposes only when its keys change and never cuts one."""

    DEFAULT_CSS = """
    QuietFooter.-compact FooterKey.-command-palette { margin-right: 0; }
    """

    _shown: Shown | None = None

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._laid_out_for = 0
        self._recompose_due = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            shown = shown_keys(screen)
            if shown == self._shown and self._bindings_ready:
                return
            self._shown = shown
            self._bindings_ready = True
            self.recompose_soon()
            return
        super().bindings_changed(screen)

    def recompose_soon(self) -> None:
        """Recompose after the next refresh, once however many changes ask before then: at
        startup the first width and two changes of keys came together, and each recomposed
        the same keys (three times per start, two thirds of the footer's work)."""
        if not self._recompose_due:
            self._recompose_due = True
            self.call_after_refresh(self._recompose_now)

    async def _recompose_now(self) -> None:
        self._recompose_due = False
        await self.recompose()

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        width = self.size.width or self.app.size.width
        keys = [w for w in widgets if not w.has_class("-command-palette")]
        palette = [w for w in widgets if w.has_class("-command-palette")]
        room = width - sum(key_width(w) + 1 for w in palette)  # its left border
        shown: list[Widget] = []
        for widget in keys:
            room -= key_width(widget) + 1  # the margin after each key
            if room < -1:  # the last key's margin may be cut off
                break
            shown.append(widget)
        for widget in (*shown, *palette):
            if isinstance(widget, FooterKey):
                # Compact before it is mounted: set after (by its data binding), the class
                # restyled each key on its own, a millisecond a key at every recompose.
                widget.add_class("-compact", update=False)
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for:
            self._laid_out_for = event.size.width
            self.recompose_soon()


def key_width(widget: Widget) -> int:
    """The cells a compact footer key takes: its key, a space and its description."""
    key = str(getattr(widget, "key_display", ""))
    description = str(getattr(widget, "description", ""))
    return cell_len(key) + (1 + cell_len(description) if description else 0)
