"""Provides WireInspector: the live JSON-RPC traffic of one agent, both ways (F12).

A table of the lines the agent's ``WireLog`` kept (newest last, following while the cursor is
on the last row): direction, kind, method (a reply shows its request's), id, the response time
of each request and its reply, and the size. A reply that answers no request (its id matches
none the client was waiting for, e.g. the string ``"2"`` for request 2) is shown as such, and
its detail says why it was skipped. The highlighted message is shown below, masked and
pretty-printed; long strings and huge messages are cut for reading (a huge one is formatted in
a thread), and ``c`` copies the whole masked message. Typing in the filter keeps the rows whose
method contains the text. The table only reads the log (a few times a second while shown), so
the chat never waits for it.

Everything here comes from the agent (its name, the methods and ids it sends, lines that are not
even JSON), so every string shown is sanitised and literal (``acp_tui.ui.plain_text``): the cells
are Rich ``Text`` (a ``str`` cell would be parsed as markup, and ``[/]`` would end the app), the
title is ``Content``, the detail pane gets sanitised text. Copying keeps the message as it is.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static, TextArea

from acp_tui.client.agent.wire_log import HUGE, WireLog, WireRecord
from acp_tui.ui.plain_text import NAME_LIMIT, safe_content, safe_text, sanitize

__all__ = ["WireInspector"]

REFRESH = 0.25
COLUMNS = ("#", "time", "dir", "kind", "method", "id", "ms", "size")
UNMATCHED = "reply to no request"
"""The kind shown for a reply whose id matches no request the client was waiting for."""


def unmatched_note(msg_id: Any) -> str:
    """What the detail says above a reply to no request."""
    if isinstance(msg_id, str):
        why = f'Its id is the string "{msg_id}": acp-tui numbers its requests'
    else:
        why = f"Its id {'null' if msg_id is None else msg_id} is not that of a request acp-tui"
        why += " was waiting for an answer to"
    return f"A reply to no request, skipped. {why}.\n\n"


def _size(n: int) -> str:
    if n < 10_000:
        return f"{n} B"
    if n < 10_000_000:
        return f"{n / 1024:.0f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def _clock(wall: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(wall)) + f".{int(wall % 1 * 1000):03d}"


class WireInspector(Screen[None]):
    """The agent's JSON-RPC traffic; Esc closes it."""

    DEFAULT_CSS = """
    WireInspector { layout: vertical; background: $surface; }
    WireInspector #wire-title { height: 1; padding: 0 1; background: $panel; color: $text; }
    WireInspector #wire-filter { height: 3; }
    WireInspector #wire-table { height: 1fr; }
    WireInspector #wire-detail { height: 1fr; border-top: solid $primary; }
    """

    AUTO_FOCUS = "#wire-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("c", "copy_message", "Copy message"),
        Binding("ctrl+f", "focus_filter", "Filter"),
    ]

    def __init__(self, wire: WireLog, agent_name: str) -> None:
        super().__init__()
        self.wire = wire
        self.agent_name = agent_name
        self.shown_seq = 0
        """The newest record looked at (shown, or filtered out)."""
        self.by_seq: dict[int, WireRecord] = {}
        self.waiting: dict[tuple[str, str, Any], WireRecord] = {}
        """Requests not answered yet, by (direction, id type, id), for the response times."""
        self.elapsed: dict[int, float] = {}
        self.asked: dict[int, str] = {}
        """The method of the request each reply answers, by the reply's ``seq``."""
        self.selected: WireRecord | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="wire-title")
        yield Input(placeholder="Filter by method (e.g. session/prompt)", id="wire-filter")
        with Vertical():
            table: DataTable[Text] = DataTable(
                id="wire-table", cursor_type="row", zebra_stripes=True
            )
            for column in COLUMNS:
                table.add_column(column, key=column)
            yield table
            yield TextArea(id="wire-detail", read_only=True, soft_wrap=True)
        yield Footer()

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#wire-table", DataTable)

    def on_mount(self) -> None:
        self.refresh_rows()
        self.set_interval(REFRESH, self.refresh_rows)

    # -- rows ----------------------------------------------------------------------------------

    def _time(self, record: WireRecord) -> None:
        kind, _method, msg_id = record.summary()
        key = (record.direction, type(msg_id).__name__, msg_id)
        if kind == "request":
            self.waiting[key] = record
        elif kind in ("response", "error"):
            asker = "recv" if record.direction == "send" else "send"
            request = self.waiting.pop((asker, key[1], msg_id), None)
            if request is not None:
                elapsed = record.at - request.at
                self.elapsed[record.seq] = self.elapsed[request.seq] = elapsed
                self.asked[record.seq] = request.method
                self._set_time_cell(request.seq, elapsed)

    def _set_time_cell(self, seq: int, elapsed: float) -> None:
        key = str(seq)
        if key in self.table.rows:
            self.table.update_cell(key, "ms", Text(f"{elapsed * 1000:.1f}"))

    def _method(self, record: WireRecord) -> str:
        method = record.method
        if not method and record.seq in self.asked:
            return f"↳ {self.asked[record.seq]}"
        return method

    def _matches(self, record: WireRecord) -> bool:
        needle = self.filter_text
        return not needle or needle in self._method(record).lower()

    @property
    def filter_text(self) -> str:
        return self.query_one("#wire-filter", Input).value.strip().lower()

    def _unmatched(self, record: WireRecord) -> bool:
        """Whether the record is a reply the client found no request for (marked by the log
        once the connection skipped it, maybe after the record was first looked at)."""
        return record.unmatched or self.wire.is_unmatched(record.seq)

    def _row(self, record: WireRecord) -> list[Text]:
        """The cells of one record: the agent's method and id sanitised, clipped, literal."""
        elapsed = self.elapsed.get(record.seq)
        msg_id = record.id
        kind = UNMATCHED if self._unmatched(record) else record.kind
        return [
            Text(str(record.seq)),
            Text(_clock(record.wall)),
            Text("→" if record.direction == "send" else "←"),
            Text(kind, style="bold" if kind == UNMATCHED else ""),
            safe_text(self._method(record), limit=NAME_LIMIT),
            safe_text("" if msg_id is None else str(msg_id), limit=NAME_LIMIT),
            Text("" if elapsed is None else f"{elapsed * 1000:.1f}"),
            Text(_size(record.size)),
        ]

    def refresh_rows(self) -> None:
        """Add the records that arrived since the last look (and drop those the log let go)."""
        fresh = self.wire.since(self.shown_seq)
        table = self.table
        oldest = self.wire.first_seq
        stale = [key for key in list(table.rows)[:64] if int(key.value or 0) < oldest]
        for key in stale:
            table.remove_row(key)
            self.by_seq.pop(int(key.value or 0), None)
        if fresh:
            follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
            for record in fresh:
                self._time(record)
                self.by_seq[record.seq] = record
                if self._matches(record):
                    table.add_row(*self._row(record), key=str(record.seq))
            self.shown_seq = fresh[-1].seq
            if follow and table.row_count:
                table.move_cursor(row=table.row_count - 1)
        self._title()

    def _title(self) -> None:
        wire = self.wire
        dropped = f", {wire.dropped:,} older let go" if wire.dropped else ""
        name = sanitize(self.agent_name, NAME_LIMIT)
        self.query_one("#wire-title", Static).update(
            safe_content(f"Wire: {name} — {len(wire):,} messages kept{dropped}")
        )

    @on(Input.Changed, "#wire-filter")
    def refilter(self) -> None:
        table = self.table
        table.clear()
        for fresh in self.wire.since(0):
            record = self.by_seq.get(fresh.seq, fresh)
            if record.seq <= self.shown_seq and self._matches(record):
                table.add_row(*self._row(record), key=str(record.seq))
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)

    # -- the message ---------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#wire-table")
    def show_message(self, event: DataTable.RowHighlighted) -> None:
        record = self.by_seq.get(int(event.row_key.value or 0))
        if record is None or record is self.selected:
            return
        self.selected = record
        detail = self.query_one("#wire-detail", TextArea)
        note = unmatched_note(record.id) if self._unmatched(record) else ""
        if record.size > HUGE:
            detail.load_text(f"{note}Formatting {_size(record.size)}…")
            self.format_huge(record, note)
        else:
            detail.load_text(sanitize(note + record.preview_text()))

    @work(thread=True, exclusive=True, group="wire-detail")
    def format_huge(self, record: WireRecord, note: str = "") -> None:
        text = sanitize(note + record.preview_text())
        self.app.call_from_thread(self._show_formatted, record, text)

    def _show_formatted(self, record: WireRecord, text: str) -> None:
        if record is self.selected:
            self.query_one("#wire-detail", TextArea).load_text(text)

    def action_copy_message(self) -> None:
        """Copy the whole highlighted message, masked (a huge one is formatted in a thread)."""
        record = self.selected
        if record is None:
            return
        if record.size > HUGE:
            self.copy_huge(record)
        else:
            self._copy(record.full_text())

    @work(thread=True, exclusive=True, group="wire-copy")
    def copy_huge(self, record: WireRecord) -> None:
        text = record.full_text()
        self.app.call_from_thread(self._copy, text)

    def _copy(self, text: str) -> None:
        self.app.copy_to_clipboard(text)
        self.copied = text
        self.notify(f"Copied the message ({len(text):,} characters).", markup=False)

    copied: str = ""
    """The last text copied (for tests: the terminal's clipboard cannot be read back)."""

    def action_focus_filter(self) -> None:
        self.query_one("#wire-filter", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)
