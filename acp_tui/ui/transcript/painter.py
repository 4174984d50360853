"""Provides Painter: transcript units rendered to strips, and marks painted over lines, in the
styles of the transcript view's component classes.

A unit is rendered once (`TranscriptLines` caches its strips); the marks (the block the keys
selected, the search's matches, the mouse's text selection) are painted over the cached strips
of the lines in view, each frame. The styles are read from the view's component classes once
per theme or CSS change, not once per line or unit.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.client.session.entries import MessageEntry, TranscriptEntry
from acp_tui.ui.transcript.layout import Unit
from acp_tui.ui.transcript.render import (
    RenderOptions,
    Styles,
    TerminalLookup,
    render_entry,
    render_piece,
    render_plain_piece,
    render_thought_header,
)

__all__ = ["COMPONENT_CLASSES", "DISPLAY_CSS", "Painter", "highlight", "lines_of", "preview"]

COMPONENT_CLASSES = {
    "transcript--user",
    "transcript--thought",
    "transcript--tool",
    "transcript--meta",
    "transcript--diff-add",
    "transcript--diff-remove",
    "transcript--diff-hunk",
    "transcript--notice",
    "transcript--warning",
    "transcript--error",
    "transcript--code",
    "transcript--block",
    "transcript--match",
    "transcript--match-current",
}
"""The component classes a painter reads its styles from (the widget declares them)."""

DISPLAY_CSS = """
TranscriptDisplay {
    background: $surface;
    padding: 0 1;
    overflow-x: hidden;
    & > .transcript--user { color: $text-primary; text-style: bold; }
    & > .transcript--thought { color: $text-muted; text-style: italic; }
    & > .transcript--tool { color: $text-accent; text-style: bold; }
    & > .transcript--meta { color: $text-muted; }
    & > .transcript--diff-add { color: $text-success; }
    & > .transcript--diff-remove { color: $text-error; }
    & > .transcript--diff-hunk { color: $text-secondary; }
    & > .transcript--notice { color: $text-muted; text-style: italic; }
    & > .transcript--warning { color: $text-warning; }
    & > .transcript--error { color: $text-error; text-style: bold; }
    & > .transcript--code { color: $text-accent; background: $foreground 8%; }
    & > .transcript--block { background: $accent 18%; }
    & > .transcript--match { background: $warning 35%; }
    & > .transcript--match-current { background: $warning; color: auto 90%; }
    &:focus { background-tint: $foreground 4%; }
}
"""
"""The view's CSS: the styles of the component classes above, which the theme colours."""


class Painter:
    """Renders units and paints marks with the styles of ``widget``'s component classes (and
    its app's console): the transcript view's, which the theme colours."""

    def __init__(self, widget: Widget) -> None:
        self.widget = widget
        self._styles: Styles | None = None
        self._rich_theme = Theme()  # what Rich's markdown styles by name, from `_styles`
        self._marks: dict[str, Style] = {}

    @property
    def styles(self) -> Styles:
        """The styles units are rendered with, read from the theme when first needed."""
        if self._styles is None:
            widget = self.widget

            def style(name: str) -> Style:
                # Not partial: "auto" and translucent colours ($text-muted) need the
                # background to resolve against, or light themes get near-white text.
                return widget.get_component_rich_style(name, partial=False)

            dark = widget.app.current_theme.dark if widget.is_mounted else True
            self._styles = Styles(
                user=style("transcript--user"),
                thought=style("transcript--thought"),
                tool=style("transcript--tool"),
                tool_meta=style("transcript--meta"),
                diff_add=style("transcript--diff-add"),
                diff_remove=style("transcript--diff-remove"),
                diff_hunk=style("transcript--diff-hunk"),
                notice=style("transcript--notice"),
                warning=style("transcript--warning"),
                error=style("transcript--error"),
                inline_code=style("transcript--code"),
                code_theme="monokai" if dark else "default",
            )
            self._rich_theme = Theme({"markdown.code": self._styles.inline_code})
        return self._styles

    def forget(self) -> None:
        """Read the units' styles again when next needed (the theme changed)."""
        self._styles = None

    def restyled(self) -> bool:
        """The CSS around the widget changed: forget every style. True when the units' styles
        changed, or are not known (showing a hidden tab, or a focus change, re-applies the CSS
        but changes nothing that rendered units depend on)."""
        self._marks.clear()
        before, self._styles = self._styles, None
        return before is None or not self.widget.is_mounted or self.styles != before

    def render(
        self,
        entry: TranscriptEntry,
        unit: Unit,
        expanded: bool,
        width: int,
        terminal: TerminalLookup | None,
    ) -> list[Strip]:
        """The strips of one unit of ``entry`` at ``width`` (``expanded``: of a thought)."""
        styles = self.styles
        renderable: RenderableType
        if unit.kind == "entry":
            renderable = render_entry(entry, RenderOptions(styles, True, terminal))
        elif unit.kind == "header":
            assert isinstance(entry, MessageEntry)
            renderable = render_thought_header(preview(entry), expanded, styles)
        else:
            assert isinstance(entry, MessageEntry)
            assert unit.piece is not None
            if unit.piece.kind != "plain":
                renderable = render_piece(unit.piece, styles)
            else:
                renderable = render_plain_piece(unit.piece, entry.role, styles)
        console = self.widget.app.console
        with console.use_theme(self._rich_theme):
            return lines_of(renderable, console, width)

    def mark_style(self, name: str, *, background_only: bool = False) -> Style:
        """The style of a mark (a component class), cached until the CSS changes."""
        style = self._marks.get(name)
        if style is None:
            style = self.widget.get_component_rich_style(name, partial=False)
            if background_only:
                style = Style(bgcolor=style.bgcolor)
            self._marks[name] = style
        return style

    def tint(self, strip: Strip) -> Strip:
        """``strip`` (a whole line) with the background of the selected block."""
        style = self.mark_style("transcript--block", background_only=True)
        return Strip(Segment.apply_style(strip, post_style=style), strip.cell_length)


def lines_of(renderable: RenderableType, console: Console, width: int) -> list[Strip]:
    """``renderable`` rendered to strips of at most ``width`` cells."""
    options = console.options.update(width=width, height=None, highlight=False)
    lines = console.render_lines(renderable, options, pad=False)
    return [Strip(Segment.adjust_line_length(line, width, pad=False)) for line in lines]


def preview(entry: MessageEntry, chars: int = 160) -> str:
    """The first words of a message, without joining all of it."""
    taken: list[str] = []
    size = 0
    for part in entry.parts:
        taken.append(part[: chars - size])
        size += len(taken[-1])
        if size >= chars:
            break
    return "".join(taken)


def highlight(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """``strip`` with characters ``start:end`` (``end`` -1: to the end) in ``style``."""
    text = strip.text
    end = len(text) if end == -1 else min(end, len(text))
    if start >= end:
        return strip
    left = cell_len(text[:start])
    right = left + cell_len(text[start:end])
    before, middle, after = strip.divide([left, right, strip.cell_length])
    marked = Strip(Segment.apply_style(middle, post_style=style), right - left)
    return Strip.join([before, marked, after])
