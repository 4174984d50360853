"""Provides KeyFooter: Textual's compact footer, showing only the keys that fit whole.

Textual's footer scrolls sideways when its keys are wider than the terminal, so on 80 columns
a key's label is cut in two under the command palette's key, and the palette key, docked right
with the margin every compact key has, leaves the last column to whatever scrolled beneath it
(the junk in ``^p palettet``). This footer gives the palette key the last column and shows the
keys in order (those of the focused widget first) as long as they fit whole; the others are
left out until the terminal is wider. Every key is in the command palette's key panel anyway.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

__all__ = ["KeyFooter"]


class KeyFooter(Footer):
    """A compact footer that never cuts a key in two."""

    DEFAULT_CSS = """
    KeyFooter.-compact FooterKey.-command-palette { margin-right: 0; }
    """

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._laid_out_for = 0

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        width = self.size.width or self.app.size.width
        keys = [w for w in widgets if not w.has_class("-command-palette")]
        palette = [w for w in widgets if w.has_class("-command-palette")]
        room = width - sum(key_width(w) + 1 for w in palette)  # its left border
        for widget in keys:
            room -= key_width(widget) + 1  # the margin after each key
            if room < -1:  # the last key's margin may be cut off
                break
            yield widget
        yield from palette

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for:
            self._laid_out_for = event.size.width
            self.call_after_refresh(self.recompose)


def key_width(widget: Widget) -> int:
    """The cells a compact footer key takes: its key, a space and its description."""
    key = str(getattr(widget, "key_display", ""))
    description = str(getattr(widget, "description", ""))
    return cell_len(key) + (1 + cell_len(description) if description else 0)
