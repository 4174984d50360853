"""Provides SessionRows: the session browser's list of rows, with marks and paging hints.

Each row shows the title (or a fallback), a tag ("chat", "open", "local"), the relative time,
for sessions from the local history the start of the id (as long as it takes to tell them apart:
``id_chars``), the cwd and the extra roots, and for a search result what matched (``extras``;
see `acp_tui.ui.browser.row_text`). Below the rows sits one state row: "Loading…"
while a page is in flight, the error (Enter retries or reloads), or the end of the list. The
list tells its panel when the user has come near the end (by keyboard or by scrolling), so the
next page is asked for lazily.

With thousands of rows loaded, re-rendering every row costs far more than a frame, so each row's
option is kept (and reused while its session, mark, tags and displayed age stay the same: its
height stays cached too), and a page that only adds rows at the end is appended. An agent may
answer with a hundred thousand sessions in one page: only the first ``WINDOW`` rows get an
option, and the window grows by as many whenever the user comes near its end. Of the rows a list
adds, those the view can show are laid out at once and the rest from timers, a few milliseconds
at a time, so that a page of search results or sessions never holds a key back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.client.history.session_text import age_text, distinct_prefix, relative_time
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp
from acp_tui.ui.browser.row_text import (
    RowState,
    row_content,
    state_content,
)
from acp_tui.ui.plain_text import more_text

STATE_ROW = "state:"
"""Option ids of the state rows start with this (session ids never do)."""
NEAR_END = 3
"""Rows from the end at which the next page is asked for."""
WINDOW = 500
"""How many more loaded rows get shown each time the user comes near the last one shown."""
BATCH = 30
"""Rows laid out at once when a list is shown (more than the view holds); the rest follow
`STEP` at a time, for at most `SLICE` seconds per step of the loop."""
STEP = 5
SLICE = 0.008


@dataclass(slots=True)
class ShownRow:
    """A session row's option and what it was rendered from."""

    info: SessionInfo
    marked: bool
    tags: tuple[str, ...]
    when: datetime | None
    age: str
    id_chars: int
    option: Option
    extra: Content | None = None


def age_of(info: SessionInfo, when: datetime | None, now: datetime) -> str:
    """``relative_time`` of the row, from its timestamp parsed once."""
    if when is None:
        return relative_time(info.updated_at)
    return age_text(when, now)


class SessionRows(OptionList):
    """The rows; Space marks one (for deleting several), Enter asks the panel to open it."""

    BINDINGS = [
        Binding("enter", "choose", "Open"),
        Binding("space", "toggle_mark", "Mark", show=True),
    ]

    @dataclass
    class Chosen(Message):
        """Enter on a row: a session id, or the id of the state row (retry)."""

        option_id: str

    @dataclass
    class NearEnd(Message):
        """The user came near the end of the loaded rows: time for the next page."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.marked: set[str] = set()
        self.infos: dict[str, SessionInfo] = {}
        self.tags: dict[str, list[str]] = {}
        self.known: dict[str, ShownRow] = {}
        """Each session's latest row, shown or not (a search hides rows; they come back)."""
        self.shown: list[ShownRow] = []
        """The session rows on screen, in order (the state row aside)."""
        self.window = WINDOW
        """How many of the loaded rows are shown (the rest once the user scrolls to them)."""
        self.pending: tuple[Sequence[SessionInfo], dict[str, list[str]], RowState] | None = None
        """What ``show_rows`` was last given, while part of it is not shown yet."""
        self.growing = False
        self.id_chars = 0
        """How much of each id the rows show (0: none; see ``show_rows``)."""
        self.extras: Mapping[str, Content] = {}
        """A line more under some rows, by session id (what a search matched there)."""
        self.laying = 0
        """Counts the lists shown: the rest of an older one is not laid out."""
        self.left = 0
        """Rows of the list shown still to lay out (see ``lay_out_later``)."""
        self.finish: Callable[[], None] | None = None
        """Lays out every row left at once (End wants the last one)."""

    def on_mount(self) -> None:
        self.watch(self, "scroll_y", self.check_near_end, init=False)

    def show_rows(
        self,
        infos: Sequence[SessionInfo],
        tags: dict[str, list[str]],
        state: RowState,
        *,
        show_ids: bool = False,
        extras: Mapping[str, Content] | None = None,
    ) -> None:
        """Replace the rows, keeping the highlighted session (or its position); at most
        ``window`` of them are shown, then a row counting the rest. ``show_ids``: each row shows
        as much of its id as tells them all apart (local history); ``extras``: a line more
        under some rows, by session id."""
        self.id_chars = distinct_prefix(info.session_id for info in infos) if show_ids else 0
        self.extras = extras or {}
        self.pending = None
        self.growing = False
        if len(infos) > self.window:
            self.pending = (infos, tags, state)
            if state.kind not in ("loading", "error"):
                state = RowState("more", more_text(len(infos) - self.window, "below…"))
        all_infos, infos = infos, infos[: self.window]
        keep_id = self.highlighted_id
        keep_index = self.highlighted
        self.infos = {info.session_id: info for info in all_infos}
        self.tags = tags
        self.marked &= set(self.infos)
        tail: list[Option] = []
        if state.kind:
            tail.append(
                Option(
                    state_content(state),
                    id=STATE_ROW + state.kind,
                    # End lands on the last session, not on a count: only an error (Enter retries)
                    # and the rows still to show (reaching it shows them) take the highlight.
                    disabled=state.kind not in ("error", "more"),
                )
            )
        now = datetime.now(UTC)
        self.laying += 1  # what is left of an older list is not added
        kept = self.unchanged_prefix(infos)
        # The rows the view may show (and the highlighted one) are laid out now, the rest a
        # slice at a time from timers: 200 rows at once held the loop ~50 ms, and a key with it.
        ids = [info.session_id for info in infos]
        keep_at = ids.index(keep_id) if keep_id in self.infos and keep_id in ids else -1
        end = min(len(infos), max(kept + BATCH, keep_at + 1, (keep_index or 0) + 1))
        first = [self.row(info, now) for info in infos[kept:end]]
        rest = infos[end:]
        if kept:
            # Only rows added at the end (the next page): append them after the old ones.
            if keep_id is not None and keep_id.startswith(STATE_ROW):
                self.highlighted = None  # the state row goes: highlight what takes its place
            self.drop_state_row()
            self.shown.extend(first)
            self.add_options([*(row.option for row in first), *([] if rest else tail)])
        else:
            self.shown = first
            self.set_options([*(row.option for row in first), *([] if rest else tail)])
        self.lay_out_later(rest, tail, now)
        options = self.options
        if not options:
            return
        if keep_id is not None and keep_id in self.infos:
            self.highlighted = self.get_option_index(keep_id)
        elif keep_index is not None:
            self.highlighted = min(keep_index, len(options) - 1)
        else:
            self.highlighted = 0
        if self.highlighted is not None and options[self.highlighted].disabled:
            self.highlighted = max(0, self.highlighted - 1) if len(options) > 1 else None

    def lay_out_later(self, rest: Sequence[SessionInfo], tail: list[Option], now: datetime) -> None:
        """Add the ``rest`` of the rows (then ``tail``) from timers, for at most `SLICE`
        seconds at a time, unless another list is shown meanwhile (``finish_laying_out``:
        all of them now)."""
        laying = self.laying
        self.left = len(rest)
        self.finish = None
        if not rest:
            return
        at = 0

        def add(slice_: float = SLICE) -> None:
            nonlocal at
            if laying != self.laying or not self.left or not self.is_attached:
                return
            until = time.perf_counter() + slice_
            while at < len(rest) and time.perf_counter() < until:
                added = [self.row(info, now) for info in rest[at : at + STEP]]
                self.shown.extend(added)
                self.add_options([row.option for row in added])
                at += len(added)
            self.left = len(rest) - at
            if self.left:
                self.set_timer(0.001, add)
                return
            self.finish = None
            self.add_options(tail)
            self.check_near_end()

        self.finish = partial(add, float("inf"))
        self.set_timer(0.001, add)

    def action_last(self) -> None:
        """End: the last row, once every row of the list is laid out."""
        if self.finish is not None:
            self.finish()
        super().action_last()

    def row(self, info: SessionInfo, now: datetime) -> ShownRow:
        """The row of ``info``: the known one when nothing it shows has changed."""
        session_id = info.session_id
        marked = session_id in self.marked
        tags = tuple(self.tags.get(session_id, ()))
        extra = self.extras.get(session_id)
        known = self.known.get(session_id)
        if known is not None and known.info is info and known.extra is extra:
            age = age_of(info, known.when, now)
            if (known.marked, known.tags, known.age, known.id_chars) == (
                marked,
                tags,
                age,
                self.id_chars,
            ):
                return known
            when = known.when
        else:
            when = parse_timestamp(info.updated_at)
            age = age_of(info, when, now)
        content = row_content(info, marked, tags, age, self.id_chars, extra)
        option = Option(content, id=session_id)
        row = ShownRow(info, marked, tags, when, age, self.id_chars, option, extra)
        self.known[session_id] = row
        return row

    def unchanged_prefix(self, infos: Sequence[SessionInfo]) -> int:
        """How many rows ``infos`` starts with that are shown unchanged: all of the shown rows,
        or 0 (then every row is set again)."""
        shown = self.shown
        options = self._options
        on_screen = len(options) - bool(options and (options[-1].id or "").startswith(STATE_ROW))
        if not shown or len(infos) < len(shown) or on_screen != len(shown):
            return 0
        marked, tags = self.marked, self.tags
        for row, info in zip(shown, infos, strict=False):
            session_id = info.session_id
            if (
                row.info is not info
                or row.marked != (session_id in marked)
                or row.tags != tuple(tags.get(session_id, ()))
                or row.id_chars != self.id_chars
                or row.extra is not self.extras.get(session_id)
            ):
                return 0
        return len(shown)

    def drop_state_row(self) -> None:
        """Remove the trailing state row, keeping the line cache of the rows above it.

        OptionList's own removal clears its whole line cache, and recomputing it costs time in
        proportion to every row loaded: too slow for each page of a long list. This relies on
        OptionList's internals (Textual is pinned; the browser tests cover paging).
        """
        options = self._options
        if not options or not (options[-1].id or "").startswith(STATE_ROW):
            return
        option = options.pop()
        index = len(options)
        if option.id is not None:
            self._id_to_option.pop(option.id, None)
        self._option_to_index.pop(option, None)
        lines = self._line_cache
        first_line = lines.index_to_line.pop(index, None)
        if first_line is not None:
            del lines.lines[first_line:]
        lines.heights.pop(index, None)
        if self._mouse_hovering_over == index:
            self._mouse_hovering_over = None

    @property
    def highlighted_id(self) -> str | None:
        option = self.highlighted_option
        return option.id if option is not None else None

    @property
    def highlighted_info(self) -> SessionInfo | None:
        option_id = self.highlighted_id
        return self.infos.get(option_id) if option_id is not None else None

    def marked_infos(self) -> list[SessionInfo]:
        return [info for sid, info in self.infos.items() if sid in self.marked]

    def action_choose(self) -> None:
        option_id = self.highlighted_id
        if option_id is not None:
            self.post_message(self.Chosen(option_id))

    def action_toggle_mark(self) -> None:
        info = self.highlighted_info
        if info is None:
            return
        self.marked ^= {info.session_id}
        marked = info.session_id in self.marked
        known = self.known.get(info.session_id)
        age = known.age if known is not None else None
        extra = self.extras.get(info.session_id)
        content = row_content(info, marked, self.tags_of(info), age, self.id_chars, extra)
        self.replace_option_prompt(info.session_id, content)
        if known is not None:
            known.marked = marked  # its option now shows the new mark

    def tags_of(self, info: SessionInfo) -> Sequence[str]:
        return self.tags.get(info.session_id, ())

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        self.check_near_end()

    def check_near_end(self, *_: object) -> None:
        """Post NearEnd when the highlight or the scroll position is close to the end."""
        if not self.is_mounted or self.left:
            return  # (the rows still to lay out come without asking)
        count = self.option_count
        near_by_key = self.highlighted is not None and self.highlighted >= count - NEAR_END
        near_by_scroll = self.scroll_y >= self.max_scroll_y - 2
        if not (near_by_key or near_by_scroll):
            return
        if self.pending is not None:  # loaded rows not shown yet: show more of them
            if self.growing or (not near_by_key and self.max_scroll_y == 0):
                return  # already growing, or not laid out yet (a window is taller than the list)
            self.growing = True
            self.window += WINDOW
            infos, tags, state = self.pending
            ids = self.id_chars > 0
            self.call_later(self.show_rows, infos, tags, state, show_ids=ids, extras=self.extras)
            return
        self.post_message(self.NearEnd())
