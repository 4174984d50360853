"""Provides open_every_agent: the every-agent view over the app, and opening what it returns.

The configured agents (and the one the app was started with) are listed in the view; a row
chosen opens in a tab with its agent, the running one or one started for it, restored as the
session browser restores a session. A search hit's session is then scrolled to the message
that matched, found by the search's words in the transcript once it is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.client.history.agent_names import configured_launches
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.workspace.every_agent import open_library_row
from acp_tui.ui.library.screen import LibraryChoice, LibraryScreen

if TYPE_CHECKING:
    from textual.app import App

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.config.paths import Paths

__all__ = ["open_every_agent"]


def agent_launches(launch: LaunchSpec, paths: Paths) -> dict[str, LaunchSpec]:
    """Every configured agent by name, and the app's own agent (under its name)."""
    launches = configured_launches(launch.settings, paths, launch.cwd)
    keys = {agent_key_for(each) for each in launches.values()}
    if agent_key_for(launch) not in keys:
        launches[launch.display_name or launch.command.name] = launch
    return launches


def open_every_agent(
    app: App[Any], ws: Workspace, launch: LaunchSpec, paths: Paths
) -> SessionSlot | None:
    """Show the every-agent view; the chosen session opens in a tab."""
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
            open_library_row(ws, by_key, choice.row)
        except LookupError as exc:
            app.notify(str(exc), severity="warning", markup=False)

    app.push_screen(LibraryScreen(library, ws, launches, names, launch.cwd), callback=chosen)
    return None
