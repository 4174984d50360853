"""Provides the app's Textual messages: Workspace events as messages, and widget requests.

The App subscribes once to the Workspace and posts each event to the chat screen as
`WorkspaceMessage`, so every change is handled on Textual's loop, in order, by ``@on`` handlers.
Widgets ask for things with the request messages here, which screens can handle without
importing the widgets (they arrive after the first frame).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from acp_tui.client.workspace.events import WorkspaceEvent

__all__ = ["OptionChosen", "TabChosen", "WorkspaceMessage"]


@dataclass
class WorkspaceMessage(Message):
    """Something happened in the Workspace (see `acp_tui.client.workspace.events`)."""

    event: WorkspaceEvent


@dataclass
class OptionChosen(Message):
    """The user picked ``value`` for the config option ``config_id`` (None: the legacy mode)."""

    config_id: str | None
    value: str | bool


@dataclass
class TabChosen(Message):
    """The user picked the tab of slot ``slot_id`` (a click on the tab bar)."""

    slot_id: int
