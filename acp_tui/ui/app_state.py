"""Provides AppState: what the app's commands read and change on the app.

The commands (``session_commands``, ``slash_actions``, ``option_commands``,
``reload_config``) are typed against this base of `AcpApp`, not `AcpApp` itself: the app
imports them, and they must not import it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.ui.toasts import PlainToasts

if TYPE_CHECKING:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.chat import ChatScreen

__all__ = ["AppState"]


class AppState(PlainToasts):
    """The app as its commands see it: its launch, its Workspace and its chat screen."""

    launch: LaunchSpec
    """What the app was started with; its settings are those of the tabs opened from now on."""
    workspace: Workspace | None
    """The core, once the app is up."""
    chat_screen: ChatScreen
    saved_theme: str
    """The theme written in the config (a theme only previewed is not)."""
