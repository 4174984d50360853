"""Provides StatusLine: a one-line status that ends with "…" where it is cut (a long session
title at 80 columns), rather than in the middle of a word with nothing to say so."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.app import RenderResult as WidgetRenderResult
from textual.content import Content
from textual.widgets import Static

__all__ = ["StatusLine"]


class Cut:
    """Plain text on one line, cut with "…" to the width it is rendered at (known only then:
    the widget's visual is cached across resizes)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = Text(self.text, end="", no_wrap=True)
        text.truncate(options.max_width, overflow="ellipsis")
        yield text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)


class StatusLine(Static):
    """A Static of one line of literal text, cut to its width with an ellipsis."""

    def render(self) -> WidgetRenderResult:
        visual = self.visual
        return Cut(visual.plain) if isinstance(visual, Content) else visual
