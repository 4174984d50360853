"""Provides TranscriptSearch: find text in a transcript of any length, without rendering it.

The search reads the transcript's model (each entry's text as the view shows it: Markdown
without its syntax, see `acp_tui.ui.transcript.shown_text`; lower-cased once per revision)
and counts the matches per entry, so a keystroke costs one pass of ``str.count`` over the
text, however long the transcript; match number k is found by bisection over the running
counts. To show a match, the view renders only the unit that holds it (:meth:`unit_lines`),
and the search finds the match's row and column in that unit's strips (:meth:`place`); the
matches on the lines in view are marked (:meth:`mark`), where a match that a line wrap splits
is counted but not marked. The search moves nothing: the view scrolls to what it names.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from rich.style import Style
from textual.strip import Strip

from acp_tui.client.session.entries import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    TranscriptEntry,
)
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.tools import ContentToolCallContent, DiffToolCallContent
from acp_tui.ui.transcript.layout import Layout, Unit
from acp_tui.ui.transcript.lines import TranscriptLines, is_thought
from acp_tui.ui.transcript.painter import Painter, highlight
from acp_tui.ui.transcript.pieces import Piece
from acp_tui.ui.transcript.shown_text import MarkdownMode, markdown_shown, renders_markdown

__all__ = [
    "Match",
    "TranscriptSearch",
    "mark_matches",
    "occurrences",
    "piece_text",
    "searchable_text",
    "unit_of_match",
]


def searchable_text(entry: TranscriptEntry, markdown: MarkdownMode = "auto") -> str:
    """The text of an entry that the search looks in (what the view shows of it, closely)."""
    if isinstance(entry, MessageEntry):
        text = entry.text
        return markdown_shown(text) if renders_markdown(entry.role, text, markdown) else text
    if isinstance(entry, NoticeEntry):
        return entry.text
    if isinstance(entry, PlanEntryBlock):
        return "\n".join(item.content for item in entry.entries)
    parts = [entry.title, *(location.path for location in entry.locations)]
    for item in entry.content:
        if isinstance(item, DiffToolCallContent):
            parts.extend((item.path, item.new_text))
        elif isinstance(item, ContentToolCallContent) and isinstance(item.content, TextContent):
            parts.append(item.content.text)
    return "\n".join(parts)


def piece_text(piece: Piece) -> str:
    """The text the view shows of one piece of a message (a Markdown piece without its
    syntax; code and plain text as they are)."""
    if piece.kind != "md":
        return piece.text
    return markdown_shown(f"{piece.info}\n{piece.text}" if piece.info else piece.text)


def occurrences(text: str, query: str) -> Iterator[int]:
    """Where ``query`` starts in ``text``, without overlaps (both lower-cased already)."""
    start = text.find(query)
    while start >= 0 and query:
        yield start
        start = text.find(query, start + len(query))


@dataclass(frozen=True, slots=True)
class Match:
    """Match number ``number`` (from 0) is the ``nth`` one in entry ``entry``."""

    number: int
    entry: TranscriptEntry
    index: int
    nth: int


class TranscriptSearch:
    """The matches of one query in the lines' transcript: counted per entry, found by number;
    and the match shown, once the view has rendered it."""

    def __init__(self, lines: TranscriptLines) -> None:
        self.lines = lines
        self.query = ""
        self.total = 0
        self.current: int | None = None
        """The number of the match shown, if any."""
        self.shown: tuple[int, Unit, int, int | None] | None = None
        """The match placed: entry index, unit, row in the unit, column (if found there)."""
        self._lowered: dict[int, tuple[int, str]] = {}  # entry index -> (revision, text)
        self._hits: list[int] = []  # indexes of the entries with matches
        self._ends: list[int] = []  # running count of matches up to each of those entries

    def clear(self) -> None:
        self.query, self.total, self.current = "", 0, None
        self._hits, self._ends = [], []
        self.shown = None

    def run(self, query: str) -> int:
        """Count the matches of ``query`` (any case) in the entries shown (not in hidden
        thoughts)."""
        self.query = query.lower()
        hits: list[int] = []
        ends: list[int] = []
        total = 0
        if self.query:
            hidden = not self.lines.show_thoughts
            for index, entry in enumerate(self.lines.entries):
                if hidden and is_thought(entry):
                    continue
                count = self._text(index, entry).count(self.query)
                if count:
                    total += count
                    hits.append(index)
                    ends.append(total)
        self._hits, self._ends, self.total = hits, ends, total
        if self.current is not None and self.current >= total:
            self.current = total - 1 if total else None
        return total

    def _text(self, index: int, entry: TranscriptEntry) -> str:
        cached = self._lowered.get(index)
        if cached is not None and cached[0] == entry.revision:
            return cached[1]
        text = searchable_text(entry, self.lines.markdown).lower()
        self._lowered[index] = (entry.revision, text)
        return text

    def find(self, query: str, top: int) -> tuple[int, int | None]:
        """Count the matches of ``query`` and choose the first from line ``top`` on (then
        from the start): how many there are, and the number of the one chosen."""
        total = self.run(query)
        entry = max(bisect.bisect_right(self.lines.offsets, top) - 1, 0)
        self.current = self.first_from(entry)
        return total, self.current

    def first_from(self, index: int) -> int | None:
        """The number of the first match in entry ``index`` or after it (wrapping around)."""
        if not self.total:
            return None
        position = bisect.bisect_left(self._hits, index)
        return self._ends[position - 1] if 0 < position < len(self._hits) else 0

    def match(self, number: int) -> Match:
        """Where match ``number`` is: its entry and which of the entry's matches it is."""
        position = bisect.bisect_right(self._ends, number)
        index = self._hits[position]
        before = self._ends[position - 1] if position else 0
        return Match(number, self.lines.entries[index], index, number - before)

    def step(self, step: int) -> tuple[int, int | None]:
        """Choose the next (``step`` 1) or previous (-1) match, wrapping, counting again first
        (the transcript may have grown): how many there are, and the number chosen."""
        self.run(self.query)
        if not self.total:
            self.current = None
        elif self.current is None:
            self.current = 0 if step > 0 else self.total - 1
        else:
            self.current = (self.current + step) % self.total
        return self.total, self.current

    # -- the match shown -------------------------------------------------------------------

    def chosen(self) -> Match | None:
        """The match to show now, if any (the one placed before is forgotten)."""
        self.shown = None
        if self.current is None or not self.query:
            return None
        return self.match(self.current)

    def unit_lines(self, match: Match) -> range | None:
        """The lines of the unit that holds ``match`` (to render before :meth:`place`);
        None when its entry is not laid out, or shows nothing."""
        layouts = self.lines.layouts
        if match.index >= len(layouts) or not layouts[match.index].units:
            return None
        layout = layouts[match.index]
        position, _ = unit_of_match(layout, match.nth, self.query)
        unit = layout.units[position]
        start = self.lines.offsets[match.index] + layout.offsets[position]
        return range(start, start + unit.sep + unit.height)

    def place(self, match: Match) -> int | None:
        """Find ``match`` in its unit's strips (rendered), remember where, and return its line."""
        layout = self.lines.layouts[match.index]
        position, nth = unit_of_match(layout, match.nth, self.query)
        unit = layout.units[position]
        row, column = 0, None
        for number_in_row, strip in enumerate(unit.strips or []):
            found = list(occurrences(strip.text.lower(), self.query))
            if nth < len(found):
                row, column = number_in_row, found[nth]
                break
            nth -= len(found)
        self.shown = (match.index, unit, row, column)
        return self.match_line()

    def match_line(self) -> int | None:
        """The line of the match placed (it moves as the lines above it are rendered)."""
        if self.shown is None:
            return None
        index, unit, row, _ = self.shown
        if index >= len(self.lines.layouts):
            return None
        layout = self.lines.layouts[index]
        try:
            position = layout.units.index(unit)
        except ValueError:
            return None
        return self.lines.offsets[index] + layout.offsets[position] + unit.sep + row

    def mark(self, line: int, strip: Strip, painter: Painter) -> Strip:
        """``strip`` (the text of ``line``) with the matches marked in ``painter``'s styles."""
        if not self.query or not self.total:
            return strip
        current = self.shown[3] if self.shown and line == self.match_line() else None
        style = painter.mark_style("transcript--match")
        current_style = painter.mark_style("transcript--match-current")
        return mark_matches(strip, self.query, style, current, current_style)


def mark_matches(
    strip: Strip, query: str, style: Style, current: int | None, current_style: Style
) -> Strip:
    """``strip`` with every match of ``query`` in ``style``; the one that starts at column
    ``current`` (a character offset) in ``current_style``."""
    text = strip.text.lower()
    for start in occurrences(text, query):
        chosen = current_style if start == current else style
        strip = highlight(strip, start, start + len(query), chosen)
    return strip


def unit_of_match(layout: Layout, nth: int, query: str) -> tuple[int, int]:
    """The unit that holds an entry's ``nth`` match, and which of the unit's matches it is."""
    for position, unit in enumerate(layout.units):
        if unit.piece is None:
            continue
        count = piece_text(unit.piece).lower().count(query)
        if nth < count:
            return position, nth
        nth -= count
    pieces = [p for p, u in enumerate(layout.units) if u.piece is not None]
    return (0, nth) if not pieces else (pieces[0], 0)
