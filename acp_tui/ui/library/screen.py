"""Provides LibraryScreen: every agent's sessions in one list, and search over all of them.

The rows come from the history library at once (every agent, newest first), each with its
agent and, until that agent has been listed here, when it last was. Meanwhile every configured
agent is listed in the background, one at a time (`list_every_agent`), its status shown below
the rows (``listing…``, ``N new``, ``failed: reason``), and the rows are read again after each.

Typing searches the whole index instead (titles, directories, what was said; ids when the text
looks like one) through `LibrarySearch`: debounced, the stale search cancelled, reads on a
thread, so typing never waits for a search. Ctrl+G picks the agent, Ctrl+O this directory or
all, Ctrl+T only the sessions with exactly the current tab's extra roots (in order). Enter
returns the row (and, for a search hit, where the match is); the caller opens it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from acp_tui.client.history.list_pages import Scope
from acp_tui.client.workspace.every_agent import ListingStatus, list_every_agent
from acp_tui.store.library import Filters, LibraryRow, SearchHit, SearchResults
from acp_tui.ui.library.rows import hit_content, row_content
from acp_tui.ui.library.search import PAGE, LibrarySearch
from acp_tui.ui.plain_text import TEXT_LIMIT, sanitize

if TYPE_CHECKING:
    from textual.timer import Timer

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.store.library import Library

__all__ = ["LibraryChoice", "LibraryScreen"]

T = TypeVar("T")

BATCH = 30
"""Options laid out at once: more than the view shows."""
STEP = 5
SLICE = 0.008
"""The rest are added `STEP` at a time for at most this long, then the loop runs again."""
BUILD_SHOWN = 0.5
"""Seconds between two updates of the first build's progress."""
BUILDING = ("starting", "building")
"""The library's states before its first build is over."""


@dataclass(frozen=True, slots=True)
class LibraryChoice:
    """The session chosen, and the search hit that led to it, if any."""

    row: LibraryRow
    hit: SearchHit | None = None


class LibraryScreen(ModalScreen[LibraryChoice | None]):
    """Every agent's sessions (see the module docstring)."""

    DEFAULT_CSS = """
    LibraryScreen {
        align: center middle;
        & > Vertical {
            width: 96%;
            height: 92%;
            border: thick $primary;
            background: $panel;
            padding: 0 1;
        }
        #library-header { text-style: bold; }
        #library-filters { color: $text-muted; }
        #library-rows { height: 1fr; }
        #library-status { height: auto; max-height: 4; color: $text-muted; }
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+g", "next_agent", "Agent"),
        Binding("ctrl+o", "toggle_all", "All dirs"),
        Binding("ctrl+t", "toggle_roots", "Extra roots"),
        Binding("down", "into_rows", "Rows", show=False),
    ]
    AUTO_FOCUS = "#library-search"

    def __init__(
        self,
        library: Library,
        ws: Workspace,
        launches: Mapping[str, LaunchSpec],
        names: Mapping[str, str],
        project: Path,
        roots: tuple[Path, ...] = (),
    ) -> None:
        super().__init__()
        self.library = library
        self.ws = ws
        self.launches = dict(launches)
        """The configured agents by name: listed in the background."""
        self.names = dict(names)
        """Display names by agent key."""
        self.project = project
        self.cwd: Path | None = project
        self.roots = roots
        """The current tab's extra roots: Ctrl+T shows only the sessions with exactly these."""
        self.dirs: tuple[Path, ...] | None = None
        """The exact, ordered extra roots shown only (None: any)."""
        self.agent: str | None = None
        """The agent key shown only (None: every agent)."""
        self.statuses: dict[str, ListingStatus] = {}
        self.rows: list[LibraryRow] = []
        self.hits: list[SearchHit] = []
        self.searching = False
        """The rows shown are a search's hits."""
        self.searcher = LibrarySearch(self, self.hits_found, group="library-search")
        self._shown = 0
        """Counts the option lists shown: a batch of an older one is not added."""
        self._build_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Every agent's sessions", id="library-header")
            yield Input(
                placeholder="Search every session: titles, folders, what was said…",
                id="library-search",
            )
            yield Static("", id="library-filters")
            yield OptionList(id="library-rows")
            yield Static("", id="library-status")

    def on_mount(self) -> None:
        self.show_filters()
        self.show_statuses()
        self.refresh_rows()
        self.list_agents()
        if self.library.status.state in BUILDING:
            self._build_timer = self.set_interval(BUILD_SHOWN, self.show_build)

    def show_build(self) -> None:
        """Show how far the first build is, until it is over."""
        self.show_statuses()
        if self.library.status.state not in BUILDING and self._build_timer is not None:
            self._build_timer.stop()
            self._build_timer = None

    # -- what is shown -------------------------------------------------------------------------

    def filters(self) -> Filters:
        return Filters(
            agents=(self.agent,) if self.agent is not None else None,
            cwd=str(self.cwd) if self.cwd is not None else None,
            additional_directories=tuple(map(str, self.dirs)) if self.dirs is not None else None,
        )

    def show_filters(self) -> None:
        agent = self.names.get(self.agent, "?") if self.agent is not None else "every agent"
        where = str(self.cwd) if self.cwd is not None else "all directories"
        if self.dirs is not None:
            where += f" + exactly [{', '.join(map(str, self.dirs)) or 'none'}]"
        text = f"{agent} · {where}   (Ctrl+G: agent, Ctrl+O: all directories, Ctrl+T: roots)"
        self.query_one("#library-filters", Static).update(Text(sanitize(text, TEXT_LIMIT)))

    def show_statuses(self) -> None:
        """Each agent's listing, after how far the library's first build is (while it is)."""
        building = self.library.status.describe()
        parts = [building] if building else []
        parts += [f"{s.name}: {s.describe()}" for s in self.statuses.values()]
        text = "  ·  ".join(parts)
        self.query_one("#library-status", Static).update(Text(sanitize(text, TEXT_LIMIT)))

    def render_options(self) -> None:
        """Show the rows (or hits): the first `BATCH` at once, the rest a slice at a time from
        a timer, so that laying out a page of 200 (~0.5 ms each) never holds a key back."""
        options = self.query_one(OptionList)
        self._shown += 1
        highlighted = options.highlighted
        options.set_options(self._options(0, BATCH))
        if options.option_count:
            options.highlighted = min(highlighted or 0, self._count() - 1)
        self._more(self._shown)

    def _count(self) -> int:
        return len(self.hits) if self.searching else len(self.rows)

    def _options(self, start: int, count: int) -> list[Option]:
        """The options of ``count`` rows (or hits) from ``start``."""
        if self.searching:
            return [
                Option(hit_content(hit, self.names, self.statuses), id=f"hit:{i}")
                for i, hit in enumerate(self.hits[start : start + count], start)
            ]
        return [
            Option(row_content(row, self.names, self.statuses), id=f"row:{i}")
            for i, row in enumerate(self.rows[start : start + count], start)
        ]

    def _more(self, shown: int) -> None:
        """Add the rest in slices of at most `SLICE` seconds, each from a timer of its own
        (a callback after the refresh would run within the same step of the loop), unless
        the options were replaced meanwhile."""
        options = self.query_one(OptionList)
        if shown != self._shown or options.option_count >= self._count():
            return

        def add() -> None:
            if shown != self._shown or not self.is_attached:
                return
            until = time.perf_counter() + SLICE
            while options.option_count < self._count() and time.perf_counter() < until:
                options.add_options(self._options(options.option_count, STEP))
            self._more(shown)

        self.set_timer(0.001, add)

    # -- reading the library (on a thread) -----------------------------------------------------

    def refresh_rows(self) -> None:
        text = self.query_one(Input).value
        if text.strip():
            self.searcher.start(self.library, text, self.filters())
        else:
            self.show_rows()

    def show_rows(self) -> None:
        """Every session again (newest first), the search dropped."""
        self.searcher.stop()
        self.searching = False
        self.read_rows(self.filters())

    @work(thread=True, exclusive=True, group="library-read", exit_on_error=False)
    def read_rows(self, filters: Filters) -> None:
        page = self.library.rows(filters, limit=PAGE)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.rows_read, page.rows)

    def rows_read(self, rows: list[LibraryRow]) -> None:
        if self.searching or self.searcher.pending or not self.is_attached:
            return
        self.rows = self.shown(rows, lambda row: row)
        self.render_options()

    def shown(self, items: list[T], row_of: Callable[[T], LibraryRow]) -> list[T]:
        """Without the sessions acp-tui created and sent nothing in (unless a tab shows it)."""
        hidden: dict[str, frozenset[str]] = {}
        kept = []
        for item in items:
            row = row_of(item)
            key = row.agent_key
            if key not in hidden:
                hidden[key] = self.ws.unused.hidden(key, self.ws.agents.get(key))
            if row.session_id not in hidden[key]:
                kept.append(item)
        return kept

    def hits_found(self, found: SearchResults) -> None:
        self.searching = True
        self.hits = self.shown(found.hits, lambda hit: hit.row)
        self.render_options()

    # -- listing every agent -------------------------------------------------------------------

    @work(exclusive=True, group="library-listing", exit_on_error=False)
    async def list_agents(self) -> None:
        def report(status: ListingStatus) -> None:
            before = self.statuses.get(status.agent_key)
            self.statuses[status.agent_key] = status
            self.show_statuses()
            if status.state in ("done", "failed") and (
                before is None or before.state != status.state
            ):
                self.refresh_rows()

        scope = Scope(cwd=None)
        await list_every_agent(self.ws, self.launches, self.library, scope, report)

    # -- input ---------------------------------------------------------------------------------

    @on(Input.Changed, "#library-search")
    def typed(self, event: Input.Changed) -> None:
        if not event.value.strip():
            self.show_rows()
            return
        self.searcher.typed(self.library, event.value, self.filters())

    @on(Input.Submitted, "#library-search")
    def submitted(self) -> None:
        self.choose(self.query_one(OptionList).highlighted)

    @on(OptionList.OptionSelected, "#library-rows")
    def selected(self, event: OptionList.OptionSelected) -> None:
        self.choose(event.option_index)

    def choose(self, index: int | None) -> None:
        if index is None:
            return
        if self.searching and index < len(self.hits):
            hit = self.hits[index]
            self.dismiss(LibraryChoice(hit.row, hit))
        elif not self.searching and index < len(self.rows):
            self.dismiss(LibraryChoice(self.rows[index]))

    def action_into_rows(self) -> None:
        self.query_one(OptionList).focus()

    def action_next_agent(self) -> None:
        keys = [None, *dict.fromkeys(self.names)]
        self.agent = keys[(keys.index(self.agent) + 1) % len(keys)] if self.agent in keys else None
        self.show_filters()
        self.refresh_rows()

    def action_toggle_all(self) -> None:
        self.cwd = None if self.cwd is not None else self.project
        self.show_filters()
        self.refresh_rows()

    def action_toggle_roots(self) -> None:
        self.dirs = self.roots if self.dirs is None else None
        self.show_filters()
        self.refresh_rows()

    def action_close(self) -> None:
        self.searcher.stop()
        self.dismiss(None)
