"""Provides the line layout of a transcript view: its units and entries laid out in lines.

An entry is laid out as units (a whole tool call, plan or notice, a thought's header, or one
piece of a message as `BlockScanner` cut it), each with a height in lines: estimated until the
unit is rendered, exact after. `TranscriptLines` keeps one :class:`Layout` per entry and the
cumulative line offsets of the entries; the keyboard selection and the search read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from textual.strip import Strip

from acp_tui.ui.transcript.pieces import BlockScanner, Piece

__all__ = ["Layout", "Unit"]


@dataclass(eq=False, slots=True)
class Unit:
    """A part of an entry that renders on its own; ``strips`` is None until it is in view."""

    kind: Literal["entry", "header", "piece"]
    piece: Piece | None = None
    sep: bool = False  # a blank line before it
    strips: list[Strip] | None = None
    height: int = 1

    def estimate(self, width: int) -> None:
        """Forget the rendering; guess the height (an entry keeps its last height)."""
        self.strips = None
        piece = self.piece
        if piece is not None:
            text = piece.text
            guess = text.count("\n") + len(text) // max(width - 4, 1) + 1
            self.height = guess + (2 if piece.kind == "code" else 0)


@dataclass(slots=True)
class Layout:
    """One entry in lines: its units, their cumulative line offsets and its message scanner."""

    revision: int = -1
    key: tuple[bool, ...] = ()
    units: list[Unit] = field(default_factory=list)
    offsets: list[int] = field(default_factory=lambda: [0])
    scanner: BlockScanner | None = None
    parts: list[str] | None = None
    parts_seen: int = 0
    seen_tail: str = ""  # the end of the text scanned (to spot Markdown cut between chunks)
    has_tail: bool = False
    backlog: bool = False

    @property
    def height(self) -> int:
        return self.offsets[-1] + 1 if self.units else 0  # plus one blank line after the entry

    def relayout(self, start: int = 0) -> None:
        offsets = self.offsets
        del offsets[start + 1 :]
        total = offsets[start]
        for unit in self.units[start:]:
            total += unit.height + unit.sep
            offsets.append(total)
