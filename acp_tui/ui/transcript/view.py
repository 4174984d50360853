"""Provides TranscriptView: the transcript shown, with its keys, the mouse, and find.

`TranscriptDisplay` shows the transcript; the view adds what the user does with it, asking the
display's helpers where things are and moving the display there. The keys are `keys.BINDINGS`
(see `acp_tui.ui.transcript.keys`, where `BlockKeys` answers where each one goes); the search is
`TranscriptSearch`, and the view is the target of the find bar (`find`, `find_step`,
`clear_find`). The view also holds whether thoughts are shown and whether they start
expanded (settings), and opens or closes one on a key or a click on its header.
"""

from __future__ import annotations

import textwrap

from rich.segment import Segment
from textual import events
from textual.reactive import var
from textual.selection import Selection
from textual.strip import Strip

from acp_tui.ui.transcript import keys
from acp_tui.ui.transcript.blocks import BlockRef, last_reply
from acp_tui.ui.transcript.display import TranscriptDisplay
from acp_tui.ui.transcript.lines import is_thought

__all__ = ["TranscriptView"]


class TranscriptView(TranscriptDisplay, can_focus=True):
    """Shows a transcript, and lets the keys and the mouse select, copy and find in it."""

    ALLOW_SELECT = True
    BINDINGS = keys.BINDINGS

    empty_hint: tuple[str, ...] = ()
    """What an empty chat shows: what to try (the pane says it, for its agent)."""
    _hint_wrapped: tuple[tuple[int, tuple[str, ...]] | None, list[str]] = (None, [])

    show_thoughts: var[bool] = var(True)
    """Show thoughts at all (a setting); False hides them entirely."""
    expand_thoughts: var[bool] = var(False)
    """Whether thoughts start expanded; a click on a thought's header toggles that one."""

    def render_line(self, y: int) -> Strip:
        if self.lines.height or not self.empty_hint:
            return super().render_line(y)
        width = self.scrollable_content_region.width
        hint = self.hint_lines(width)
        if y >= len(hint):
            return super().render_line(y)
        style = self.rich_style + self.painter.mark_style("transcript--notice")
        return Strip([Segment(f"  {hint[y]}", style)]).crop_extend(0, width, self.rich_style)

    def hint_lines(self, width: int) -> list[str]:
        """The empty chat's hint, wrapped to ``width``, after a blank line (wrapped once per
        width and hint: each line of each frame asks)."""
        key = (width, self.empty_hint)
        if self._hint_wrapped[0] != key:
            lines = [""]
            for paragraph in self.empty_hint:
                lines.extend(textwrap.wrap(paragraph, max(width - 4, 20)) or [""])
            self._hint_wrapped = (key, lines)
        return self._hint_wrapped[1]

    # -- thoughts --------------------------------------------------------------------------

    def watch_show_thoughts(self, show: bool) -> None:
        self.lines.show_thoughts = show
        self.relayout_thoughts()

    def watch_expand_thoughts(self, expand: bool) -> None:
        self.lines.expand_thoughts = expand
        self.lines.expanded.clear()
        self.relayout_thoughts()

    def relayout_thoughts(self) -> None:
        if self.transcript is not None:
            self.lines.thoughts_changed()
            self.flush()

    def toggle_thought(self, index: int) -> None:
        """Expand a collapsed thought, or collapse an expanded one."""
        self.lines.toggle_thought(index)
        self.flush()

    def plain_lines(self) -> list[str]:
        """Everything, rendered, as plain text lines (for tests; renders what was not yet)."""
        self.render_range(0, self.lines.height)
        return [self.line_strip(n).text.rstrip() for n in range(self.lines.height)]

    def visible_lines(self) -> list[str]:
        """The plain text of the lines in view."""
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        return [self.line_strip(n).text.rstrip() for n in range(top, top + height)]

    # -- the selected block ----------------------------------------------------------------

    @property
    def selected(self) -> BlockRef | None:
        """The block the keys act on (drawn only while the view has the focus)."""
        return self.keys.selected

    def in_view(self, ref: BlockRef) -> bool:
        return self.keys.in_view(ref, self.scroll_offset.y, self.page_height)

    def block_in_view(self, *, first: bool) -> BlockRef | None:
        """The block on the first line in view (``first``), else on the last one."""
        return self.keys.block_in_view(self.scroll_offset.y, self.page_height, first=first)

    def select(self, ref: BlockRef | None, *, scroll: bool = True) -> None:
        """Select ``ref`` and, with ``scroll``, bring it into view: the least move that shows
        it whole (its lines rendered first), or its start when it is taller than a page."""
        self.keys.selected = ref
        if ref is not None and scroll:
            lines = self.keys.lines_of(ref)
            if lines:
                self.render_range(lines.start, min(lines.stop, lines.start + self.page_height + 1))
                target = self.keys.scroll_target(ref, self.scroll_offset.y, self.page_height)
                if target is not None:
                    self.jump(target)
        self.refresh()
        self.refresh_bindings()

    def keep_a_selection(self) -> None:
        """With the focus, a block is always selected (the focus shows by it), also when the
        view had the focus before it had any block."""
        if self.selected is None and self.has_focus:
            self.select(self.block_in_view(first=False), scroll=False)

    # -- the mouse -------------------------------------------------------------------------

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        start, end = selection
        first = start.y if start is not None else 0
        last = end.y if end is not None else self.lines.height - 1
        self.render_range(first, last + 1)
        text = self.lines.selected_text(selection, first, min(last, self.lines.height - 1))
        return None if text is None else (text, "\n")

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.transcript is None:
            return
        line = self.scroll_offset.y + offset.y
        if not 0 <= line < self.lines.height:
            return
        index, unit, row = self.lines.locate(line)
        self.select(self.keys.at(line), scroll=False)
        if unit is not None and unit.kind == "header" and row == 0:
            event.stop()
            self.toggle_thought(index)

    # -- the keys: scrolling ---------------------------------------------------------------

    def action_scroll_home(self) -> None:
        self.jump(0)
        if self.has_focus:
            self.select(self.keys.edge(last=False), scroll=False)

    def action_scroll_end(self) -> None:
        self.jump(None)
        if self.has_focus:
            self.select(self.keys.edge(last=True), scroll=False)

    def action_page_up(self) -> None:
        self.page(-1)

    def action_page_down(self) -> None:
        self.page(1)

    def page(self, step: int) -> None:
        """Scroll a page up (``step`` -1) or down (1), keeping one line of the last page."""
        y = self.scroll_offset.y + step * max(self.page_height - 1, 1)
        self.jump(None if step > 0 and y >= self.max_scroll_y else max(y, 0))
        if self.has_focus and self.selected is not None and not self.in_view(self.selected):
            self.select(self.block_in_view(first=step > 0), scroll=False)

    # -- the keys: the selected block ------------------------------------------------------

    def action_select_block(self, step: int) -> None:
        self.select(self.keys.stepped(step, self.scroll_offset.y, self.page_height))

    def on_focus(self) -> None:
        if self.selected is None or not self.in_view(self.selected):
            self.select(self.block_in_view(first=False), scroll=False)
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_block":
            return self.keys.selected_thought() is not None  # Enter means nothing elsewhere
        return True

    def action_toggle_block(self) -> None:
        index = self.keys.selected_thought()
        if index is not None:
            self.toggle_thought(index)
            self.refresh_bindings()

    def action_copy_block(self) -> None:
        """Copy the selected block: a message's or a code block's source, else its text."""
        ref = self.selected
        if ref is None or ref.entry >= len(self.lines.entries):
            self.notify("Select a block first (Up, Down).", severity="warning")
            return
        text = self.keys.source(ref)
        what = "code block" if ref.code is not None else "message"
        if text is None:  # a tool call, a plan, a notice: what is shown
            lines = self.keys.lines_of(ref)
            self.render_range(lines.start, lines.stop)
            text = "\n".join(self.line_strip(n).text.rstrip() for n in self.keys.lines_of(ref))
            what = "block"
        self.app.copy_to_clipboard(text)
        count = text.count("\n") + 1
        self.notify(f"Copied the {what} ({count} line{'s' if count > 1 else ''}).")

    def last_reply(self) -> str | None:
        """The markdown source of the agent's last reply (all its messages), if any."""
        return last_reply(self.lines.entries)

    def copy_last_reply(self) -> bool:
        """Copy the agent's last reply, its markdown source, to the clipboard."""
        reply = self.last_reply()
        if reply is None:
            return False
        self.app.copy_to_clipboard(reply)
        return True

    def action_copy_last_reply(self) -> None:
        if self.copy_last_reply():
            self.notify("Copied the last reply (markdown).")
        else:
            self.notify("There is no reply to copy yet.", severity="warning")

    # -- the keys: finding (`FindBar`'s target) --------------------------------------------

    def find(self, query: str) -> tuple[int, int | None]:
        """Mark the matches of ``query``; show the first from the top of the view on (then
        from the start). Returns how many there are and the number of the one shown."""
        found = self.search.find(query, self.scroll_offset.y)
        self.show_match()
        return found

    def find_step(self, step: int) -> tuple[int, int | None]:
        """Show the next (``step`` 1) or previous (-1) match (see `find`)."""
        found = self.search.step(step)
        self.show_match()
        return found

    def handed_over(self) -> None:
        """A transcript that continues the one shown replaced it (see `Handover`): the match
        of the find bar's query is found again where the view is."""
        if self.search.query:
            self.search.find(self.search.query, self.scroll_offset.y)
            self.show_match()

    def clear_find(self) -> None:
        self.search.clear()
        self.refresh()

    def match_line(self) -> int | None:
        """The line of the match shown, if any."""
        return self.search.match_line()

    def show_match(self) -> None:
        """Scroll to the current match (expanding its thought), and remember where it is."""
        self.refresh()
        match = self.search.chosen()
        if match is None:
            return
        if is_thought(match.entry) and not self.lines.thought_expanded(match.index):
            self.toggle_thought(match.index)
        lines = self.search.unit_lines(match)
        if lines is None:
            return
        self.render_range(lines.start, lines.stop)
        line = self.search.place(match)
        top, page = self.scroll_offset.y, self.page_height
        if line is not None and not top <= line < top + page:
            self.jump(max(line - page // 3, 0))
