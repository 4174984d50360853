"""Provides the app's commands on sessions: palette entries, export, a new session, close a tab.

They act on the Workspace and the current tab; each shows its dialog first where the user has
a choice to make.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand

from acp_tui.ui.safe_text import sanitize

if TYPE_CHECKING:
    from acp_tui.client.slots import SessionSlot
    from acp_tui.client.workspace import Workspace
    from acp_tui.config.paths import Paths
    from acp_tui.ui.dialogs.roots import RootsResult

__all__ = ["close_tab", "export_transcript", "new_session_with_roots", "tab_commands"]


def tab_commands(
    app: App[int], ws: Workspace | None, current: SessionSlot | None
) -> Iterator[SystemCommand]:
    """Palette commands for the tabs: close the current one, switch to each other one."""
    if ws is None:
        return
    if current is not None:
        yield SystemCommand(
            "Close this tab",
            "Close the current session's tab (session/close where the agent can)",
            lambda: close_tab(app, ws, current),
        )
    for number, slot in enumerate(ws.slots, start=1):
        if slot is current:
            continue
        title = sanitize(slot.title or "new session")
        yield SystemCommand(
            f"Switch to tab {number}: {title}",
            f"{sanitize(slot.agent.display_name)} · {slot.cwd} (Alt+{number})",
            lambda slot=slot: ws.focus(slot),
        )


def close_tab(app: App[int], ws: Workspace, slot: SessionSlot) -> None:
    """Close a tab (its session is closed where the agent can; an unused agent stops)."""
    app.run_worker(ws.close_slot(slot), group="close-tab")


def export_transcript(app: App[int], cwd: Path, slot: SessionSlot | None) -> None:
    """Save the conversation as Markdown, to a path the user confirms."""
    from acp_tui.client.export import default_export_path, transcript_to_markdown, write_export
    from acp_tui.ui.dialogs.export import ExportDialog

    session = slot.session if slot is not None else None
    if slot is None or session is None:
        app.notify("There is no session to export yet.", severity="warning")
        return
    default = default_export_path(cwd, session.transcript.title, session.session_id)
    agent_name = slot.agent.display_name

    def save(path: Path | None) -> None:
        if path is None:
            return
        text = transcript_to_markdown(session.transcript, agent=agent_name, cwd=str(session.cwd))
        try:
            write_export(path, text)
        except (OSError, UnicodeError) as exc:
            app.notify(f"Could not export: {exc}", severity="error", markup=False)
        else:
            app.notify(f"Exported to {path}", markup=False)

    app.push_screen(ExportDialog(default, cwd=cwd), callback=save)


def new_session_with_roots(
    app: App[int], ws: Workspace | None, slot: SessionSlot | None, paths: Paths
) -> None:
    """Pick the extra roots of a new session (of the current tab's agent), then open it."""
    from acp_tui.store.recent_roots import recent_roots_for_project
    from acp_tui.ui.dialogs.roots import RootsDialog

    agent = slot.agent if slot is not None else None
    caps = agent.capabilities if agent is not None else None
    if ws is None or agent is None or caps is None:
        app.notify("The agent is not running.", severity="warning")
        return
    assert slot is not None
    cwd, roots = slot.cwd, slot.additional_directories
    dialog = RootsDialog(
        cwd,
        roots,
        recent_roots_for_project(cwd, paths).load(),
        supported=caps.additional_directories,
        reason=caps.why_not("additional_directories"),
    )

    def chosen(result: RootsResult | None) -> None:
        if result is not None:
            ws.open_new(agent, cwd, result.roots)

    app.push_screen(dialog, callback=chosen)
