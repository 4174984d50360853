"""Provides StatusLine: a one-line status that ends with "…" where it is cut (a long session
title at 80 columns), rather than in the middle of a word with nothing to say so."""

from __future__ import annotations

from textual.content import Content
from textual.events import Resize
from textual.visual import VisualType
from textual.widgets import Static

__all__ = ["StatusLine"]


class StatusLine(Static):
    """A Static of one line of `Content`, cut to its width with an ellipsis (again whenever
    its width changes)."""

    def __init__(self, content: Content, *, id: str | None = None) -> None:
        super().__init__(content, id=id)
        self.full = content
        """The whole line, before it is cut to the width."""

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self.full = content if isinstance(content, Content) else Content(str(content))
        super().update(self.fitted(), layout=layout)

    def fitted(self) -> Content:
        width = self.content_region.width
        full = self.full
        if width <= 0 or full.cell_length <= width:
            return full
        return full.truncate(width, ellipsis=True)

    def on_resize(self, event: Resize) -> None:
        super().update(self.fitted())
