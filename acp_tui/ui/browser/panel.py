"""Provides SessionBrowser: the side panel listing the agent's sessions beside the chat.

Ctrl+B cycles it hidden -> narrow -> wide -> hidden. It pages `session/list` lazily through a
:class:`SessionLister` and the Workspace (a worker per page; the rows show "Loading…" meanwhile
and an error row when a page fails), or, for an agent that cannot list, shows the client's own
history labelled "local". Everything else it learns from the Workspace's events, which the chat
screen passes down: agent titles, sessions added or deleted, an action's progress. Row actions
are gated on what the agent advertises; A opens every agent's view (`acp_tui.ui.library`). The
search (/) goes through every session of the agent in the history library (`BrowserSearch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, ProgressBar, Static

from acp_tui.client.history.session_list import SessionLister
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.events import ActionProgress, SessionInfoChanged, SessionsChanged
from acp_tui.client.workspace.listed_sessions import LoggedInListing
from acp_tui.client.workspace.workspace import Workspace
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.browser.actions import delete_rows, open_row, rename_row
from acp_tui.ui.browser.controls import ACTIONS, ActionBar, BrowserFilters, offered_roots
from acp_tui.ui.browser.row_text import header_text, row_state
from acp_tui.ui.browser.rows import STATE_ROW, SessionRows
from acp_tui.ui.browser.search import BrowserSearch
from acp_tui.ui.browser.tags import session_tags, shown_rows, with_local_titles
from acp_tui.ui.browser.waiting import ListWaiting
from acp_tui.ui.memory import settle_memory
from acp_tui.ui.plain_text import TEXT_LIMIT, sanitize

Width = Literal["hidden", "narrow", "wide"]
NEXT_WIDTH: dict[Width, Width] = {"hidden": "narrow", "narrow": "wide", "wide": "hidden"}
Level = Literal["info", "warning", "error"]


class SessionBrowser(Vertical):
    """The session browser panel; its model is ``lister``."""

    DEFAULT_CSS = """
    SessionBrowser {
        width: 44;
        height: 1fr;
        display: none;
        border-right: vkey $border-blurred;
        background: $surface;
        &:focus-within { border-right: vkey $border; }
        &.-narrow { display: block; width: 44; }
        &.-wide { display: block; width: 50%; min-width: 60; }
        #browser-header { height: auto; padding: 0 1; background: $panel; }
        #browser-rows { height: 1fr; border: none; background: transparent; }
        #browser-status { height: auto; padding: 0 1; color: $text-muted; }
        #browser-status.-warning { color: $warning; }
        #browser-status.-error { color: $error; }
        #browser-progress { display: none; padding: 0 1; }
        #browser-progress.-active { display: block; }
    }
    """

    BINDINGS = [
        Binding("R", "request('resume')", "Resume"),
        Binding("f", "request('fork')", "Fork"),
        Binding("c", "request('close')", "Close"),
        Binding("d", "request('delete')", "Delete"),
        Binding("r", "rename", "Rename"),
        Binding("A", "app.every_agent", "Every agent", show=False),
        Binding("slash", "focus_search", "Search"),
        Binding("down", "into_results", "Results", show=False),
        Binding("a", "toggle_all", "All dirs"),
        Binding("e", "choose_roots", "Extra roots"),
        Binding("l", "reload", "Reload"),
        Binding("escape", "back", "Prompt"),
    ]

    def __init__(self, project: Path, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.project = project
        self.width: Width = "hidden"
        self.lister = SessionLister(cwd=project)
        self.workspace: Workspace | None = None
        self.agent: AgentRuntime | None = None
        """The agent whose sessions are listed: the current tab's."""
        self.connection: int | None = None
        """The agent's connection the rows came from (a restarted agent is listed afresh)."""
        self.agent_name: str | None = None
        """The name the listed agent gave itself."""
        self.inflight: int | None = None
        """The generation of the page being fetched, if any."""
        self.header_shown = "Sessions"  # the header's text
        self.search = BrowserSearch(self, self)

    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="browser-header")
        yield BrowserFilters()
        yield SessionRows(id="browser-rows")
        yield ActionBar()
        yield ProgressBar(id="browser-progress", show_eta=False)
        yield Static("", id="browser-status")
        yield ListWaiting(lambda: self.agent)

    @property
    def rows(self) -> SessionRows:
        return self.query_one(SessionRows)

    # -- showing -------------------------------------------------------------------------------

    def cycle(self) -> None:
        """Hidden -> narrow -> wide -> hidden; showing it (re)loads the first page."""
        self.set_width(NEXT_WIDTH[self.width])

    def set_width(self, width: Width) -> None:
        was_hidden = self.width == "hidden"
        self.width = width
        # Only the panel's own rules name these: restyle it, not every row under it (25 ms).
        self.update_classes({"-narrow": width == "narrow", "-wide": width == "wide"}, update=False)
        self.app.stylesheet.update_nodes([self])
        if width == "hidden":
            self.action_back()
            return
        if was_hidden:
            self.reload()
        self.rows.focus()

    def bind(self, workspace: Workspace, agent: AgentRuntime | None) -> None:
        """List the sessions of ``agent`` (the current tab's), acting through ``workspace``."""
        changed = agent is not self.agent
        self.workspace, self.agent = workspace, agent
        if changed and self.width != "hidden":
            self.reload()

    def agent_ready(self) -> None:
        """The agent (re)connected or a session opened: reload when the connection changed."""
        if self.width != "hidden" and self.current_connection() != self.connection:
            self.reload()
        else:
            self.render_rows()

    def current_connection(self) -> int | None:
        """The number of the listed agent's connection while it runs, else None."""
        agent = self.agent
        return agent.connections if agent is not None and agent.alive else None

    def reload(self) -> None:
        """Start over from the first page (or the local history when the agent cannot list)."""
        agent = self.agent
        caps = agent.capabilities if agent is not None else None
        self.connection = self.current_connection()
        self.agent_name = agent.display_name if agent is not None and caps is not None else None
        if caps is None or self.workspace is None or agent is None:
            self.lister.restart()
            self.lister.waiting = True
            self.set_status("Waiting for the agent…")
            self.render_rows()
            return
        if self.lister.waiting:
            self.set_status("")  # the agent is back
        if not caps.can_list:
            self.lister.show_local(self.workspace.sessions.local_session_infos(agent))
        else:
            self.lister.local = False
            self.lister.restart()
            self.request_page()
        self.search.again()  # the agent, its connection or the filters may have changed
        self.render_rows()

    # -- paging --------------------------------------------------------------------------------

    def request_page(self) -> None:
        ws, agent = self.workspace, self.agent
        if ws is None or agent is None or self.connection is None:
            return
        if not self.lister.can_load_more or self.inflight == self.lister.generation:
            return
        self.inflight = self.lister.generation
        # Through the Workspace: a login the agent asks for (-32000) is run first.
        listing = ws.sessions.listing(agent)
        self.run_worker(self.fetch_page(listing, self.lister.generation), group="browser-page")

    async def fetch_page(self, listing: LoggedInListing, generation: int) -> None:
        try:
            # A huge page shows its first rows while the rest is validated.
            await self.lister.load_more(listing, on_rows=self.render_rows)
        finally:
            if self.inflight == generation:
                self.inflight = None
        self.render_rows()
        settle_memory()  # the rows stay: keep them out of later full collections
        if not self.lister.text and (rows := self.query(SessionRows)):  # none: the app quits
            self.call_after_refresh(rows.first().check_near_end)

    @on(SessionRows.NearEnd)
    def near_end(self) -> None:
        if not self.lister.text and not self.search.active and self.width != "hidden":
            self.request_page()

    # -- rendering -----------------------------------------------------------------------------

    def render_rows(self) -> None:
        if not self.is_mounted or self.width == "hidden" or not self.query(SessionRows):
            return  # showing it renders them; no rows: the app quits (a page came meanwhile)
        ws, agent, search = self.workspace, self.agent, self.search
        if search.active:
            infos, extras = search.rows()
            visible = with_local_titles(infos, ws, agent)
            self.rows.show_rows(visible, search.tags(ws, agent), search.state(), extras=extras)
        else:
            visible = shown_rows(self.lister.visible(), ws, agent)
            state = row_state(self.lister, visible, busy=self.inflight == self.lister.generation)
            self.rows.show_rows(visible, self.tags(), state, show_ids=self.lister.local)
        self.update_header(len(visible))
        self.update_actions()

    def action_rename(self) -> None:
        """Give the highlighted session a local title (empty: back to the agent's)."""
        info, lister = self.rows.highlighted_info, self.lister
        self.run_worker(rename_row(self.app, self.workspace, self.agent, info, lister.rows))

    def tags(self) -> dict[str, list[str]]:
        """The tags of the loaded rows (see `session_tags`)."""
        return session_tags(self.lister, self.workspace, self.agent)

    def update_header(self, shown: int | None = None) -> None:
        found = self.search.header() if self.search.active else None
        text = header_text(self.lister, self.agent_name or "the agent", shown, found)
        text = sanitize(text, TEXT_LIMIT)
        if text != self.header_shown:  # each update lays the whole screen out again
            self.query_one("#browser-header", Static).update(Text(text))
        self.header_shown = text

    def why_unavailable(self, action: str, info: SessionInfo | None) -> str | None:
        if self.workspace is None or self.agent is None:
            return "the agent is not running"
        return self.workspace.sessions.why_unavailable(self.agent, action, info)

    def update_actions(self) -> None:
        info = self.rows.highlighted_info
        self.query_one(ActionBar).set_reasons(
            {action: self.why_unavailable(action, info) for action in ACTIONS}
        )

    def set_status(self, text: str, level: Level = "info") -> None:
        status = self.query_one("#browser-status", Static)
        status.update(Text(sanitize(text, TEXT_LIMIT)))
        status.set_class(level == "warning", "-warning")
        status.set_class(level == "error", "-error")

    def show_progress(self, done: int | None, total: int = 0) -> None:
        """A progress bar for several deletions; None hides it."""
        bar = self.query_one(ProgressBar)
        bar.set_class(done is not None, "-active")
        if done is not None:
            bar.update(total=total, progress=done)

    # -- changes from the Workspace and the agent -------------------------------------------

    def show_progress_of(self, event: ActionProgress) -> None:
        """An action's progress (or outcome), from the Workspace."""
        if event.agent is not self.agent:
            return
        self.set_status(event.text, event.level)
        self.show_progress(event.done, event.total)
        if event.done is None:
            self.render_rows()

    def sessions_changed(self, event: SessionsChanged) -> None:
        if event.agent is not self.agent:
            return
        if event.added is not None:
            self.session_added(event.added)
        if event.removed:
            self.session_removed(list(event.removed))

    def session_removed(self, session_ids: list[str]) -> None:
        if self.lister.remove(session_ids):
            self.render_rows()

    def session_added(self, info: SessionInfo) -> None:
        if self.lister.add_first(info):
            self.render_rows()

    def session_info_changed(self, event: SessionInfoChanged) -> None:
        """The agent renamed (or touched) a session: its row, if loaded, says so."""
        if event.agent is self.agent and self.lister.update_title(
            event.session_id, **event.changes()
        ):
            self.render_rows()

    # -- user input ----------------------------------------------------------------------------

    @on(BrowserFilters.Changed)
    def filters_changed(self, event: BrowserFilters.Changed) -> None:
        if event.what == "text":  # every session in the library, else the loaded ones
            searched = self.search.typed(str(event.value))
            self.lister.text = "" if searched else str(event.value)
            self.render_rows()
            return
        if event.what == "all":
            self.lister.set_filters(cwd=None if event.value else self.project)
        else:
            roots = event.value if isinstance(event.value, tuple) else None
            self.lister.set_filters(additional_directories=roots)
        self.set_status("")
        self.reload()

    @on(SessionRows.OptionHighlighted)
    def row_highlighted(self) -> None:
        self.update_actions()

    @on(SessionRows.Chosen)
    def row_chosen(self, event: SessionRows.Chosen) -> None:
        if event.option_id.startswith(STATE_ROW + "error"):
            self.retry_page()
        elif not event.option_id.startswith(STATE_ROW):
            self.action_request("replay")

    @on(ActionBar.Requested)
    def button_requested(self, event: ActionBar.Requested) -> None:
        self.action_request(event.action)

    def action_request(self, action: str) -> None:
        """Run a row action on the highlighted row (delete: on the marked rows, if any)."""
        info = self.rows.highlighted_info
        reason = self.why_unavailable(action, info)
        if reason is not None or info is None:
            self.set_status(reason or "Select a session first.", "warning")
            return
        ws, agent = self.workspace, self.agent
        assert ws is not None
        assert agent is not None
        if action in ("replay", "resume"):  # a search result: scrolled to what matched
            hit = self.search.hits.get(info.session_id) if action == "replay" else None
            open_row(self, ws, agent, info, replay=action == "replay", hit=hit)
        elif action == "fork":
            ws.fork(agent, info)
        elif action == "close":
            self.run_worker(ws.sessions.close_listed(agent, info), group="browser-close")
        elif action == "delete":
            infos = self.rows.marked_infos() or [info]
            work = delete_rows(self.app, ws, agent, infos, self.set_status, self.deleted)
            self.run_worker(work, group="browser-delete", exclusive=True, exit_on_error=False)

    def deleted(self) -> None:
        self.show_progress(None)
        self.render_rows()

    def action_focus_search(self) -> None:
        self.query_one("#browser-search").focus()

    def action_into_results(self) -> None:
        """Down in the search field: into the rows, the first one highlighted."""
        if not self.query_one("#browser-search").has_focus:
            raise SkipAction()  # the rows and the other controls have their own Down
        rows = self.rows
        if rows.highlighted is None and rows.option_count:
            rows.highlighted = 0
        rows.focus()

    @on(BrowserFilters.RootsRequested)
    def action_choose_roots(self) -> None:
        """The extra-roots filter, in the roots dialog (offering the listed sessions' roots)."""
        cwd = self.project
        recent = self.workspace.offers.recent_roots(cwd) if self.workspace is not None else []
        offered = offered_roots(self.lister.rows.values(), recent)
        self.query_one(BrowserFilters).choose_roots(cwd, offered)

    def action_toggle_all(self) -> None:
        self.query_one(BrowserFilters).toggle_all()

    def action_reload(self) -> None:
        self.reload()

    def retry_page(self) -> None:
        """After an error: ask for the failed page again (from the start after a bad cursor)."""
        if self.lister.cursor_expired or not self.lister.rows:
            self.reload()
            return
        self.lister.retry()
        self.request_page()
        self.render_rows()

    def action_back(self) -> None:
        """Back to the prompt of the tab shown (the panel stays), not the first one found (a
        hidden tab's, where typing is lost). While a page waits for the agent, Esc stops that."""
        if self.query_one(ListWaiting).cancel():
            return
        screen = self.screen
        panes = screen.query("#panes").results(ContentSwitcher)
        shown = next((p.visible_content for p in panes if p.visible_content is not None), None)
        prompts = (shown or screen).query("#prompt")
        if prompts:
            prompts.first().focus()
