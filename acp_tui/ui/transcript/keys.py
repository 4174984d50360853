"""Provides TranscriptKeys: the keyboard side of the transcript view (scroll, select, copy, find).

`TranscriptView` builds on it; it holds what the keys do, the view holds the lines.

* Home/End (and Ctrl+Home/End) reach the top and the end in one press, PageUp/PageDown move
  a page: all without animation. An animated scroll is cancelled by the view's own corrections
  (an entry above turns out taller or shorter than estimated once rendered), which is why a
  long transcript used to take thirty presses to cross.
* With the view focused, Up and Down select a block (a message, or a code block inside one,
  see `acp_tui.ui.transcript.blocks`), drawn with a tinted background; ``c`` copies its source
  and Enter expands or collapses a selected thought. The selection shows only while the view
  has the focus, so it is also what shows the focus.
* The search (`acp_tui.ui.transcript.find`) counts matches in the model; the view jumps to one
  by rendering only the unit that holds it, and marks the matches on the lines in view.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.client.session.transcript import MessageEntry, Transcript, TranscriptEntry
from acp_tui.ui.transcript.blocks import (
    BlockRef,
    block_at,
    block_lines,
    block_source,
    edge_block,
    step_block,
)
from acp_tui.ui.transcript.find import (
    TranscriptSearch,
    mark_matches,
    occurrences,
    without_fences,
)

if TYPE_CHECKING:
    from acp_tui.ui.transcript.layout import Layout, Unit

__all__ = ["TranscriptKeys"]


class TranscriptKeys(ScrollView, can_focus=True):
    """Keys, block selection and search over the lines that a subclass lays out."""

    BINDINGS = [
        Binding("down", "select_block(1)", "Select", key_display="↑↓"),
        Binding("up", "select_block(-1)", "Previous block", show=False),
        Binding("c", "copy_block", "Copy block"),
        Binding("enter", "toggle_block", "Thought"),
        Binding("home,ctrl+home", "scroll_home", "Top", show=False),
        Binding("end,ctrl+end", "scroll_end", "End", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]

    COMPONENT_CLASSES = {"transcript--block", "transcript--match", "transcript--match-current"}

    # What the subclass provides (see TranscriptView).
    transcript: Transcript | None
    _layouts: list[Layout]
    _offsets: list[int]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.selected: BlockRef | None = None
        """The block the keys act on (drawn only while the view has the focus)."""
        self.search = TranscriptSearch()
        self.shown_match: tuple[int, Unit, int, int | None] | None = None
        """The match jumped to: entry index, unit, row in the unit, column (if found there)."""
        self._key_styles: dict[str, Style] = {}

    # -- the subclass's part ---------------------------------------------------------------

    def jump(self, y: int | None) -> None:
        """Scroll to line ``y`` at once; None: to the end, following it from then on."""
        raise NotImplementedError

    def render_range(self, first: int, last: int) -> None:
        raise NotImplementedError

    def line_strip(self, line: int) -> Strip:
        raise NotImplementedError

    def toggle_thought(self, index: int) -> None:
        raise NotImplementedError

    def thought_expanded(self, index: int) -> bool:
        raise NotImplementedError

    # -- scrolling -------------------------------------------------------------------------

    @property
    def entries(self) -> list[TranscriptEntry]:
        return self.transcript.entries if self.transcript is not None else []

    @property
    def page_height(self) -> int:
        return max(self.scrollable_content_region.height, 1)

    def action_scroll_home(self) -> None:
        self.jump(0)
        if self.has_focus:
            self.select(edge_block(False, self.entries, self._layouts), scroll=False)

    def action_scroll_end(self) -> None:
        self.jump(None)
        if self.has_focus:
            self.select(edge_block(True, self.entries, self._layouts), scroll=False)

    def action_page_up(self) -> None:
        self.page(-1)

    def action_page_down(self) -> None:
        self.page(1)

    def page(self, step: int) -> None:
        """Scroll a page up (``step`` -1) or down (1), keeping one line of the last page."""
        y = self.scroll_offset.y + step * max(self.page_height - 1, 1)
        self.jump(None if step > 0 and y >= self.max_scroll_y else max(y, 0))
        if self.has_focus and self.selected is not None and not self.in_view(self.selected):
            self.select(self.block_in_view(top=step > 0), scroll=False)

    # -- the selected block ----------------------------------------------------------------

    def forget_blocks(self) -> None:
        """A new transcript is shown: no selection, no search."""
        self.selected = None
        self.search.clear()
        self.shown_match = None

    def in_view(self, ref: BlockRef) -> bool:
        lines = block_lines(ref, self._offsets, self._layouts)
        top = self.scroll_offset.y
        return bool(lines) and lines.start < top + self.page_height and lines.stop > top

    def block_in_view(self, *, top: bool) -> BlockRef | None:
        """The block on the first line in view (``top``), else on the last one."""
        y = self.scroll_offset.y
        line = y if top else min(y + self.page_height, self._offsets[-1]) - 1
        return block_at(max(line, 0), self.entries, self._offsets, self._layouts)

    def select(self, ref: BlockRef | None, *, scroll: bool = True) -> None:
        """Select ``ref`` and, with ``scroll``, bring it into view."""
        self.selected = ref
        if ref is not None and scroll:
            self.scroll_to_block(ref)
        self.refresh()
        self.refresh_bindings()

    def select_at(self, line: int) -> None:
        """Select the block on ``line`` (a click)."""
        self.select(block_at(line, self.entries, self._offsets, self._layouts), scroll=False)

    def scroll_to_block(self, ref: BlockRef) -> None:
        """Scroll the least that shows the block whole, or its start when it is taller."""
        lines = block_lines(ref, self._offsets, self._layouts)
        if not lines:
            return
        page = self.page_height
        self.render_range(lines.start, min(lines.stop, lines.start + page + 1))
        lines = block_lines(ref, self._offsets, self._layouts)  # real heights now
        top = self.scroll_offset.y
        if lines.start < top or len(lines) > page:
            self.jump(lines.start)
        elif lines.stop > top + page:
            self.jump(lines.stop - page)

    def action_select_block(self, step: int) -> None:
        current = self.selected
        if current is None or not self.in_view(current):
            ref = self.block_in_view(top=step > 0)
        else:
            ref = step_block(current, step, self.entries, self._layouts) or current
        self.select(ref)

    def on_focus(self) -> None:
        if self.selected is None or not self.in_view(self.selected):
            self.select(self.block_in_view(top=False), scroll=False)
        self.refresh()

    def keep_a_selection(self) -> None:
        """With the focus, a block is always selected (the focus shows by it), also when the
        view had the focus before it had any block."""
        if self.selected is None and self.has_focus:
            self.select(self.block_in_view(top=False), scroll=False)

    def on_blur(self) -> None:
        self.refresh()

    def selected_thought(self) -> int | None:
        ref = self.selected
        if ref is None or ref.code is not None or ref.entry >= len(self.entries):
            return None
        entry = self.entries[ref.entry]
        return ref.entry if isinstance(entry, MessageEntry) and entry.role == "thought" else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_block":
            return self.selected_thought() is not None  # Enter means nothing elsewhere
        return True

    def action_toggle_block(self) -> None:
        index = self.selected_thought()
        if index is not None:
            self.toggle_thought(index)
            self.refresh_bindings()

    def action_copy_block(self) -> None:
        """Copy the selected block: a message's or a code block's source, else its text."""
        ref = self.selected
        if ref is None or ref.entry >= len(self.entries):
            self.notify("Select a block first (Up, Down).", severity="warning")
            return
        text = block_source(ref, self.entries, self._layouts)
        what = "code block" if ref.code is not None else "message"
        if text is None:  # a tool call, a plan, a notice: what is shown
            lines = block_lines(ref, self._offsets, self._layouts)
            self.render_range(lines.start, lines.stop)
            lines = block_lines(ref, self._offsets, self._layouts)
            text = "\n".join(self.line_strip(n).text.rstrip() for n in lines)
            what = "block"
        self.app.copy_to_clipboard(text)
        count = text.count("\n") + 1
        self.notify(f"Copied the {what} ({count} line{'s' if count > 1 else ''}).")

    # -- finding ---------------------------------------------------------------------------

    def hidden_entries(self) -> frozenset[int]:
        if getattr(self, "show_thoughts", True):
            return frozenset()
        entries = self.entries
        return frozenset(
            i for i, e in enumerate(entries) if isinstance(e, MessageEntry) and e.role == "thought"
        )

    def find(self, query: str) -> tuple[int, int | None]:
        """Mark the matches of ``query``; show the first from the top of the view on (then
        from the start). Returns how many there are and the number of the one shown."""
        total = self.search.run(query, self.entries, self.hidden_entries())
        top = max(bisect.bisect_right(self._offsets, self.scroll_offset.y) - 1, 0)
        self.search.current = self.search.first_from(top)
        self.show_match()
        return total, self.search.current

    def find_step(self, step: int) -> tuple[int, int | None]:
        """Show the next (``step`` 1) or previous (-1) match (see `find`)."""
        self.search.run(self.search.query, self.entries, self.hidden_entries())  # it may grow
        self.search.step(step)
        self.show_match()
        return self.search.total, self.search.current

    def clear_find(self) -> None:
        self.search.clear()
        self.shown_match = None
        self.refresh()

    def show_match(self) -> None:
        """Scroll to the current match (expanding its thought), and remember where it is."""
        self.shown_match = None
        self.refresh()
        number, query = self.search.current, self.search.query
        if number is None or not query:
            return
        match = self.search.match(number, self.entries)
        entry, index = match.entry, match.index
        thought = isinstance(entry, MessageEntry) and entry.role == "thought"
        if thought and not self.thought_expanded(index):
            self.toggle_thought(index)
        if index >= len(self._layouts) or not self._layouts[index].units:
            return
        layout = self._layouts[index]
        position, nth = unit_of_match(layout, match.nth, query)
        unit = layout.units[position]
        start = self._offsets[index] + layout.offsets[position]
        self.render_range(start, start + unit.sep + unit.height)
        row, column = 0, None
        for number_in_row, strip in enumerate(unit.strips or []):
            found = list(occurrences(strip.text.lower(), query))
            if nth < len(found):
                row, column = number_in_row, found[nth]
                break
            nth -= len(found)
        self.shown_match = (index, unit, row, column)
        line = self.match_line()
        top, page = self.scroll_offset.y, self.page_height
        if line is not None and not top <= line < top + page:
            self.jump(max(line - page // 3, 0))

    def match_line(self) -> int | None:
        """The line of the match jumped to (it moves as the lines above it are rendered)."""
        if self.shown_match is None:
            return None
        index, unit, row, _ = self.shown_match
        if index >= len(self._layouts):
            return None
        layout = self._layouts[index]
        try:
            position = layout.units.index(unit)
        except ValueError:
            return None
        return self._offsets[index] + layout.offsets[position] + unit.sep + row

    # -- drawing ---------------------------------------------------------------------------

    def key_style(self, name: str, *, background_only: bool = False) -> Style:
        style = self._key_styles.get(name)
        if style is None:
            style = self.get_component_rich_style(name, partial=False)
            if background_only:
                style = Style(bgcolor=style.bgcolor)
            self._key_styles[name] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._key_styles.clear()

    def mark_found(self, line: int, strip: Strip) -> Strip:
        """``strip`` (the text of ``line``) with the matches of the search marked."""
        query = self.search.query
        if not query or not self.search.total:
            return strip
        current = self.shown_match[3] if self.shown_match and line == self.match_line() else None
        style = self.key_style("transcript--match")
        return mark_matches(
            strip, query, style, current, self.key_style("transcript--match-current")
        )

    def mark_selected(self, line: int, strip: Strip) -> Strip:
        """``strip`` (a whole line) tinted when it belongs to the selected block."""
        ref = self.selected
        if ref is None or not self.has_focus:
            return strip
        if line not in block_lines(ref, self._offsets, self._layouts):
            return strip
        style = self.key_style("transcript--block", background_only=True)
        return Strip(Segment.apply_style(strip, post_style=style), strip.cell_length)


def unit_of_match(layout: Layout, nth: int, query: str) -> tuple[int, int]:
    """The unit that holds an entry's ``nth`` match, and which of the unit's matches it is."""
    for position, unit in enumerate(layout.units):
        if unit.piece is None:
            continue
        count = without_fences(unit.piece.text).lower().count(query)
        if nth < count:
            return position, nth
        nth -= count
    pieces = [p for p, u in enumerate(layout.units) if u.piece is not None]
    return (0, nth) if not pieces else (pieces[0], 0)
