"""Provides TranscriptDisplay: a transcript on screen, laid out and rendered in frames.

Built for any length (DESIGN §4), from composed helpers: `TranscriptLines` (``lines``) lays the
transcript out in units and lines and renders each unit once through the `Painter`
(``painter``), which holds the styles of the component classes and paints the marks; `BlockKeys`
(``keys``) holds the selected block and `TranscriptSearch` (``search``) the matches, whose marks
are painted here. The display owns the scrolling and the frames: units render only when they
come into view (others count with an estimated height), and only visible lines are painted.
Changes are flushed at most ~30 times a second (by a `FlushTimer`, which rests while nothing
changes), and a flush lays out and renders for a few milliseconds at most (LAYOUT_BUDGET,
RENDER_BUDGET, and the lines' SCAN_BUDGET), going on in the next loop iteration, so the event
loop never waits on the transcript's size; a frame is shown only once all of it is rendered
(`FramePacer` says when one is due). A transcript that continues the one shown replaces it
without a jump (`Handover`). The scroll size changes without a layout of the screen.
`TranscriptView` adds the selection, the keys, the thoughts' showing and expanding, and find.
"""

from __future__ import annotations

import asyncio
import time

from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.client.session.transcript import Transcript
from acp_tui.ui.transcript.find import TranscriptSearch
from acp_tui.ui.transcript.frames import FlushTimer, FramePacer
from acp_tui.ui.transcript.handover import Handover, continues, entry_at
from acp_tui.ui.transcript.keys import BlockKeys
from acp_tui.ui.transcript.lines import TranscriptLines
from acp_tui.ui.transcript.painter import COMPONENT_CLASSES, DISPLAY_CSS, Painter, highlight
from acp_tui.ui.transcript.render import TerminalLookup, warm_up_in_background

__all__ = ["TranscriptDisplay"]

FLUSH_INTERVAL = 1 / 30
RENDER_BUDGET = 0.008  # seconds of rendering units per loop iteration (then it goes on later)
LAYOUT_BUDGET = 0.008  # seconds of laying entries out per loop iteration
_EMPTY = Strip([], 0)


class TranscriptDisplay(ScrollView, can_focus=True):
    """Shows a transcript; follows the end while the user has not scrolled away from it."""

    COMPONENT_CLASSES = COMPONENT_CLASSES

    DEFAULT_CSS = DISPLAY_CSS

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.painter = Painter(self)
        self.lines = TranscriptLines(self.painter)
        self.keys = BlockKeys(self.lines)
        self.search = TranscriptSearch(self.lines)
        self.pacer = FramePacer()
        self.flush_timer = FlushTimer(self.flush, self._nothing_to_flush)
        self.lines.on_change = self.flush_timer.wake
        self._unsubscribe: object = None
        self._missing = False  # lines in view (or their place) are not rendered yet
        self._follow = True
        self._seen_scroll_y = 0
        self._going_on = False
        self._line_style: Style | None = None
        self._block_lines: range | None = None
        self.flushes = 0
        self.handover: Handover | None = None
        """The transcript laid out behind the one shown, to replace it (see `Handover`)."""

    # -- wiring ----------------------------------------------------------------------------

    @property
    def transcript(self) -> Transcript | None:
        return self.lines.transcript

    def show(self, transcript: Transcript, terminal_lookup: TerminalLookup | None = None) -> None:
        """Display ``transcript`` and follow its changes: at once from its end, or, when it
        ends with what is shown, once laid out, where the view is (see `Handover`)."""
        if self.handover is not None:
            self.handover.cancel()
            self.handover = None
        if continues(self.lines.transcript, transcript, entry_at(self.lines, self.scroll_offset.y)):
            self.handover = Handover(self.painter, self.lines, transcript, terminal_lookup)
            self._go_on()
            return
        if callable(self._unsubscribe):
            self._unsubscribe()
        self.lines.show(transcript, terminal_lookup)
        self.keys.selected = None
        self.search.clear()
        self._follow = True
        self.pacer.start_over()  # lay a long transcript out before its end
        self._unsubscribe = transcript.subscribe(self.lines.note_change)
        self.flush()

    def on_mount(self) -> None:
        self.flush_timer.timer = self.set_interval(FLUSH_INTERVAL, self.flush_timer.tick)
        self.call_after_refresh(warm_up_in_background)
        self.watch(self.app, "theme", self.theme_changed, init=False)

    def on_unmount(self) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()
        if self.handover is not None:
            self.handover.cancel()

    def on_resize(self) -> None:
        self.flush_timer.wake()  # (shown again, or a new width to lay out for)
        if self.following:  # e.g. the prompt grew: the end stays in view
            self._missing = True
            self.flush()

    def notify_style_update(self) -> None:
        """The CSS changed around the view: forget the rendered lines only when the styles
        they were rendered with changed."""
        super().notify_style_update()
        if self.painter.restyled():
            self.restyle()

    def restyle(self) -> None:
        """Forget rendered lines and styles: the theme or the CSS changed."""
        self.painter.forget()
        self.lines.forget_strips()
        self._missing = True
        self.flush_timer.wake()

    def theme_changed(self) -> None:
        # The component classes take the new theme's colours only after the next refresh.
        self.call_after_refresh(self.restyle_and_flush)

    def restyle_and_flush(self) -> None:
        self.restyle()
        self.flush()
        self.refresh()

    @property
    def following(self) -> bool:
        """True while the view sticks to the end (the user has not scrolled up)."""
        y = self.scroll_offset.y
        if y != self._seen_scroll_y:
            self._seen_scroll_y = y
            self._follow = y >= self.max_scroll_y
        return self._follow

    @property
    def settled(self) -> bool:
        """True when everything that changed is laid out and everything in view is rendered."""
        width = max(self.scrollable_content_region.width, 10)
        return self.lines.idle and not self._missing and width == self.lines.width

    def is_current(self, index: int) -> bool:
        """True when entry ``index`` is laid out at its latest revision."""
        return self.lines.is_current(index)

    @property
    def page_height(self) -> int:
        return max(self.scrollable_content_region.height, 1)

    # -- frames ----------------------------------------------------------------------------

    def _nothing_to_flush(self) -> bool:
        hidden = self.scrollable_content_region.width <= 0  # shown again, a resize wakes it
        return self.transcript is None or hidden or (self.settled and self.handover is None)

    def flush(self) -> None:
        """Lay out what changed, render what is in view, and update the scroll size."""
        self.flush_timer.wake()  # (asked for from elsewhere: the timer flushes what is left)
        lines = self.lines
        if lines.transcript is None or not self.is_mounted:
            return
        if self.scrollable_content_region.width <= 0:
            return  # hidden (a tab in the background): keep the lines for its width
        if self.handover is not None:
            self._hand_over(self.handover)
            lines = self.lines
        following = self.following
        unmoved = (lines.moves, lines.height, self.scroll_offset.y)
        lines.resize(max(self.scrollable_content_region.width, 10))
        lines.grow()
        if lines.idle and not self._missing:
            return
        changed = bool(lines.dirty)
        lines.lay_out(time.perf_counter() + LAYOUT_BUDGET)
        if lines.dirty:
            self._go_on()  # a backlog: go on once the loop has run what else is ready
        lines.rebuild_offsets()
        self.flushes += 1
        self.keep_a_selection()
        pacer = self.pacer
        if lines.dirty and following and pacer.shown_lately():
            self._missing = True  # the end is not known yet: rendering it would be wasted
            return
        if changed and not pacer.frame_begun and not pacer.frame_due():
            self._missing = True  # the last frame stays on screen until the next render
            return
        painted: list[tuple[int, int]] | None = None if pacer.frame_begun else []
        started = pacer.begin()
        self._missing = False
        if not pacer.end(self._render_window(following, started + RENDER_BUDGET, painted)):
            # Out of time with units still to render: go on in the next loop iteration (a
            # frame due is not held back again), and show nothing half-rendered meanwhile.
            self._missing = True
            self._go_on()
            return
        if painted and unmoved == (lines.moves, lines.height, self.scroll_offset.y):
            # Only units drawn again in their place (a count, a status): only their lines are
            # composed again, not the whole view each frame.
            for start, height in painted:
                self.refresh_lines(start, height)
        else:
            self.refresh()

    def _hand_over(self, handover: Handover) -> None:
        """Lay the new transcript out a while; once done, show it where the view is, at once."""
        if not handover.lay_out(max(self.scrollable_content_region.width, 10), LAYOUT_BUDGET / 2):
            self._go_on()
            return
        self.handover = None
        y = None if self.following else handover.place(self.lines, self.scroll_offset.y)
        if callable(self._unsubscribe):
            self._unsubscribe()
        self._unsubscribe = handover.unsubscribe
        self.lines = self.keys.lines = self.search.lines = handover.lines
        self.keys.selected = None
        self.set_virtual_size(Size(self.lines.width, self.lines.height))
        if y is not None:
            self.scroll_to(y=y, animate=False, immediate=True, force=True)
        self._follow = y is None
        self._render_window(self._follow, time.perf_counter() + 1.0)  # no half frame
        self.refresh()
        self.handed_over()

    def handed_over(self) -> None:
        """The new transcript is shown (`TranscriptView` finds the find bar's query again)."""

    def _go_on(self) -> None:
        """Flush again in the next loop iteration, after the callbacks ready meanwhile."""
        if not self._going_on:
            self._going_on = True
            asyncio.get_running_loop().call_soon(self._continue)

    def _continue(self) -> None:
        self._going_on = False
        self.flush()

    def _render_window(
        self, following: bool, deadline: float, painted: list[tuple[int, int]] | None = None
    ) -> bool:
        """Render the units in (and a page around) the view; keep the view's place.

        Stops at ``deadline`` (``perf_counter``) once at least one unit was rendered: False
        when units are left to render (the view has not moved to show them yet). The lines of
        each unit rendered are added to ``painted`` (first line, height).
        """
        lines = self.lines
        page = self.page_height
        done = 0
        for _ in range(4):
            total = lines.height
            top = max(0, total - page) if following else self.scroll_offset.y
            shift = 0
            first, last = (top, total) if following else (top - page // 2, top + page + page // 2)
            todo = [u for u in lines.iter_units(first, last) if u[2].strips is None]
            for index, start, unit in todo:
                done += 1
                if done > 1 and time.perf_counter() > deadline:
                    lines.rebuild_offsets()
                    if not following:
                        self._place(following, shift)  # what is in view stays where it was
                    return False
                old = unit.height
                lines.render_unit(index, unit)
                if painted is not None:
                    painted.append((start, unit.height))
                if not following and start < top:
                    shift += unit.height - old
            lines.rebuild_offsets()
            self._place(following, shift)
            if not todo:
                return True
        return True

    def jump(self, y: int | None) -> None:
        """Scroll to line ``y`` at once (None: to the end, and follow it from then on).

        Never animated: each frame of an animation would be undone by the next correction.
        """
        if y is None:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            self._follow = True
        else:
            self.scroll_to(y=y, animate=False, immediate=True, force=True)
            self._follow = self.scroll_offset.y >= self.max_scroll_y
        self._seen_scroll_y = self.scroll_offset.y
        self._missing = True  # render what came into view, and correct the place
        self.flush()

    def _place(self, following: bool, shift: int) -> None:
        """Set the scroll size; stick to the end, or keep what is in view where it was."""
        top = self.scroll_offset.y
        self.set_virtual_size(Size(self.lines.width, self.lines.height))
        if following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
        elif shift:
            self.scroll_to(y=top + shift, animate=False, immediate=True, force=True)
        self._seen_scroll_y = self.scroll_offset.y

    def set_virtual_size(self, size: Size) -> None:
        """Set the scroll size without a layout of the whole screen (``virtual_size`` is a
        layout reactive: assigning it reflows and repaints every widget, once a frame while a
        reply streams in). The view's own size never depends on it (it fills its pane), so only
        its scrollbars are updated (a scrollbar that appears or goes still lays the screen out,
        as ``show_vertical_scrollbar`` does that)."""
        if size == self.virtual_size:
            return
        self.set_reactive(TranscriptDisplay.virtual_size, size)
        self._scroll_update(size)
        self.refresh()

    def render_range(self, first: int, last: int) -> None:
        """Render every unit on lines ``first:last`` now (for copying and tests)."""
        self.lines.render_range(first, last)
        self.set_virtual_size(Size(self.lines.width, self.lines.height))

    # -- painting --------------------------------------------------------------------------

    def line_strip(self, line: int) -> Strip:
        """The cached strip of one line (empty when it is not rendered yet)."""
        strip = self.lines.strip(line)
        if strip is None:
            if not self._missing:
                self._missing = True
                self.call_later(self.flush)
            return _EMPTY
        return strip

    def render_lines(self, crop: Region) -> list[Strip]:
        # The base style walks every ancestor's styles, and the selected block's lines every
        # unit of its message: once a frame, not once a line.
        self._line_style = self.rich_style
        selected = self.keys.selected if self.has_focus else None
        self._block_lines = range(0) if selected is None else self.keys.lines_of(selected)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = self._block_lines = None
            self.pacer.drawn(time.perf_counter() - wall, time.process_time() - cpu)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width
        base = self._line_style or self.rich_style
        if line >= self.lines.height:
            return Strip.blank(width, base)
        strip = self.line_strip(line)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(line)) is not None:
            style = self.screen.get_component_rich_style("screen--selection")
            strip = highlight(strip, span[0], span[1], style)
        strip = self.search.mark(line, strip, self.painter)
        strip = strip.crop_extend(scroll_x, scroll_x + width, base)
        # A text selection (the mouse's) shows instead of the block.
        if selection is None and self.has_focus and self._selects(line):
            strip = self.painter.tint(strip)
        return strip.apply_style(base).apply_offsets(scroll_x, line)

    def _selects(self, line: int) -> bool:
        """Whether ``line`` is in the selected block (the view has the focus)."""
        block = self._block_lines
        return self.keys.selects(line) if block is None else line in block

    # -- the selected block (the view's) ---------------------------------------------------

    def keep_a_selection(self) -> None:
        """With the focus, a block is always selected (see `TranscriptView`)."""
