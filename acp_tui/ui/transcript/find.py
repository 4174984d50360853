"""Provides TranscriptSearch: find text in a transcript of any length, without rendering it.

The search reads the transcript's model (each entry's text, lower-cased once per revision)
and counts the matches per entry, so a keystroke costs one pass of ``str.count`` over the
text, however long the transcript; match number k is found by bisection over the running
counts. The view then renders only the unit that holds the match it jumps to, and marks the
matches on the lines in view (:func:`mark_matches`), where a match that a line wrap splits is
counted but not marked.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.style import Style
from textual.strip import Strip

from acp_tui.client.session.transcript import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    TranscriptEntry,
)
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.tools import ContentToolCallContent, DiffToolCallContent
from acp_tui.ui.transcript.layout import highlight

__all__ = [
    "Match",
    "TranscriptSearch",
    "mark_matches",
    "occurrences",
    "searchable_text",
    "without_fences",
]

FENCES = ("```", "~~~")


def searchable_text(entry: TranscriptEntry) -> str:
    """The text of an entry that the search looks in (what the view shows of it, roughly)."""
    if isinstance(entry, MessageEntry):
        return without_fences(entry.text) if entry.role == "agent" else entry.text
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


def without_fences(markdown: str) -> str:
    """Markdown without its code fences' lines (```python is never shown), if it has any."""
    if "```" not in markdown and "~~~" not in markdown:
        return markdown
    lines = markdown.split("\n")
    return "\n".join(line for line in lines if not line.lstrip().startswith(FENCES))


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
    """The matches of one query in a transcript: counted per entry, found by number."""

    def __init__(self) -> None:
        self.query = ""
        self.total = 0
        self.current: int | None = None
        """The number of the match shown, if any."""
        self._lowered: dict[int, tuple[int, str]] = {}  # entry index -> (revision, text)
        self._hits: list[int] = []  # indexes of the entries with matches
        self._ends: list[int] = []  # running count of matches up to each of those entries

    def clear(self) -> None:
        self.query, self.total, self.current = "", 0, None
        self._hits, self._ends = [], []

    def run(
        self, query: str, entries: Sequence[TranscriptEntry], skip: frozenset[int] = frozenset()
    ) -> int:
        """Count the matches of ``query`` (any case) in ``entries`` but those in ``skip``."""
        self.query = query.lower()
        hits: list[int] = []
        ends: list[int] = []
        total = 0
        if self.query:
            for index, entry in enumerate(entries):
                if index in skip:
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
        text = searchable_text(entry).lower()
        self._lowered[index] = (entry.revision, text)
        return text

    def first_from(self, index: int) -> int | None:
        """The number of the first match in entry ``index`` or after it (wrapping around)."""
        if not self.total:
            return None
        position = bisect.bisect_left(self._hits, index)
        return self._ends[position - 1] if 0 < position < len(self._hits) else 0

    def match(self, number: int, entries: Sequence[TranscriptEntry]) -> Match:
        """Where match ``number`` is: its entry and which of the entry's matches it is."""
        position = bisect.bisect_right(self._ends, number)
        index = self._hits[position]
        before = self._ends[position - 1] if position else 0
        return Match(number, entries[index], index, number - before)

    def step(self, step: int) -> int | None:
        """Move to the next (``step`` 1) or previous (-1) match, wrapping; its number."""
        if not self.total:
            self.current = None
        elif self.current is None:
            self.current = 0 if step > 0 else self.total - 1
        else:
            self.current = (self.current + step) % self.total
        return self.current


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
