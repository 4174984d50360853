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
from acp_tui.client.workspace.events import SlotStateChanged, WorkspaceEvent
from acp_tui.client.workspace.every_agent import open_library_row
from acp_tui.ui.library.screen import LibraryChoice, LibraryScreen

if TYPE_CHECKING:
    from textual.app import App

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.config.paths import Paths
    from acp_tui.ui.widgets.chat_pane import ChatPane

PaneOf = Callable[["SessionSlot"], "ChatPane | None"]

REVEAL_TRIES = 600
"""Refreshes to wait, at most, for the opened transcript to reach its view."""

__all__ = ["open_every_agent"]


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
            slot = open_library_row(ws, by_key, choice.row)
        except LookupError as exc:
            app.notify(str(exc), severity="warning", markup=False)
            return
        hit = choice.hit
        if hit is not None and hit.field == "text" and hit.snippet.spans:
            start, end = hit.snippet.spans[0]
            reveal_when_open(app, ws, slot, hit.snippet.text[start:end], pane_of)

    current = ws.current
    cwd = current.cwd if current is not None else launch.cwd
    roots = current.additional_directories if current is not None else launch.additional_directories
    screen = LibraryScreen(library, ws, launches, names, cwd, tuple(roots))
    app.push_screen(screen, callback=chosen)
    return None


def reveal_when_open(
    app: App[Any], ws: Workspace, slot: SessionSlot, words: str, pane_of: PaneOf
) -> None:
    """Once the slot's session is open and shown, scroll its transcript to the first place
    that says ``words`` (the find bar stays open on them: Enter goes to the next)."""
    tries = 0

    def reveal() -> None:
        nonlocal tries
        pane = pane_of(slot)
        view = pane.transcript_view if pane is not None else None
        if pane is None or view is None or not view.lines.entries or not view.lines.idle:
            tries += 1
            if tries < REVEAL_TRIES and slot in ws.slots:
                app.call_after_refresh(reveal)
            return
        view.jump(0)  # the first place from the start
        pane.find_bar.query_one("#find-input", Input).value = words
        pane.find_bar.open(view)

    def changed(event: WorkspaceEvent) -> None:
        if not isinstance(event, SlotStateChanged) or event.slot is not slot:
            return
        if slot.state in ("ready", "failed", "closed"):
            stop()
        if slot.state == "ready":
            app.call_after_refresh(reveal)

    if slot.state == "ready":
        app.call_after_refresh(reveal)
        return
    stop = ws.subscribe(changed)
