"""Provides the session browser's row actions that open a tab or ask the user first.

Replaying a session already open in a tab never loads it a second time: the user chooses
between showing that tab and reloading the session there; a search result opens scrolled to
what matched. Deleting is confirmed first, as nothing undoes it. Renaming asks for the local
title. The Workspace runs what was chosen; the panel runs these in its workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from acp_tui.client.history.session_text import display_title
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from acp_tui.ui.messages import RevealRequested

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget

    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.protocol.methods import SessionInfo
    from acp_tui.store.library import SearchHit

__all__ = ["confirm_delete", "delete_rows", "open_row", "reload_or_show", "rename_row"]


async def reload_or_show(app: App[int], ws: Workspace, slot: SessionSlot) -> None:
    """The session is already open in a tab: show it, or reload it from the agent."""
    number = ws.slots.index(slot) + 1 if slot in ws.slots else 0
    question = f"This session is already open in tab {number}. Reload it from the agent?"
    dialog = ConfirmDialog(
        question,
        confirm_label="Reload",
        cancel_label="Just show it",
        note="Reloading: the agent replays the session in its tab, which keeps it if that fails.",
        destructive=False,
    )
    if await app.push_screen_wait(dialog):
        ws.board.focus(slot)
        await ws.sessions.reload(slot)
    else:
        ws.board.focus(slot)


def open_row(
    panel: Widget,
    ws: Workspace,
    agent: AgentRuntime,
    info: SessionInfo,
    *,
    replay: bool,
    hit: SearchHit | None = None,
) -> None:
    """Open a row's session in a tab, replayed or resumed: one open in a tab already is shown
    there, or reloaded (the user chooses), never loaded twice. A search result's tab is then
    scrolled to what matched (its local copy's end brings that message in when it can)."""
    open_in = ws.board.slot_showing(agent, info.session_id)
    if replay and open_in is not None:
        work = reload_or_show(panel.app, ws, open_in)
        panel.run_worker(work, group="browser-open", exclusive=True, exit_on_error=False)
        slot = open_in
    else:
        line = hit.line if hit is not None and replay else None
        slot = ws.open_listed(agent, info, replay=replay, at_line=line)
    if hit is not None and replay:
        panel.post_message(RevealRequested(slot, hit))


async def delete_rows(
    app: App[int],
    ws: Workspace,
    agent: AgentRuntime,
    infos: list[SessionInfo],
    say: Callable[[str], object],
    done: Callable[[], object],
) -> None:
    """Ask first (nothing is undone), then delete with progress (``done`` after)."""
    if not await confirm_delete(app, agent, infos):
        say("Nothing was deleted.")
        return
    await ws.sessions.delete_listed(agent, infos)
    done()


async def confirm_delete(app: App[int], agent: AgentRuntime, infos: list[SessionInfo]) -> bool:
    """Whether the user confirms deleting ``infos`` (nothing is undone)."""
    what = "this session" if len(infos) == 1 else f"these {len(infos)} sessions"
    question = f"Delete {what} from {agent.display_name}?"
    dialog = ConfirmDialog(question, [display_title(i) for i in infos])
    confirmed: bool | None = await app.push_screen_wait(dialog)
    return bool(confirmed)


async def ask_rename(
    app: App[int],
    ws: Workspace,
    agent: AgentRuntime,
    session_id: str,
    shown: str | None,
    agent_title: str | None,
) -> None:
    """Ask for a session's local title and keep it (empty: back to the agent's title)."""
    from acp_tui.ui.dialogs.rename import RenameDialog

    typed: str | None = await app.push_screen_wait(RenameDialog(shown or "", agent_title))
    if typed is None:
        return
    try:
        kept = ws.titles.rename(agent, session_id, typed)
    except OSError as exc:
        app.notify(f"Could not rename the session: {exc}", severity="error", markup=False)
        return
    text = f"Renamed here: {kept}" if kept else "Back to the agent's title."
    app.notify(text, markup=False)


async def rename_row(
    app: App[int],
    ws: Workspace | None,
    agent: AgentRuntime | None,
    info: SessionInfo | None,
    listed: Mapping[str, SessionInfo],
) -> None:
    """Rename the highlighted row ``info`` (``listed``: the rows with the agent's titles)."""
    if info is None or ws is None or agent is None:
        app.notify("Select a session first.", severity="warning")
        return
    agent_title = listed.get(info.session_id, info).title
    await ask_rename(app, ws, agent, info.session_id, info.title, agent_title)
