"""Provides TranscriptLines: a transcript laid out in lines, the model that the view shows.

Each entry is laid out as units (see `acp_tui.ui.transcript.layout`): a whole tool call, plan or
notice, a thought's header, or one bounded piece of a message as `BlockScanner` cut it. A unit
counts with an estimated height until it is rendered, and is rendered once (by the `Painter` it
is given): it renders again only when its entry changes, or the width or the styles do. The
view tells the lines what changed and how wide they are, asks them to lay out for a few
milliseconds at a time, and reads lines back; the keys, the search and the selection read the
same layouts and offsets. Nothing here scrolls or paints: that is the view's.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Iterator

from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip

from acp_tui.client.session.entries import Change, MessageEntry, TranscriptEntry
from acp_tui.client.session.transcript import Transcript
from acp_tui.ui.transcript.layout import Layout, Unit
from acp_tui.ui.transcript.painter import Painter
from acp_tui.ui.transcript.pieces import BlockScanner, Piece
from acp_tui.ui.transcript.render import TerminalLookup
from acp_tui.ui.transcript.shown_text import MarkdownMode, looks_like_markdown, renders_markdown

__all__ = ["SCAN_BUDGET", "TranscriptLines"]

SCAN_BUDGET = 128_000  # characters of message text cut into pieces per pass of `lay_out`
_EMPTY = Strip([], 0)
_TAIL = 200  # characters kept of a plain reply to find Markdown cut between two chunks


def is_thought(entry: TranscriptEntry) -> bool:
    return isinstance(entry, MessageEntry) and entry.role == "thought"


class TranscriptLines:
    """One transcript in lines: a `Layout` per entry, the entries' first lines, what changed."""

    def __init__(self, painter: Painter) -> None:
        self.painter = painter
        self.transcript: Transcript | None = None
        self.terminal_lookup: TerminalLookup | None = None
        self.layouts: list[Layout] = []
        self.offsets: list[int] = [0]
        """The first line of each entry, and the line after the last one."""
        self.dirty: set[int] = set()
        """The entries to lay out again."""
        self.stale_from: int | None = None
        """The first entry whose offset is out of date."""
        self.moves = 0
        """Counts the changes that may have moved lines (a change of an entry's or a unit's
        height, new entries, a new width): while it stays, re-rendered units are in place."""
        self.width = 0
        self.show_thoughts = True
        self.markdown: MarkdownMode = "auto"
        """How the agent's replies are shown (the ``markdown`` setting)."""
        self.expand_thoughts = False
        self.expanded: dict[int, bool] = {}
        """The thoughts expanded or collapsed by hand, by entry index."""
        self.on_change: Callable[[], None] | None = None
        """Called on each change of the transcript (the display's flush timer wakes)."""

    @property
    def entries(self) -> list[TranscriptEntry]:
        return self.transcript.entries if self.transcript is not None else []

    @property
    def height(self) -> int:
        """How many lines there are (those not rendered yet at their estimated height)."""
        return self.offsets[-1]

    @property
    def idle(self) -> bool:
        """True when everything is laid out and every offset is up to date."""
        return not self.dirty and self.stale_from is None

    def show(self, transcript: Transcript, terminal_lookup: TerminalLookup | None) -> None:
        """Start over with ``transcript``: everything to lay out, no thought opened by hand."""
        self.transcript = transcript
        self.terminal_lookup = terminal_lookup
        self.layouts, self.offsets, self.expanded = [], [0], {}
        self.dirty.clear()
        self.stale_from = 0
        self.moves += 1

    def note_change(self, change: Change) -> None:
        if self.on_change is not None:
            self.on_change()
        if change.index is not None:
            self.dirty.add(change.index)

    # -- thoughts --------------------------------------------------------------------------

    def thoughts_changed(self) -> None:
        """Lay every thought out again (showing or expanding them changed)."""
        for index, entry in enumerate(self.entries):
            if is_thought(entry):
                self.dirty.add(index)

    def thought_expanded(self, index: int) -> bool:
        return self.expanded.get(index, self.expand_thoughts)

    def toggle_thought(self, index: int) -> None:
        """Expand a collapsed thought, or collapse an expanded one (laid out at the next pass)."""
        self.expanded[index] = not self.thought_expanded(index)
        self.dirty.add(index)

    # -- laying out ------------------------------------------------------------------------

    def resize(self, width: int) -> None:
        """Lay out for ``width``: every unit forgets its lines and guesses its height."""
        if width == self.width:
            return
        self.width = width
        for layout in self.layouts:
            for unit in layout.units:
                unit.estimate(width)
            layout.relayout()
        self.mark(0)

    def grow(self, at_most: int | None = None) -> None:
        """Take the entries added since the last pass (each to lay out): all, or ``at_most``
        of them (30,000 at once cost a tenth of a second)."""
        entries, layouts = self.entries, self.layouts
        end = len(entries) if at_most is None else min(len(entries), len(layouts) + at_most)
        self.dirty.update(range(len(layouts), end))
        layouts.extend(Layout() for _ in range(end - len(layouts)))

    def forget_strips(self) -> None:
        """Forget every rendered line (the styles changed); the heights stay until rendered."""
        for layout in self.layouts:
            for unit in layout.units:
                unit.strips = None

    def is_current(self, index: int) -> bool:
        """True when entry ``index`` is laid out at its latest revision."""
        if self.transcript is None or index >= len(self.layouts):
            return False
        layout = self.layouts[index]
        entry = self.transcript.entries[index]
        return layout.revision == entry.revision and not layout.backlog

    def lay_out(self, deadline: float) -> None:
        """Lay the changed entries out, in order, until ``deadline`` (``perf_counter``) or
        SCAN_BUDGET characters of message text; what is left stays in ``dirty``."""
        entries, dirty = self.entries, self.dirty
        budget = SCAN_BUDGET
        for index in self._in_order(dirty, len(entries)):
            budget -= self.lay_out_entry(index, entries[index], budget)
            if not self.layouts[index].backlog:
                dirty.discard(index)
            if time.perf_counter() > deadline:
                break
        if len(dirty) <= 1024:  # entries gone (checked once few are left, not at every pass)
            dirty.difference_update([i for i in dirty if i >= len(entries)])

    @staticmethod
    def _in_order(dirty: set[int], count: int) -> Iterator[int]:
        """The dirty entries below ``count``, in order: sorted when few; when many (a long
        transcript shown), walked up from the first, not sorted again at every pass."""
        if len(dirty) <= 1024:
            yield from [i for i in sorted(dirty) if i < count]
            return
        index = min(dirty)
        while index < count:
            if index in dirty:
                yield index
            index += 1

    def mark(self, index: int, *, moved: bool = True) -> None:
        """The offsets from entry ``index`` on are out of date (``moved``: lines may move)."""
        if moved:
            self.moves += 1
        if self.stale_from is None or index < self.stale_from:
            self.stale_from = index

    def _key(self, index: int, entry: TranscriptEntry) -> tuple[bool, ...]:
        if is_thought(entry):
            return (self.show_thoughts, self.thought_expanded(index))
        return ()

    def lay_out_entry(self, index: int, entry: TranscriptEntry, budget: int) -> int:
        """Bring one entry's layout up to date; returns the characters it scanned."""
        layout = self.layouts[index]
        key = self._key(index, entry)
        if key != layout.key:
            layout = self.layouts[index] = Layout(key=key)
        if layout.revision == entry.revision and not layout.backlog:
            return 0
        # An entry drawn whole keeps its height until it is drawn again: nothing moves yet.
        self.mark(index, moved=isinstance(entry, MessageEntry) or not layout.units)
        layout.revision = entry.revision
        if not isinstance(entry, MessageEntry):
            height = layout.units[0].height if layout.units else 1
            layout.units = [Unit("entry", height=height)]
            layout.relayout()
            return 0
        if entry.role == "thought":
            if not self.show_thoughts:
                layout.units = []
                layout.relayout()
                return 0
            if not key[1]:
                layout.units = [Unit("header")]
                layout.relayout()
                return 0
        return self._scan(entry, layout, budget)

    def _scan(self, entry: MessageEntry, layout: Layout, budget: int) -> int:
        scanner = layout.scanner
        reset = layout.parts is not entry.parts or len(entry.parts) < layout.parts_seen
        new = "" if reset else "".join(entry.parts[layout.parts_seen :])
        if scanner is not None and not reset and new and self._turns_markdown(entry, layout, new):
            reset = True  # plain text so far, Markdown from now on: all of it is Markdown
        if scanner is None or reset:
            new = "".join(entry.parts)
            markdown = renders_markdown(entry.role, new, self.markdown)
            scanner = layout.scanner = BlockScanner(markdown=markdown)
            layout.parts, layout.has_tail, layout.seen_tail = entry.parts, False, ""
            layout.units = [Unit("header")] if entry.role == "thought" else []
            layout.relayout()
        if new:
            scanner.feed(new)
            layout.seen_tail = (layout.seen_tail + new)[-_TAIL:]
        layout.parts_seen = len(entry.parts)
        units = layout.units
        if layout.has_tail:
            units.pop()
            layout.has_tail = False
        first_changed = len(units)
        scanned = 0
        while scanned < budget:
            piece = scanner.next_piece()
            if piece is None:
                break
            scanned += len(piece.text)
            units.append(self._piece_unit(piece, units))
        layout.backlog = scanned >= budget and scanner.pending > 0
        scanner.compact()
        tail = None if layout.backlog else scanner.tail()
        if tail is not None:
            units.append(self._piece_unit(tail, units))
            layout.has_tail = True
        layout.relayout(min(first_changed, len(layout.offsets) - 1))
        return scanned

    def _turns_markdown(self, entry: MessageEntry, layout: Layout, new: str) -> bool:
        """True when an agent's reply shown as plain text so far ("auto") has Markdown in
        ``new`` (or across the end of what came before and ``new``)."""
        scanner = layout.scanner
        if entry.role != "agent" or self.markdown != "auto" or scanner is None or scanner.markdown:
            return False
        return looks_like_markdown(layout.seen_tail + new)

    def _piece_unit(self, piece: Piece, units: list[Unit]) -> Unit:
        unit = Unit(
            "piece", piece, sep=not piece.glue and bool(units) and units[-1].kind != "header"
        )
        unit.estimate(self.width)
        return unit

    def rebuild_offsets(self) -> None:
        start = self.stale_from
        if start is None:
            return
        self.stale_from = None
        offsets = self.offsets
        start = min(start, len(offsets) - 1)
        del offsets[start + 1 :]
        total = offsets[start]
        for layout in self.layouts[start:]:
            total += layout.height
            offsets.append(total)

    # -- rendering -------------------------------------------------------------------------

    def render_unit(self, index: int, unit: Unit) -> None:
        """Render one unit to strips at the current width, and lay its entry out again."""
        assert self.transcript is not None
        entry = self.transcript.entries[index]
        expanded = self.thought_expanded(index)
        unit.strips = self.painter.render(entry, unit, expanded, self.width, self.terminal_lookup)
        if unit.height != len(unit.strips):
            unit.height = len(unit.strips)
            layout = self.layouts[index]
            layout.relayout(layout.units.index(unit))
            self.mark(index)

    def render_range(self, first: int, last: int) -> None:
        """Render every unit on lines ``first:last`` now (the lines above may move meanwhile)."""
        for _ in range(1000):
            todo = [(i, u) for i, _, u in self.iter_units(first, last) if u.strips is None]
            for index, unit in todo:
                self.render_unit(index, unit)
            self.rebuild_offsets()
            if not todo:
                break

    # -- reading lines ---------------------------------------------------------------------

    def iter_units(self, first: int, last: int) -> Iterator[tuple[int, int, Unit]]:
        """(entry index, first line, unit) of the units that overlap lines ``first:last``."""
        offsets = self.offsets
        index = max(bisect.bisect_right(offsets, max(first, 0)) - 1, 0)
        while index < len(self.layouts) and offsets[index] < last:
            layout = self.layouts[index]
            local = max(first - offsets[index], 0)
            position = max(bisect.bisect_right(layout.offsets, local) - 1, 0)
            while position < len(layout.units):
                start = offsets[index] + layout.offsets[position]
                if start >= last:
                    break
                yield index, start, layout.units[position]
                position += 1
            index += 1

    def locate(self, line: int) -> tuple[int, Unit | None, int]:
        """The entry index, unit (None: a blank line) and line within the unit's strips."""
        index = bisect.bisect_right(self.offsets, line) - 1
        layout = self.layouts[index]
        local = line - self.offsets[index]
        if local >= layout.offsets[-1]:
            return index, None, 0
        position = bisect.bisect_right(layout.offsets, local) - 1
        unit = layout.units[position]
        row = local - layout.offsets[position] - unit.sep
        return (index, unit, row) if row >= 0 else (index, None, 0)

    def strip(self, line: int) -> Strip | None:
        """The cached strip of one line (empty when blank); None when it is not rendered yet."""
        if not 0 <= line < self.offsets[-1]:
            return _EMPTY
        _, unit, row = self.locate(line)
        if unit is None:
            return _EMPTY
        if unit.strips is None:
            return None
        return unit.strips[row] if row < len(unit.strips) else _EMPTY

    def selected_text(self, selection: Selection, first: int, last: int) -> str | None:
        """The text of a mouse selection on lines ``first`` to ``last`` (rendered already)."""
        if last < first:
            return None
        text = "\n".join((self.strip(n) or _EMPTY).text for n in range(first, last + 1))
        start, end = selection
        local = Selection(
            None if start is None else Offset(start.x, 0),
            None if end is None else Offset(end.x, end.y - first),
        )
        lines = local.extract(text).split("\n")
        return "\n".join(line.rstrip() for line in lines)
