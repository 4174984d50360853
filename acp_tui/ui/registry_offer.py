"""Provides open_add_agent: the "Add an agent" dialog pushed over the app, and its outcome.

Kept apart from the app so that the app only names the palette command and the first-run hook.
The dialog module is imported here, when it is opened, never before the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App

from acp_tui.config.paths import Paths
from acp_tui.config.settings import load_settings
from acp_tui.registry.first_run import offer_answered

if TYPE_CHECKING:
    from acp_tui.ui.dialogs.add_agent import AddedAgent

__all__ = ["added_message", "first_run_offer", "open_add_agent"]


async def first_run_offer(app: App[Any], *, typing: bool) -> None:
    """The first run's offer, once the demo agent's session is open: the dialog, unless the
    user is ``typing`` already. A dialog then would take their next keys (some may be on their
    way still, not yet in the prompt): it is said in passing, and offered at the next start."""
    if typing:
        app.notify(
            'Add agents from the ACP registry: Ctrl+P, then "Add an agent".',
            title="More agents",
            timeout=10,
            markup=False,
        )
    else:
        await app.run_action("add_agent(True)")


def open_add_agent(app: App[Any], paths: Paths, *, first_run: bool = False) -> None:
    """Show the dialog (the first-run offer with `first_run`) and report what it added."""
    from acp_tui.ui.dialogs.add_agent import AddAgentDialog

    registry_url = load_settings(paths.config_file).settings.registry_url

    def done(added: AddedAgent | None) -> None:
        if first_run:
            offer_answered(paths)
        if added is not None:
            message = added_message(added, paths)
            app.notify(message, title="Agent added", timeout=30, markup=False)

    app.push_screen(AddAgentDialog(registry_url, paths, first_run=first_run), callback=done)


def added_message(added: AddedAgent, paths: Paths) -> str:
    """What was added, and how to start it."""
    settings = load_settings(paths.config_file).settings
    text = f"{added.title} is [agents.{added.name}] in {added.config_file}.\n"
    text += f"Start it with: acp-tui -a {added.name}"
    if list(settings.agents) == [added.name] and settings.default_agent is None:
        text += " (or plain acp-tui: it is the only agent configured)"
    return text
