"""Provides TranscriptView: a line-based scroll view of a session transcript.

Built for any length (DESIGN §4). Each entry is laid out as units: a whole tool call, plan or
notice, or one bounded piece of a message (see ``BlockScanner``). Units render lazily, only when
they come into view (others count with an estimated height), and once: a unit re-renders only
when its entry changes, or the width or theme does. Only visible lines are painted, changes are
flushed at most ~30 times a second, and a flush lays out and renders for a few milliseconds at
most (LAYOUT_BUDGET, RENDER_BUDGET, SCAN_BUDGET), going on in the next loop iteration, so the
event loop never waits on the transcript's size; a frame is shown only once all of it is
rendered. The scroll size changes without a layout of the screen.

The keys (scrolling, selecting and copying blocks, finding text) are `TranscriptKeys`'.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Iterator

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme
from textual import events
from textual.geometry import Offset, Region, Size
from textual.reactive import var
from textual.selection import Selection
from textual.strip import Strip

from acp_tui.client.session.transcript import Change, MessageEntry, Transcript, TranscriptEntry
from acp_tui.ui.transcript.blocks import last_reply
from acp_tui.ui.transcript.keys import TranscriptKeys
from acp_tui.ui.transcript.layout import Layout, Unit, highlight
from acp_tui.ui.transcript.pieces import BlockScanner, Piece
from acp_tui.ui.transcript.render import (
    RenderOptions,
    Styles,
    TerminalLookup,
    render_entry,
    render_piece,
    render_plain_piece,
    render_thought_header,
    warm_up_in_background,
)

FLUSH_INTERVAL = 1 / 30
RENDER_CPU_FACTOR = 4
MAX_FRAME_GAP = 0.25  # seconds: the longest a changing transcript waits for a frame
RENDER_BUDGET = 0.008  # seconds of rendering units per loop iteration (then it goes on later)
LAYOUT_BUDGET = 0.008  # seconds of laying entries out per loop iteration
SCAN_BUDGET = 128_000  # characters of message text cut into pieces per flush
_EMPTY = Strip([], 0)


class TranscriptView(TranscriptKeys, can_focus=True):
    """Shows a transcript; follows the end while the user has not scrolled away from it."""

    ALLOW_SELECT = True

    COMPONENT_CLASSES = {
        "transcript--user",
        "transcript--thought",
        "transcript--tool",
        "transcript--meta",
        "transcript--diff-add",
        "transcript--diff-remove",
        "transcript--diff-hunk",
        "transcript--notice",
        "transcript--warning",
        "transcript--error",
        "transcript--code",
    }

    DEFAULT_CSS = """
    TranscriptView {
        background: $surface;
        padding: 0 1;
        overflow-x: hidden;
        & > .transcript--user { color: $text-primary; text-style: bold; }
        & > .transcript--thought { color: $text-muted; text-style: italic; }
        & > .transcript--tool { color: $text-accent; text-style: bold; }
        & > .transcript--meta { color: $text-muted; }
        & > .transcript--diff-add { color: $text-success; }
        & > .transcript--diff-remove { color: $text-error; }
        & > .transcript--diff-hunk { color: $text-secondary; }
        & > .transcript--notice { color: $text-muted; text-style: italic; }
        & > .transcript--warning { color: $text-warning; }
        & > .transcript--error { color: $text-error; text-style: bold; }
        & > .transcript--code { color: $text-accent; background: $foreground 8%; }
        & > .transcript--block { background: $accent 18%; }
        & > .transcript--match { background: $warning 35%; }
        & > .transcript--match-current { background: $warning; color: auto 90%; }
        &:focus { background-tint: $foreground 4%; }
    }
    """

    show_thoughts: var[bool] = var(True)
    """Show thoughts at all (a setting); False hides them entirely."""
    expand_thoughts: var[bool] = var(False)
    """Whether thoughts start expanded; a click on a thought's header toggles that one."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.transcript: Transcript | None = None
        self.terminal_lookup: TerminalLookup | None = None
        self._unsubscribe: object = None
        self._layouts: list[Layout] = []
        self._offsets: list[int] = [0]
        self._stale_from: int | None = None
        self._dirty: set[int] = set()
        self._missing = False
        self._width = 0
        self._styles: Styles | None = None
        self._rich_theme = Theme()  # what Rich's markdown styles by name, from `_styles`
        self._expanded: dict[int, bool] = {}
        self._follow = True
        self._seen_scroll_y = 0
        self._render_after = 0.0
        self._render_after_cpu = 0.0
        self._rendered_at = 0.0
        self._frame_spent: tuple[float, float] | None = None
        """Wall and CPU time spent so far on a frame rendered in several steps."""
        self._going_on = False
        self._line_style: Style | None = None
        self.flushes = 0

    # -- wiring ----------------------------------------------------------------------------

    def show(self, transcript: Transcript, terminal_lookup: TerminalLookup | None = None) -> None:
        """Display ``transcript`` and follow its changes."""
        if callable(self._unsubscribe):
            self._unsubscribe()
        self.transcript = transcript
        self.terminal_lookup = terminal_lookup
        self._layouts, self._offsets, self._expanded = [], [0], {}
        self.forget_blocks()
        self._dirty.clear()
        self._stale_from = 0
        self._follow = True
        self._frame_spent = None
        self._rendered_at = time.perf_counter()  # lay a long transcript out before its end
        self._unsubscribe = transcript.subscribe(self.note_change)
        self.flush()

    def on_mount(self) -> None:
        self.set_interval(FLUSH_INTERVAL, self.flush)
        self.call_after_refresh(warm_up_in_background)
        self.watch(self.app, "theme", self.theme_changed, init=False)

    def on_unmount(self) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()

    def on_resize(self) -> None:
        if self.following:  # e.g. the prompt grew: the end stays in view
            self._missing = True
            self.flush()

    def note_change(self, change: Change) -> None:
        if change.index is not None:
            self._dirty.add(change.index)

    def watch_show_thoughts(self) -> None:
        self.relayout_thoughts()

    def watch_expand_thoughts(self) -> None:
        self._expanded.clear()
        self.relayout_thoughts()

    def relayout_thoughts(self) -> None:
        if self.transcript is not None:
            for index, entry in enumerate(self.transcript.entries):
                if isinstance(entry, MessageEntry) and entry.role == "thought":
                    self._dirty.add(index)
            self.flush()

    def toggle_thought(self, index: int) -> None:
        """Expand a collapsed thought, or collapse an expanded one."""
        self._expanded[index] = not self.thought_expanded(index)
        self._dirty.add(index)
        self.flush()

    def thought_expanded(self, index: int) -> bool:
        return self._expanded.get(index, self.expand_thoughts)

    def notify_style_update(self) -> None:
        """The CSS changed around the view: forget the rendered lines only when the styles
        they were rendered with changed (showing a hidden tab, or a focus change, re-applies
        the CSS but changes nothing the lines depend on)."""
        super().notify_style_update()
        before = self._styles
        self._styles = None
        if before is None or not self.is_mounted or self.styles_for_render != before:
            self.restyle()

    def restyle(self) -> None:
        """Forget rendered lines and styles: the theme or the CSS changed."""
        self._styles = None
        for layout in self._layouts:
            for unit in layout.units:
                unit.strips = None
        self._missing = True

    def theme_changed(self) -> None:
        # The component classes take the new theme's colours only after the next refresh.
        self.call_after_refresh(self.restyle_and_flush)

    def restyle_and_flush(self) -> None:
        self.restyle()
        self.flush()
        self.refresh()

    @property
    def styles_for_render(self) -> Styles:
        if self._styles is None:

            def style(name: str) -> Style:
                # Not partial: "auto" and translucent colours ($text-muted) need the
                # background to resolve against, or light themes get near-white text.
                return self.get_component_rich_style(name, partial=False)

            dark = self.app.current_theme.dark if self.is_mounted else True
            self._styles = Styles(
                user=style("transcript--user"),
                thought=style("transcript--thought"),
                tool=style("transcript--tool"),
                tool_meta=style("transcript--meta"),
                diff_add=style("transcript--diff-add"),
                diff_remove=style("transcript--diff-remove"),
                diff_hunk=style("transcript--diff-hunk"),
                notice=style("transcript--notice"),
                warning=style("transcript--warning"),
                error=style("transcript--error"),
                inline_code=style("transcript--code"),
                code_theme="monokai" if dark else "default",
            )
            self._rich_theme = Theme({"markdown.code": self._styles.inline_code})
        return self._styles

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
        idle = not self._dirty and not self._missing and self._stale_from is None
        return idle and width == self._width

    def is_current(self, index: int) -> bool:
        """True when entry ``index`` is laid out at its latest revision."""
        if self.transcript is None or index >= len(self._layouts):
            return False
        layout = self._layouts[index]
        entry = self.transcript.entries[index]
        return layout.revision == entry.revision and not layout.backlog

    # -- laying out ------------------------------------------------------------------------

    def flush(self) -> None:
        """Lay out what changed, render what is in view, and update the scroll size."""
        transcript = self.transcript
        if transcript is None or not self.is_mounted:
            return
        if self.scrollable_content_region.width <= 0:
            return  # hidden (a tab in the background): keep the lines for its width
        width = max(self.scrollable_content_region.width, 10)
        following = self.following
        if width != self._width:
            self._width = width
            for layout in self._layouts:
                for unit in layout.units:
                    unit.estimate(width)
                layout.relayout()
            self._mark(0)
        entries = transcript.entries
        while len(self._layouts) < len(entries):
            self._dirty.add(len(self._layouts))
            self._layouts.append(Layout())
        if not self._dirty and not self._missing and self._stale_from is None:
            return
        changed = bool(self._dirty)
        self._dirty = self._lay_out(entries, time.perf_counter() + LAYOUT_BUDGET)
        if self._dirty:
            self._go_on()  # a backlog: go on once the loop has run what else is ready
        self._rebuild_offsets()
        self.flushes += 1
        self.keep_a_selection()
        if self._dirty and following and time.perf_counter() - self._rendered_at < MAX_FRAME_GAP:
            self._missing = True  # the end is not known yet: rendering it would be wasted
            return
        spent = self._frame_spent
        if changed and spent is None and not self._may_render():
            self._missing = True  # the last frame stays on screen until the next render
            return
        started = time.perf_counter()
        cpu = time.process_time()
        self._missing = False
        complete = self._render_window(following, started + RENDER_BUDGET)
        ended = time.perf_counter()
        wall, cpu = ended - started, time.process_time() - cpu
        if spent is not None:
            wall, cpu = wall + spent[0], cpu + spent[1]
        if not complete:
            # Out of time with units still to render: go on in the next loop iteration (a
            # frame due is not held back again), and show nothing half-rendered meanwhile.
            self._frame_spent = (wall, cpu)
            self._missing = True
            self._go_on()
            return
        self._frame_spent = None
        # Rendering takes at most about half of the time, however fast text streams in, and
        # while updates pour in, about a fifth of the CPU (see ``_may_render``).
        self._render_after = ended + wall
        self._render_after_cpu = time.process_time() + RENDER_CPU_FACTOR * cpu
        self._rendered_at = ended
        self.refresh()

    def _go_on(self) -> None:
        """Flush again in the next loop iteration, after the callbacks ready meanwhile (a
        message to the widget, as ``call_later`` posts, would run before them)."""
        if not self._going_on:
            self._going_on = True
            asyncio.get_running_loop().call_soon(self._continue)

    def _continue(self) -> None:
        self._going_on = False
        self.flush()

    def _lay_out(self, entries: list[TranscriptEntry], deadline: float) -> set[int]:
        """Lay the changed entries out, in order, until ``deadline`` (``perf_counter``) or
        SCAN_BUDGET characters of message text; returns the entries left to do."""
        budget = SCAN_BUDGET
        order = sorted(self._dirty)
        left: set[int] = set()
        for position, index in enumerate(order):
            if index >= len(entries):
                continue
            budget -= self._update(index, entries[index], budget)
            if self._layouts[index].backlog:
                left.add(index)
            if time.perf_counter() > deadline:
                left.update(i for i in order[position + 1 :] if i < len(entries))
                break
        return left

    def _may_render(self) -> bool:
        """While the transcript changes, whether a frame is due: not before the last render's
        own duration has passed, nor before the process has spent RENDER_CPU_FACTOR times the
        last render's CPU on other work (reading the agent), unless MAX_FRAME_GAP went by.

        A stream of tiny updates so costs a bounded share of the CPU in frames however slowly
        the machine runs; once the changes stop, the next flush renders at once.
        """
        now = time.perf_counter()
        if now < self._render_after:
            return False
        if now - self._rendered_at >= MAX_FRAME_GAP:
            return True
        return time.process_time() >= self._render_after_cpu

    def _mark(self, index: int) -> None:
        if self._stale_from is None or index < self._stale_from:
            self._stale_from = index

    def _key(self, index: int, entry: TranscriptEntry) -> tuple[bool, ...]:
        if isinstance(entry, MessageEntry) and entry.role == "thought":
            return (self.show_thoughts, self._expanded.get(index, self.expand_thoughts))
        return ()

    def _update(self, index: int, entry: TranscriptEntry, budget: int) -> int:
        """Bring one entry's layout up to date; returns the characters it scanned."""
        layout = self._layouts[index]
        key = self._key(index, entry)
        if key != layout.key:
            layout = self._layouts[index] = Layout(key=key)
        if layout.revision == entry.revision and not layout.backlog:
            return 0
        self._mark(index)
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
        if scanner is None or reset:
            scanner = layout.scanner = BlockScanner(markdown=entry.role == "agent")
            layout.parts, layout.parts_seen, layout.has_tail = entry.parts, 0, False
            layout.units = [Unit("header")] if entry.role == "thought" else []
            layout.relayout()
        if layout.parts_seen < len(entry.parts):
            scanner.feed("".join(entry.parts[layout.parts_seen :]))
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

    def _piece_unit(self, piece: Piece, units: list[Unit]) -> Unit:
        unit = Unit(
            "piece", piece, sep=not piece.glue and bool(units) and units[-1].kind != "header"
        )
        unit.estimate(self._width)
        return unit

    def _rebuild_offsets(self) -> None:
        start = self._stale_from
        if start is None:
            return
        self._stale_from = None
        offsets = self._offsets
        start = min(start, len(offsets) - 1)
        del offsets[start + 1 :]
        total = offsets[start]
        for layout in self._layouts[start:]:
            total += layout.height
            offsets.append(total)

    def _render_window(self, following: bool, deadline: float) -> bool:
        """Render the units in (and a page around) the view; keep the view's place.

        Stops at ``deadline`` (``perf_counter``) once at least one unit was rendered: False
        when units are left to render (the view has not moved to show them yet).
        """
        page = max(self.scrollable_content_region.height, 1)
        done = 0
        for _ in range(4):
            total = self._offsets[-1]
            top = max(0, total - page) if following else self.scroll_offset.y
            shift = 0
            first, last = (top, total) if following else (top - page // 2, top + page + page // 2)
            todo = [u for u in self.iter_units(first, last) if u[2].strips is None]
            for index, start, unit in todo:
                done += 1
                if done > 1 and time.perf_counter() > deadline:
                    self._rebuild_offsets()
                    if not following:
                        self._place(following, shift)  # what is in view stays where it was
                    return False
                old = unit.height
                self.render_unit(index, unit)
                if not following and start < top:
                    shift += unit.height - old
            self._rebuild_offsets()
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
        self.set_virtual_size(Size(self._width, self._offsets[-1]))
        if following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
        elif shift:
            self.scroll_to(y=top + shift, animate=False, immediate=True, force=True)
        self._seen_scroll_y = self.scroll_offset.y

    def set_virtual_size(self, size: Size) -> None:
        """Set the scroll size without a layout of the whole screen.

        ``virtual_size`` is a layout reactive: assigning it reflows and repaints every widget,
        once a frame while a reply streams in. The view's own size never depends on it (it
        fills its pane), so only its scrollbars are updated (a scrollbar that appears or goes
        still lays the screen out, as ``show_vertical_scrollbar`` does that).
        """
        if size == self.virtual_size:
            return
        self.set_reactive(TranscriptView.virtual_size, size)
        self._scroll_update(size)
        self.refresh()

    def render_unit(self, index: int, unit: Unit) -> None:
        """Render one unit to strips at the current width, and lay its entry out again."""
        assert self.transcript is not None
        entry = self.transcript.entries[index]
        styles = self.styles_for_render
        renderable: RenderableType
        if unit.kind == "entry":
            renderable = render_entry(entry, RenderOptions(styles, True, self.terminal_lookup))
        elif unit.kind == "header":
            assert isinstance(entry, MessageEntry)
            expanded = self._expanded.get(index, self.expand_thoughts)
            renderable = render_thought_header(preview(entry), expanded, styles)
        else:
            assert isinstance(entry, MessageEntry)
            assert unit.piece is not None
            if entry.role == "agent":
                renderable = render_piece(unit.piece, styles)
            else:
                renderable = render_plain_piece(unit.piece, entry.role, styles)
        with self.app.console.use_theme(self._rich_theme):
            unit.strips = self.lines_of(renderable, self.app.console, self._width)
        if unit.height != len(unit.strips):
            unit.height = len(unit.strips)
            layout = self._layouts[index]
            layout.relayout(layout.units.index(unit))
            self._mark(index)

    @staticmethod
    def lines_of(renderable: RenderableType, console: Console, width: int) -> list[Strip]:
        options = console.options.update(width=width, height=None, highlight=False)
        lines = console.render_lines(renderable, options, pad=False)
        return [Strip(Segment.adjust_line_length(line, width, pad=False)) for line in lines]

    # -- lines -----------------------------------------------------------------------------

    def iter_units(self, first: int, last: int) -> Iterator[tuple[int, int, Unit]]:
        """(entry index, first line, unit) of the units that overlap lines ``first:last``."""
        offsets = self._offsets
        index = max(bisect.bisect_right(offsets, max(first, 0)) - 1, 0)
        while index < len(self._layouts) and offsets[index] < last:
            layout = self._layouts[index]
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
        index = bisect.bisect_right(self._offsets, line) - 1
        layout = self._layouts[index]
        local = line - self._offsets[index]
        if local >= layout.offsets[-1]:
            return index, None, 0
        position = bisect.bisect_right(layout.offsets, local) - 1
        unit = layout.units[position]
        row = local - layout.offsets[position] - unit.sep
        return (index, unit, row) if row >= 0 else (index, None, 0)

    def line_strip(self, line: int) -> Strip:
        """The cached strip of one line (empty when it is not rendered yet)."""
        if not 0 <= line < self._offsets[-1]:
            return _EMPTY
        _, unit, row = self.locate(line)
        if unit is None:
            return _EMPTY
        if unit.strips is None:
            if not self._missing:
                self._missing = True
                self.call_later(self.flush)
            return _EMPTY
        return unit.strips[row] if row < len(unit.strips) else _EMPTY

    def render_lines(self, crop: Region) -> list[Strip]:
        # The base style walks every ancestor's styles: once a frame, not once a line.
        self._line_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width
        base = self._line_style or self.rich_style
        if line >= self._offsets[-1]:
            return Strip.blank(width, base)
        strip = self.line_strip(line)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(line)) is not None:
            style = self.screen.get_component_rich_style("screen--selection")
            strip = highlight(strip, span[0], span[1], style)
        strip = self.mark_found(line, strip)
        strip = strip.crop_extend(scroll_x, scroll_x + width, base)
        if selection is None:  # a text selection (the mouse's) shows instead of the block
            strip = self.mark_selected(line, strip)
        return strip.apply_style(base).apply_offsets(scroll_x, line)

    def render_range(self, first: int, last: int) -> None:
        """Render every unit on lines ``first:last`` now (for copying and tests)."""
        for _ in range(1000):
            todo = [(i, u) for i, _, u in self.iter_units(first, last) if u.strips is None]
            for index, unit in todo:
                self.render_unit(index, unit)
            self._rebuild_offsets()
            if not todo:
                break
        self.set_virtual_size(Size(self._width, self._offsets[-1]))

    def plain_lines(self) -> list[str]:
        """Everything, rendered, as plain text lines (for tests; renders what was not yet)."""
        self.render_range(0, self._offsets[-1])
        return [self.line_strip(n).text.rstrip() for n in range(self._offsets[-1])]

    def visible_lines(self) -> list[str]:
        """The plain text of the lines in view."""
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        return [self.line_strip(n).text.rstrip() for n in range(top, top + height)]

    # -- selection and copying -------------------------------------------------------------

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        start, end = selection
        first = start.y if start is not None else 0
        last = end.y if end is not None else self._offsets[-1] - 1
        self.render_range(first, last + 1)
        last = min(last, self._offsets[-1] - 1)
        if last < first:
            return None
        text = "\n".join(self.line_strip(n).text for n in range(first, last + 1))
        local = Selection(
            None if start is None else Offset(start.x, 0),
            None if end is None else Offset(end.x, end.y - first),
        )
        lines = local.extract(text).split("\n")
        return "\n".join(line.rstrip() for line in lines), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.transcript is None:
            return
        line = self.scroll_offset.y + offset.y
        if not 0 <= line < self._offsets[-1]:
            return
        index, unit, row = self.locate(line)
        self.select_at(line)
        if unit is not None and unit.kind == "header" and row == 0:
            event.stop()
            self.toggle_thought(index)

    def last_reply(self) -> str | None:
        """The markdown source of the agent's last reply (all its messages), if any."""
        return last_reply(self.entries)

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


def preview(entry: MessageEntry, chars: int = 160) -> str:
    """The first words of a message, without joining all of it."""
    taken: list[str] = []
    size = 0
    for part in entry.parts:
        taken.append(part[: chars - size])
        size += len(taken[-1])
        if size >= chars:
            break
    return "".join(taken)
