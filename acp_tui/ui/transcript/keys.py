"""Provides the transcript view's keys (BINDINGS) and BlockKeys, which answers where they go.

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

`BlockKeys` holds the selected block and answers questions about the lines (which block is in
view, which comes next, where to scroll to show one) for a place in them that it is given; like
Textual's document navigator it moves nothing: the view scrolls, renders and redraws.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from acp_tui.ui.transcript.blocks import (
    BlockRef,
    block_at,
    block_lines,
    block_source,
    edge_block,
    step_block,
)
from acp_tui.ui.transcript.lines import TranscriptLines, is_thought

__all__ = ["BINDINGS", "BlockKeys"]

BINDINGS: list[BindingType] = [
    Binding("down", "select_block(1)", "Select", key_display="↑↓"),
    Binding("up", "select_block(-1)", "Previous block", show=False),
    Binding("c", "copy_block", "Copy block"),
    Binding("enter", "toggle_block", "Thought"),
    Binding("home,ctrl+home", "scroll_home", "Top", show=False),
    Binding("end,ctrl+end", "scroll_end", "End", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
]
"""The transcript view's keys, each an action of the view that asks `BlockKeys`."""


class BlockKeys:
    """The block the keys act on, over ``lines``; ``top`` and ``page`` (the first line in view
    and how many lines are in view) say where the view is."""

    def __init__(self, lines: TranscriptLines) -> None:
        self.lines = lines
        self.selected: BlockRef | None = None
        """The block the keys act on (drawn only while the view has the focus)."""

    def lines_of(self, ref: BlockRef) -> range:
        """The lines of block ``ref``."""
        return block_lines(ref, self.lines.offsets, self.lines.layouts)

    def in_view(self, ref: BlockRef, top: int, page: int) -> bool:
        lines = self.lines_of(ref)
        return bool(lines) and lines.start < top + page and lines.stop > top

    def selects(self, line: int) -> bool:
        """True when ``line`` belongs to the selected block."""
        return self.selected is not None and line in self.lines_of(self.selected)

    def block_in_view(self, top: int, page: int, *, first: bool) -> BlockRef | None:
        """The block on the first line in view (``first``), else on the last one."""
        line = top if first else min(top + page, self.lines.height) - 1
        return self.at(max(line, 0))

    def at(self, line: int) -> BlockRef | None:
        """The innermost block on ``line``."""
        lines = self.lines
        return block_at(line, lines.entries, lines.offsets, lines.layouts)

    def edge(self, last: bool) -> BlockRef | None:
        """The first block of the transcript, or the last one."""
        return edge_block(last, self.lines.entries, self.lines.layouts)

    def stepped(self, step: int, top: int, page: int) -> BlockRef | None:
        """The block after the selected one (``step`` 1) or before it (-1); from a selection
        out of view, the block in view at the end the step goes from."""
        current = self.selected
        if current is None or not self.in_view(current, top, page):
            return self.block_in_view(top, page, first=step > 0)
        return step_block(current, step, self.lines.entries, self.lines.layouts) or current

    def scroll_target(self, ref: BlockRef, top: int, page: int) -> int | None:
        """Where to scroll to show ``ref`` (rendered): the least move that shows it whole, or
        its start when it is taller than a page; None when it is in view already."""
        lines = self.lines_of(ref)
        if lines.start < top or len(lines) > page:
            return lines.start
        if lines.stop > top + page:
            return lines.stop - page
        return None

    def selected_thought(self) -> int | None:
        """The entry index of the selected block when it is a whole thought."""
        ref = self.selected
        entries = self.lines.entries
        if ref is None or ref.code is not None or ref.entry >= len(entries):
            return None
        return ref.entry if is_thought(entries[ref.entry]) else None

    def source(self, ref: BlockRef) -> str | None:
        """What copying ``ref`` gives: a code block's code or a message's markdown; None for
        a tool call, a plan or a notice, which copy as they are shown."""
        return block_source(ref, self.lines.entries, self.lines.layouts)
