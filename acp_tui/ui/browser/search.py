"""Provides BrowserSearch: the session browser's search, through every session of its agent.

Typing in the browser's search field searches the history library, as the every-agent view
does (`LibrarySearch`: debounced, the stale search cancelled, on a thread): the agent's
sessions within the browser's directory and extra-roots filters, by title, folder and what was
said (ids when the text looks like one), not only the rows loaded. Each result shows the
title, the agent, the time and what matched, highlighted (literal text). Sessions the library
has not seen yet are listed from the agent into it in the background, once per connection and
scope, and the search runs again when that is done. Until the library is open (it opens after
the first frame) the search filters the loaded rows, as it did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.content import Content
from textual.widget import Widget

from acp_tui.client.history.list_pages import Scope
from acp_tui.client.workspace.every_agent import ListingStatus, list_into_library, row_info
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.library import Filters, Library, SearchHit, SearchResults
from acp_tui.ui.browser.row_text import RowState, search_state
from acp_tui.ui.browser.tags import session_tags
from acp_tui.ui.library.rows import agent_name, match_content
from acp_tui.ui.library.search import LibrarySearch

if TYPE_CHECKING:
    from acp_tui.client.history.session_list import SessionLister
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.workspace import Workspace

__all__ = ["BrowserSearch"]


class Panel(Protocol):
    """What the search needs of the browser panel (`SessionBrowser`)."""

    workspace: Workspace | None
    agent: AgentRuntime | None
    agent_name: str | None
    connection: int | None
    lister: SessionLister

    def render_rows(self) -> None: ...

    def update_header(self, shown: int | None = None) -> None: ...


class BrowserSearch:
    """The search of one browser panel (see the module docstring)."""

    def __init__(self, panel: Panel, widget: Widget) -> None:
        self.panel = panel
        self.widget = widget
        """The panel as a widget: its workers and timers run the searches."""
        self.searcher = LibrarySearch(widget, self.found_results, group="browser-search")
        self.found: SearchResults | None = None
        self.hits: dict[str, SearchHit] = {}
        """The hits shown, by session id."""
        self.listed: object = None
        """The connection and scope listed into the library for searching, last."""
        self.listing: ListingStatus | None = None
        self.searched: AgentRuntime | None = None
        """The agent whose sessions the results are."""
        self.shown: tuple[list[SessionInfo], dict[str, Content]] = ([], {})
        """The results as rows, made once per search (rows are kept while they are the same
        objects: see `SessionRows.row`)."""

    @property
    def active(self) -> bool:
        """The rows are (or are about to be) a search's results."""
        return bool(self.searcher.text)

    def library(self) -> Library | None:
        ws = self.panel.workspace
        library = ws.cache.library if ws is not None else None
        return library if isinstance(library, Library) else None

    def filters(self, agent: AgentRuntime) -> Filters:
        lister = self.panel.lister
        dirs = lister.additional_directories
        return Filters(
            agents=(agent.key,),
            cwd=str(lister.cwd) if lister.cwd is not None else None,
            additional_directories=tuple(map(str, dirs)) if dirs is not None else None,
        )

    def typed(self, text: str) -> bool:
        """Search for ``text`` (blank: stop); False when there is no library to search (the
        panel then filters the loaded rows)."""
        library, agent = self.library(), self.panel.agent
        if library is None or agent is None:
            self.stop()
            return False
        if not text.strip():
            self.stop()
            return True
        self.forget_other(agent)
        self.searcher.typed(library, text, self.filters(agent))
        self.list_behind(library, agent)
        return True

    def again(self) -> None:
        """Search again (the agent or the filters changed, or more sessions were listed)."""
        library, agent = self.library(), self.panel.agent
        if self.active and library is not None and agent is not None:
            self.forget_other(agent)
            self.searcher.again(library, self.filters(agent))
            self.list_behind(library, agent)

    def forget_other(self, agent: AgentRuntime) -> None:
        """Results of another agent's sessions are not shown (their ids mean nothing here)."""
        if agent is not self.searched:
            self.searched = agent
            self.found, self.hits, self.shown = None, {}, ([], {})

    def stop(self) -> None:
        self.searcher.stop()
        self.found, self.hits, self.shown = None, {}, ([], {})

    def found_results(self, found: SearchResults) -> None:
        self.found = found
        self.hits = {hit.row.session_id: hit for hit in found.hits}
        self.shown = (
            [row_info(hit.row) for hit in found.hits],
            {hit.row.session_id: match_content(hit) for hit in found.hits},
        )
        self.panel.render_rows()

    # -- what is shown ---------------------------------------------------------------------

    def rows(self) -> tuple[list[SessionInfo], dict[str, Content]]:
        """The sessions found, and under each the line that matched."""
        return self.shown

    def tags(self, ws: Workspace | None, agent: AgentRuntime | None) -> dict[str, list[str]]:
        """Each result's agent, then its tab's tags (``chat``, ``open``...)."""
        open_tags = session_tags(self.panel.lister, ws, agent, self.hits)
        names = {agent.key: self.panel.agent_name or agent.display_name} if agent else {}
        return {
            sid: [agent_name(hit.row, names), *open_tags.get(sid, [])]
            for sid, hit in self.hits.items()
        }

    def state(self) -> RowState:
        found = self.found
        if found is None or (self.searcher.pending and not found.hits):
            return search_state(None, False)
        return search_state(len(found.hits), found.more)

    def header(self) -> str:
        """What the search goes through, and how the agent's listing for it goes."""
        text = " ".join(self.searcher.text.split())
        found = self.found
        if found is None:
            line = f"Searching every session for \u201c{text}\u201d…"
        else:
            count = f"{len(found.hits)}{'+' if found.more else ''}"
            line = f"{count} session(s) match \u201c{text}\u201d (titles, folders, what was said)"
        listing = self.listing
        if listing is not None and listing.state == "listing":
            line += f"\nListing the agent's sessions for the search… {listing.listed or ''}"
        elif listing is not None and listing.state == "failed":
            line += f"\nThe agent's list failed ({listing.reason}): searched what is known"
        return line

    # -- listing the agent's sessions into the library -------------------------------------

    def list_behind(self, library: Library, agent: AgentRuntime) -> None:
        """List every session of the agent in the browser's scope into the library (once per
        connection and scope), then search again: the library knows only the sessions
        recorded here and those listed before."""
        panel, ws = self.panel, self.panel.workspace
        lister = panel.lister
        if ws is None or panel.connection is None or lister.local or lister.waiting:
            return
        key = (agent, panel.connection, lister.cwd, lister.additional_directories)
        if self.listed == key:
            return
        self.listed = key
        scope = Scope(cwd=lister.cwd, additional_directories=lister.additional_directories)
        name = panel.agent_name or agent.display_name

        def report(status: ListingStatus) -> None:
            self.listing = status
            if self.active:
                panel.update_header()

        async def list_all() -> None:
            await list_into_library(ws, agent, library, scope, name=name, report=report)
            self.again()

        group = "browser-search-list"
        self.widget.run_worker(list_all(), group=group, exclusive=True, exit_on_error=False)
