"""Provides the app's Textual messages: one per kind of Workspace event, and widget requests.

The App subscribes once to the Workspace and posts each event to the chat screen as the message
of its kind (`workspace_message`), so every change is handled on Textual's loop, in order, by its
own ``@on`` handler. Each message carries its event (`acp_tui.client.workspace.events`) as
``event``. Widgets ask for things with the request messages at the end, which screens can
handle without importing the widgets (they arrive after the first frame).

The events module imports only the standard library, so this module costs the first frame
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from acp_tui.client.workspace import events
from acp_tui.ui.slash import Parsed

__all__ = [
    "ActionProgress",
    "AgentChanged",
    "AttentionChanged",
    "CommandTyped",
    "CurrentChanged",
    "DraftsReturned",
    "Notice",
    "OptionChosen",
    "QueueChanged",
    "SessionInfoChanged",
    "SessionRenamed",
    "SessionShown",
    "SessionsChanged",
    "SlotAdded",
    "SlotRemoved",
    "SlotStateChanged",
    "TabChosen",
    "TurnChanged",
    "workspace_message",
]


# -- Workspace events ----------------------------------------------------------------------------


@dataclass
class AgentChanged(Message):
    """An agent's state or status changed."""

    event: events.AgentChanged


@dataclass
class SlotAdded(Message):
    """A tab was added."""

    event: events.SlotAdded


@dataclass
class SlotRemoved(Message):
    """A tab was closed."""

    event: events.SlotRemoved


@dataclass
class CurrentChanged(Message):
    """Another tab is the current one."""

    event: events.CurrentChanged


@dataclass
class SlotStateChanged(Message):
    """A tab's state (and its status words) changed."""

    event: events.SlotStateChanged


@dataclass
class QueueChanged(Message):
    """A tab's queued prompts changed."""

    event: events.QueueChanged


@dataclass
class AttentionChanged(Message):
    """A tab in the background wants the user, or no longer does."""

    event: events.AttentionChanged


@dataclass
class TurnChanged(Message):
    """The turn's state in a tab's session changed."""

    event: events.TurnChanged


@dataclass
class SessionShown(Message):
    """A tab shows another transcript (its session opened or was replaced)."""

    event: events.SessionShown


@dataclass
class SessionInfoChanged(Message):
    """The agent renamed or touched one of its sessions."""

    event: events.SessionInfoChanged

    def can_replace(self, message: Message) -> bool:
        """The next one, for the same session and giving at least the same fields, makes this
        one moot: a flood of titles is handled once per batch, not once per title."""
        if not isinstance(message, SessionInfoChanged):
            return False
        mine, later = self.event, message.event
        return (
            later.agent is mine.agent
            and later.session_id == mine.session_id
            and later.given >= mine.given
        )


@dataclass
class SessionRenamed(Message):
    """The user gave a session a local title, or cleared it."""

    event: events.SessionRenamed


@dataclass
class Notice(Message):
    """Something to tell the user in passing."""

    event: events.Notice


@dataclass
class DraftsReturned(Message):
    """Queued prompts came back to the draft."""

    event: events.DraftsReturned


@dataclass
class ActionProgress(Message):
    """Progress of a session action started from the browser."""

    event: events.ActionProgress


@dataclass
class SessionsChanged(Message):
    """The agent's list of sessions gained or lost sessions."""

    event: events.SessionsChanged


MESSAGES: dict[type[Any], Callable[[Any], Message]] = {
    events.AgentChanged: AgentChanged,
    events.SlotAdded: SlotAdded,
    events.SlotRemoved: SlotRemoved,
    events.CurrentChanged: CurrentChanged,
    events.SlotStateChanged: SlotStateChanged,
    events.QueueChanged: QueueChanged,
    events.AttentionChanged: AttentionChanged,
    events.TurnChanged: TurnChanged,
    events.SessionShown: SessionShown,
    events.SessionInfoChanged: SessionInfoChanged,
    events.SessionRenamed: SessionRenamed,
    events.Notice: Notice,
    events.DraftsReturned: DraftsReturned,
    events.ActionProgress: ActionProgress,
    events.SessionsChanged: SessionsChanged,
}
"""The message of each kind of event."""


def workspace_message(event: events.WorkspaceEvent) -> Message:
    """The Textual message that carries ``event``."""
    return MESSAGES[type(event)](event)


# -- requests from widgets -----------------------------------------------------------------------


@dataclass
class OptionChosen(Message):
    """The user picked ``value`` for the config option ``config_id`` (None: the legacy mode)."""

    config_id: str | None
    value: str | bool


@dataclass
class TabChosen(Message):
    """The user picked the tab of slot ``slot_id`` (a click on the tab bar)."""

    slot_id: int


@dataclass
class CommandTyped(Message):
    """The user sent one of acp-tui's commands, a ``!`` command, or a ``//name`` acp-tui does
    not have (`acp_tui.ui.slash`); ``text`` is what was typed, given back if it cannot run."""

    parsed: Parsed
    text: str
