"""Provides open_every_agent: the every-agent view over the app, and opening what it returns.

The configured agents (and the one the app was started with) are listed in the view; a row
chosen opens in a tab with its agent, the running one or one started for it, restored as the
session browser restores a session. A search hit's session is then scrolled to the message
that matched, found by the search's words in the transcript once it is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.widgets import Input

from acp_tui.client.history.agent_names import configured_launches
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.session.entries import MessageEntry
from acp_tui.client.workspace.events import SlotStateChanged, WorkspaceEvent
from acp_tui.client.workspace.every_agent import open_library_row
from acp_tui.ui.library.screen import LibraryChoice, LibraryScreen

if TYPE_CHECKING:
    from textual.app import App

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.session.transcript import Transcript
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.config.paths import Paths
    from acp_tui.store.library import SearchHit
    from acp_tui.ui.widgets.chat_pane import ChatPane

PaneOf = Callable[["SessionSlot"], "ChatPane | None"]

REVEAL_TRIES = 600
"""Refreshes to wait, at most, for the opened transcript to reach its view."""

__all__ = ["open_every_agent", "reveal_when_open"]


def agent_launches(launch: LaunchSpec, paths: Paths) -> dict[str, LaunchSpec]:
    """Every configured agent by name, and the app's own agent (under its name)."""
    launches = configured_launches(launch.settings, paths, launch.cwd)
    keys = {agent_key_for(each) for each in launches.values()}
    if agent_key_for(launch) not in keys:
        launches[launch.display_name or launch.command.name] = launch
    return launches


def open_every_agent(
    app: App[Any], ws: Workspace, launch: LaunchSpec, paths: Paths, pane_of: PaneOf
) -> SessionSlot | None:
    """Show the every-agent view; the chosen session opens in a tab (``pane_of``: the tab's
    pane, where a search hit's words are then found)."""
    from acp_tui.store.library import Library

    library = ws.cache.library
    if not isinstance(library, Library):
        app.notify("The history library is not open yet.", severity="warning", markup=False)
        return None
    launches = agent_launches(launch, paths)
    by_key = {agent_key_for(each): each for each in launches.values()}
    names = {key: name for name, each in launches.items() for key in [agent_key_for(each)]}

    def chosen(choice: LibraryChoice | None) -> None:
        if choice is None:
            return
        try:
            at_line = choice.hit.line if choice.hit is not None else None
            slot = open_library_row(ws, by_key, choice.row, at_line)
        except LookupError as exc:
            app.notify(str(exc), severity="warning", markup=False)
            return
        if choice.hit is not None:
            reveal_when_open(app, ws, slot, choice.hit, pane_of)

    current = ws.current
    cwd = current.cwd if current is not None else launch.cwd
    roots = current.additional_directories if current is not None else launch.additional_directories
    screen = LibraryScreen(library, ws, launches, names, cwd, tuple(roots))
    app.push_screen(screen, callback=chosen)
    return None


def reveal_when_open(
    app: App[Any], ws: Workspace, slot: SessionSlot, hit: SearchHit, pane_of: PaneOf
) -> None:
    """Scroll the slot's transcript to the message of ``hit`` (the find bar open on its
    words: Enter goes to the next): in the local copy's end shown while the agent replays, as
    soon as it is shown, when that holds the message; else (or when the agent's replay differs
    from it) in the session once it is open. An agreeing replay replaces the local copy where
    the view is, so the message stays in view."""
    if hit.field != "text" or not hit.snippet.spans:
        return
    start, end = hit.snippet.spans[0]
    words = hit.snippet.text[start:end]
    shown_early = False

    def reveal(transcript: Transcript, index: int) -> bool:
        """Jump there now; False when the view does not show ``transcript`` laid out yet."""
        pane = pane_of(slot)
        view = pane.transcript_view if pane is not None else None
        if pane is None or view is None or view.transcript is not transcript:
            return False
        if not view.lines.entries or not view.lines.idle:
            return False
        view.jump(view.lines.offsets[min(index, len(view.lines.offsets) - 1)])
        pane.find_bar.query_one("#find-input", Input).value = words
        pane.find_bar.open(view)
        return True

    def when_shown(transcript: Transcript, index: int) -> None:
        tries = 0

        def attempt() -> None:
            nonlocal tries
            if reveal(transcript, index):
                return
            tries += 1
            if tries < REVEAL_TRIES and slot in ws.slots:
                app.call_after_refresh(attempt)

        app.call_after_refresh(attempt)

    def open_now() -> None:
        session = slot.session
        if session is not None and not (shown_early and slot.preview_agreed):
            when_shown(session.transcript, turn_entry(session.transcript, hit.turn))

    if slot.state == "ready":
        open_now()
        return
    preview = slot.preview
    if preview is not None and preview.found is not None:
        shown_early = True
        when_shown(preview.transcript, preview.found)

    def changed(event: WorkspaceEvent) -> None:
        if not isinstance(event, SlotStateChanged) or event.slot is not slot:
            return
        if slot.state in ("ready", "failed", "closed"):
            stop()
        if slot.state == "ready":
            open_now()

    stop = ws.subscribe(changed)


def turn_entry(transcript: Transcript, turn: int | None) -> int:
    """The index of the entry where turn ``turn`` starts (its prompt; 1 is the first)."""
    if not turn:
        return 0
    seen = 0
    for index, entry in enumerate(transcript.entries):
        if isinstance(entry, MessageEntry) and entry.role == "user":
            seen += 1
            if seen == turn:
                return index
    return 0
