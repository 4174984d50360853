"""Provides the app's commands on sessions: palette entries, export, a new session, close a tab.

They act on the Workspace and the current tab; each shows its dialog first where the user has
a choice to make.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand

from acp_tui.client.agent.launch import DEMO_AGENT_NAME
from acp_tui.ui.plain_text import LABEL_LIMIT, NAME_LIMIT, sanitize

if TYPE_CHECKING:
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.app_state import AppState

__all__ = [
    "app_commands",
    "close_tab",
    "export_transcript",
    "logout_commands",
    "new_session_with_roots",
    "restart_agent",
    "tab_commands",
]


APP_COMMANDS = (
    ("Export transcript", "Save the conversation as Markdown", "export_transcript"),
    (
        "New session with roots…",
        "Choose extra workspace roots and start a new session (Ctrl+N)",
        "new_session_with_roots",
    ),
    (
        "Sessions: toggle browser",
        "Show the session browser beside the chat, widen it, hide it (Ctrl+B)",
        "toggle_browser",
    ),
    (
        "Sessions: every agent",
        "Every agent's sessions in one list, and search through what was said (A in the browser)",
        "every_agent",
    ),
    (
        "Restart agent",
        "Start the current session's agent again and reopen its sessions (Ctrl+R)",
        "restart_agent",
    ),
    (
        "Wire inspector",
        "The current agent's JSON-RPC traffic, both ways, with timings (F12)",
        "wire_inspector",
    ),
    (
        "Add an agent",
        "Pick an agent from the ACP agent registry and add it to the config file",
        "add_agent",
    ),
)
"""The App's own palette entries: title, help, and the App action they run."""


def app_commands(app: App[int]) -> Iterator[SystemCommand]:
    """The App's own palette entries, each running its ``action_*`` method."""
    for title, help_text, action in APP_COMMANDS:
        yield SystemCommand(title, help_text, getattr(app, f"action_{action}"))


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
        title = sanitize(slot.title or "new session", LABEL_LIMIT)
        yield SystemCommand(
            f"Switch to tab {number}: {title}",
            f"{sanitize(slot.agent.display_name, NAME_LIMIT)} · {slot.cwd} (Alt+{number})",
            lambda slot=slot: ws.board.focus(slot),
        )


def logout_commands(
    app: App[int], ws: Workspace | None, current: SessionSlot | None
) -> Iterator[SystemCommand]:
    """ "Log out of AGENT" for the current tab's agent, when it advertises logging out."""
    if ws is None or current is None:
        return
    agent = current.agent
    caps = agent.capabilities
    if caps is None or not caps.can_logout:
        return
    method = "auth/logout" if caps.protocol_version >= 2 else "logout"
    yield SystemCommand(
        f"Log out of {sanitize(agent.display_name)}",
        f"End the login ({method}); the agent asks you to log in again when it needs to",
        lambda: app.run_worker(ws.login.log_out(agent), group="logout"),
    )


def close_tab(app: App[int], ws: Workspace, slot: SessionSlot) -> None:
    """Close a tab (its session is closed where the agent can; an unused agent stops)."""
    app.run_worker(ws.close_slot(slot), group="close-tab")


def restart_agent(app: AppState, ws: Workspace, slot: SessionSlot) -> None:
    """Read the config again, then restart the tab's agent with it, also while it runs or
    hangs; asks first when a turn would be cut short (the restart stops it: the agent's
    process is replaced)."""
    from acp_tui.ui.reload_config import reload_config

    reload_config(app, ws)
    agent = slot.agent
    running = [s for s in ws.board.slots_of(agent) if s.busy]
    if not running:
        ws.restart(agent)
        return
    from acp_tui.ui.dialogs.confirm import ConfirmDialog

    tabs = "a turn is running" if len(running) == 1 else f"turns are running in {len(running)} tabs"
    dialog = ConfirmDialog(
        f"Restart {sanitize(agent.display_name)}? {tabs.capitalize()}.",
        confirm_label="Restart",
        cancel_label="Keep it running",
        note="The running turn stops; its sessions are reopened after the restart.",
        destructive=True,
    )

    def answered(restart: bool | None) -> None:
        if restart:
            ws.restart(agent)

    app.push_screen(dialog, callback=answered)


def export_transcript(app: App[int], cwd: Path, slot: SessionSlot | None) -> None:
    """Save the conversation as Markdown, to a path the user confirms."""
    from acp_tui.client.session.export import (
        default_export_path,
        transcript_to_markdown,
        write_export,
    )
    from acp_tui.ui.dialogs.export import ExportDialog

    session = slot.session if slot is not None else None
    if slot is None or session is None:
        app.notify("There is no session to export yet.", severity="warning")
        return
    exports = slot.agent.paths.data_dir / "exports"
    default = default_export_path(exports, session.transcript.title, session.session_id)
    agent_name = slot.agent.display_name

    def save(path: Path | None) -> None:
        if path is None:
            return
        text = transcript_to_markdown(
            session.transcript,
            agent=agent_name,
            cwd=str(session.cwd),
            terminals=session.terminal_output,
        )
        with contextlib.suppress(OSError):  # write_export says what is wrong
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_export(path, text)
        except (OSError, UnicodeError) as exc:
            app.notify(f"Could not export: {exc}", severity="error", markup=False)
        else:
            app.notify(f"Exported to {path}", markup=False)

    app.push_screen(ExportDialog(default, cwd=cwd, own_folder=exports), callback=save)


def new_session_with_roots(app: AppState, ws: Workspace | None, slot: SessionSlot | None) -> None:
    """Ctrl+N: read the config again, choose the agent (when several could take it) and the
    extra roots, then open a new session in a new tab."""
    if ws is None or slot is None:
        app.notify("The agent is still starting.", severity="warning")
        return
    from acp_tui.ui.reload_config import reload_config

    reload_config(app, ws)
    app.run_worker(new_session_flow(app, ws, slot), group="new-session")


async def new_session_flow(app: App[int], ws: Workspace, slot: SessionSlot) -> None:
    """Ask which agent (when several could take it), let the Workspace get it ready, ask for
    the extra roots, and let the Workspace open the session (or stop the agent it started)."""
    from acp_tui.ui.dialog_interaction import ask
    from acp_tui.ui.dialogs.agent_choice import CURRENT, AgentChoiceDialog
    from acp_tui.ui.dialogs.roots import RootsDialog

    settings = ws.config.settings
    names = [*sorted(n for n in settings.agents if n != DEMO_AGENT_NAME), DEMO_AGENT_NAME]
    current = slot.agent.launch.command.name
    chosen: str | None = None
    if any(name != current for name in names):
        choice = await ask(app, AgentChoiceDialog(current, names, settings))
        if choice is None:
            return
        chosen = None if choice == CURRENT else choice
    offer = await ws.offers.offer(slot, chosen, settings)
    if offer is None:
        return
    dialog = RootsDialog(
        offer.cwd, offer.roots, offer.recent, supported=offer.supported, reason=offer.reason
    )
    result = await ask(app, dialog)
    ws.offers.open(offer, result.roots if result is not None else None)
