"""Provides the app's Textual messages: one per kind of Workspace event, and widget requests.

The App subscribes once to the Workspace and posts each event to the chat screen as the message
of its kind (`workspace_message`), so every change is handled on Textual's loop, in order, by its
own ``@on`` handler. Each message carries its event (`acp_tui.client.workspace.events`) as
``event``. Widgets ask for things with the request messages at the end, which screens can
handle without importing the widgets (they arrive after the first frame).

A flood of events (a notice per update, a turn's state flipping per question refused) costs a
message each unless told otherwise: the messages that read what they say afresh (a tab's
state, its queue, its turn) stand for every event of their kind and tab that comes while they
wait, and one ``Notice`` message says every notice that came meanwhile (`WorkspacePoster`).

The first frame imports this module (the chat screen's handlers name its classes), but not the
events module: creating its frozen dataclasses costs about 10 ms of CPU, so `MESSAGES` is built
from it when the first event arrives, after the first frame.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from acp_tui.client.workspace import events
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.store.library import SearchHit
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
    "RevealRequested",
    "SessionInfoChanged",
    "SessionRenamed",
    "SessionShown",
    "SessionsChanged",
    "SlotAdded",
    "SlotRemoved",
    "SlotStateChanged",
    "TabChosen",
    "TurnChanged",
    "WorkspacePoster",
    "workspace_message",
]


# -- Workspace events ----------------------------------------------------------------------------


class WorkspaceMessage(Message, bubble=False):
    """A Workspace event as a message; ``event`` is the event (its kind's class, below).

    Plain classes, not dataclasses: creating a dataclass costs the first frame about a
    millisecond, and these are created at import, before it.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Only the chat screen handles them: they never bubble up to the App (once more per
        event, for nothing)."""
        kwargs.setdefault("bubble", False)
        super().__init_subclass__(**kwargs)

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class Gathering(WorkspaceMessage):
    """A message that stands for every event of its kind (and tab, ``key``) that comes while
    it waits to be handled: its handler calls ``take`` first, then reads the state afresh."""

    _take: Callable[[], list[Any]] | None = None

    def key(self) -> Hashable:
        """What the events it stands for share, besides their kind: the tab."""
        slot: Hashable = self.event.slot
        return slot

    def take(self) -> list[Any]:
        """The events this message stands for, oldest first; the next one is posted anew."""
        take, self._take = self._take, None
        return take() if take is not None else [self.event]


class AgentChanged(WorkspaceMessage):
    """An agent's state or status changed."""

    event: events.AgentChanged


class SlotAdded(WorkspaceMessage):
    """A tab was added."""

    event: events.SlotAdded


class SlotRemoved(WorkspaceMessage):
    """A tab was closed."""

    event: events.SlotRemoved


class CurrentChanged(WorkspaceMessage):
    """Another tab is the current one."""

    event: events.CurrentChanged


class SlotStateChanged(Gathering):
    """A tab's state (and its status words) changed."""

    event: events.SlotStateChanged


class QueueChanged(Gathering):
    """A tab's queued prompts changed."""

    event: events.QueueChanged


class AttentionChanged(WorkspaceMessage):
    """A tab in the background wants the user, or no longer does."""

    event: events.AttentionChanged


class TurnChanged(Gathering):
    """The turn's state in a tab's session changed."""

    event: events.TurnChanged


class SessionShown(WorkspaceMessage):
    """A tab shows another transcript (its session opened or was replaced)."""

    event: events.SessionShown


class SessionInfoChanged(Gathering):
    """The agent renamed or touched one of its sessions (``take``: every such change of that
    session that came meanwhile; ``merged``: what they come to)."""

    event: events.SessionInfoChanged

    def key(self) -> Hashable:
        return (self.event.agent, self.event.session_id)

    def merged(self) -> events.SessionInfoChanged:
        """The changes taken as one: each field as the last change that gave it says."""
        changes = self.take()
        values: dict[str, Any] = {}
        for change in changes:
            values.update(change.changes())
        merged: events.SessionInfoChanged = replace(changes[-1], **values, given=frozenset(values))
        return merged


class SessionRenamed(WorkspaceMessage):
    """The user gave a session a local title, or cleared it."""

    event: events.SessionRenamed


class Notice(Gathering):
    """Something to tell the user in passing (``take``: every one that came meanwhile)."""

    event: events.Notice

    def key(self) -> Hashable:
        return None


class DraftsReturned(WorkspaceMessage):
    """Queued prompts came back to the draft."""

    event: events.DraftsReturned


class ActionProgress(WorkspaceMessage):
    """Progress of a session action started from the browser."""

    event: events.ActionProgress


class SessionsChanged(WorkspaceMessage):
    """The agent's list of sessions gained or lost sessions."""

    event: events.SessionsChanged


@cache
def _messages() -> dict[type[Any], Callable[[Any], Message]]:
    """The message of each kind of event (built once, when the first event arrives)."""
    from acp_tui.client.workspace import events

    return {
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


def __getattr__(name: str) -> Any:
    """``MESSAGES``: the message of each kind of event, keyed by the event's class."""
    if name == "MESSAGES":
        return _messages()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def workspace_message(event: events.WorkspaceEvent) -> Message:
    """The Textual message that carries ``event``."""
    return _messages()[type(event)](event)


class WorkspacePoster:
    """Posts each Workspace event with ``post`` as the message of its kind; an event a
    ``Gathering`` message waiting to be handled stands for is added to it instead."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post
        self._gathering: dict[tuple[type[Message], Hashable], list[Any]] = {}

    def __call__(self, event: events.WorkspaceEvent) -> None:
        message = workspace_message(event)
        if not isinstance(message, Gathering):
            self._post(message)
            return
        key = (type(message), message.key())
        gathered = self._gathering.get(key)
        if gathered is not None:
            gathered.append(event)
            return
        gathered = self._gathering[key] = [event]
        message._take = lambda: self._gathering.pop(key, gathered)
        self._post(message)


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


@dataclass
class RevealRequested(Message):
    """A session opened from a search result: its tab scrolls to the message that matched."""

    slot: SessionSlot
    hit: SearchHit
