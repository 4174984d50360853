"""Provides TranscriptView: a line-based scroll view of a session transcript.

Built for any length (DESIGN §4): each entry is rendered once to cached strips and re-rendered
only when its revision or the width changes; only visible lines are painted; changes are
coalesced and flushed at most ~30 times a second instead of per chunk. Long streamed markdown
is split at block boundaries so that only the growing last block is re-rendered.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.client.transcript import Change, MessageEntry, Transcript
from acp_tui.ui.render import RenderOptions, Styles, TerminalLookup, render_entry, sanitize

FLUSH_INTERVAL = 1 / 30


@dataclass(slots=True)
class _Cached:
    revision: int = -1
    width: int = -1
    strips: list[Strip] = field(default_factory=list)
    # Streaming markdown: blocks already final, and how much text they cover.
    stable: list[list[Strip]] = field(default_factory=list)
    stable_len: int = 0


def split_blocks(text: str) -> list[str]:
    """Split markdown at blank lines outside code fences, keeping each block's text."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        if fence is None and not line.strip() and current:
            current.append(line)
            blocks.append("".join(current))
            current = []
            continue
        current.append(line)
    if current:
        blocks.append("".join(current))
    return blocks


class TranscriptView(ScrollView, can_focus=True):
    """Shows a transcript; follows the end while the user has not scrolled away."""

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
    }

    DEFAULT_CSS = """
    TranscriptView {
        background: $surface;
        padding: 0 1;
        & > .transcript--user { color: $primary; text-style: bold; }
        & > .transcript--thought { color: $text-muted; text-style: italic; }
        & > .transcript--tool { color: $secondary; text-style: bold; }
        & > .transcript--meta { color: $text-muted; }
        & > .transcript--diff-add { color: $success; }
        & > .transcript--diff-remove { color: $error; }
        & > .transcript--diff-hunk { color: $accent; }
        & > .transcript--notice { color: $text-muted; text-style: italic; }
        & > .transcript--warning { color: $warning; }
        & > .transcript--error { color: $error; text-style: bold; }
    }
    """

    show_thoughts: var[bool] = var(True)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.transcript: Transcript | None = None
        self.terminal_lookup: TerminalLookup | None = None
        self._unsubscribe: object = None
        self._cache: list[_Cached] = []
        self._offsets: list[int] = [0]
        self._dirty: set[int] = set()
        self._all_dirty = True
        self._width = 0
        self._styles: Styles | None = None
        self.flushes = 0

    # -- wiring ----------------------------------------------------------------------------

    def show(self, transcript: Transcript, terminal_lookup: TerminalLookup | None = None) -> None:
        """Display ``transcript`` and follow its changes."""
        if callable(self._unsubscribe):
            self._unsubscribe()
        self.transcript = transcript
        self.terminal_lookup = terminal_lookup
        self._cache = []
        self._all_dirty = True
        self._unsubscribe = transcript.subscribe(self._on_change)
        self.flush()

    def on_mount(self) -> None:
        self.set_interval(FLUSH_INTERVAL, self.flush)

    def on_unmount(self) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()

    def _on_change(self, change: Change) -> None:
        if change.index is not None:
            self._dirty.add(change.index)

    def watch_show_thoughts(self) -> None:
        self._all_dirty = True
        self._cache = []
        self.flush()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._all_dirty = True
        self._cache = []

    # -- rendering -------------------------------------------------------------------------

    @property
    def styles_for_render(self) -> Styles:
        if self._styles is None:

            def style(name: str) -> Style:
                return self.get_component_rich_style(name, partial=True)

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
                code_theme="monokai" if dark else "default",
            )
        return self._styles

    @property
    def following(self) -> bool:
        return self.scroll_offset.y >= self.max_scroll_y - 1

    def flush(self) -> None:
        """Re-render what changed since the last flush and update the scroll size."""
        transcript = self.transcript
        if transcript is None or not self.is_mounted:
            return
        width = max(self.scrollable_content_region.width, 10)
        if width != self._width:
            self._width = width
            self._all_dirty = True
        count = len(transcript.entries)
        if not self._all_dirty and not self._dirty and count == len(self._cache):
            return
        following = self.following
        while len(self._cache) < count:
            self._cache.append(_Cached())
        indices = range(count) if self._all_dirty else sorted(i for i in self._dirty if i < count)
        self._dirty.clear()
        self._all_dirty = False
        console = self.app.console
        for index in indices:
            self._render_entry_lines(index, console, width)
        self._rebuild_offsets()
        self.virtual_size = Size(width, self._offsets[-1])
        self.flushes += 1
        if following:
            self.call_after_refresh(self.scroll_end, animate=False, x_axis=False)
        self.refresh()

    def _options(self) -> RenderOptions:
        return RenderOptions(self.styles_for_render, self.show_thoughts, self.terminal_lookup)

    def _render_entry_lines(self, index: int, console: Console, width: int) -> None:
        assert self.transcript is not None
        entry = self.transcript.entries[index]
        cached = self._cache[index]
        if cached.revision == entry.revision and cached.width == width:
            return
        if cached.width != width:
            cached.stable, cached.stable_len = [], 0
        if isinstance(entry, MessageEntry) and entry.role == "agent":
            cached.strips = self._render_streamed(entry, cached, console, width)
        else:
            cached.strips = self._lines(render_entry(entry, self._options()), console, width)
        cached.strips.append(Strip.blank(width))
        cached.revision, cached.width = entry.revision, width

    def _render_streamed(
        self, entry: MessageEntry, cached: _Cached, console: Console, width: int
    ) -> list[Strip]:
        text = entry.text
        if len(text) < cached.stable_len:
            cached.stable, cached.stable_len = [], 0
        blocks = split_blocks(text[cached.stable_len :])
        code_theme = self.styles_for_render.code_theme
        for block in blocks[:-1]:
            md = Markdown(sanitize(block), code_theme=code_theme, hyperlinks=False)
            cached.stable.append(self._lines(md, console, width))
            cached.stable_len += len(block)
        strips: list[Strip] = []
        for lines in cached.stable:
            if strips:
                strips.append(Strip.blank(width))
            strips.extend(lines)
        if blocks:
            md = Markdown(sanitize(blocks[-1]), code_theme=code_theme, hyperlinks=False)
            if strips:
                strips.append(Strip.blank(width))
            strips.extend(self._lines(md, console, width))
        return strips

    @staticmethod
    def _lines(renderable: RenderableType, console: Console, width: int) -> list[Strip]:
        options = console.options.update(width=width, height=None, highlight=False)
        lines = console.render_lines(renderable, options, pad=False)
        return [Strip(Segment.adjust_line_length(line, width, pad=False)) for line in lines]

    def _rebuild_offsets(self) -> None:
        offsets = [0]
        total = 0
        for cached in self._cache:
            total += len(cached.strips)
            offsets.append(total)
        self._offsets = offsets

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line_no = scroll_y + y
        width = self.scrollable_content_region.width
        if line_no >= self._offsets[-1] or not self._cache:
            return Strip.blank(width, self.rich_style)
        index = bisect.bisect_right(self._offsets, line_no) - 1
        strip = self._cache[index].strips[line_no - self._offsets[index]]
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(
            self.rich_style
        )

    def plain_lines(self) -> list[str]:
        """Everything rendered, as plain text lines (for tests and copying)."""
        return [strip.text.rstrip() for cached in self._cache for strip in cached.strips]
