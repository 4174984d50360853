"""Provides the Workspace's events: what changed, one small frozen dataclass per kind.

The Workspace emits them in order on one stream (`acp_tui.client.workspace.board.Board`); a UI
subscribes once and turns each kind into its own message. Each kind names one change, so a
handler never asks "what changed?": a title is `SessionInfoChanged`, a queue `QueueChanged`.

The transcript itself is observed directly (``slot.transcript.subscribe``): its entries change
far more often than anything here.

This module imports nothing at runtime but the standard library: the UI's first frame can
import it before the protocol models are loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.protocol.methods import SessionInfo

__all__ = [
    "ActionProgress",
    "AgentChanged",
    "AttentionChanged",
    "CurrentChanged",
    "DraftsReturned",
    "Level",
    "Notice",
    "QueueChanged",
    "SessionInfoChanged",
    "SessionRenamed",
    "SessionShown",
    "SessionsChanged",
    "SlotAdded",
    "SlotRemoved",
    "SlotStateChanged",
    "TurnChanged",
    "WorkspaceEvent",
]

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class AgentChanged:
    """An agent's state or status text changed (starting, ready, logging in, exited...); the
    slots waiting for it say the same."""

    agent: AgentRuntime


@dataclass(frozen=True, slots=True)
class SlotAdded:
    """A new tab, before its session opens."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class SlotRemoved:
    """A tab was closed (or given up after failing to open)."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class CurrentChanged:
    """Another tab is the current one (None: there is no tab)."""

    slot: SessionSlot | None


@dataclass(frozen=True, slots=True)
class SlotStateChanged:
    """A slot's ``state`` (and the ``status`` words that go with it) changed."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class QueueChanged:
    """A slot's queued prompts, or the one being sent, changed."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class AttentionChanged:
    """A slot in the background wants the user, or no longer does (``slot.attention``)."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class TurnChanged:
    """The state of the turn in a slot's session changed (running, waiting for you, idle)."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class SessionShown:
    """The slot shows another transcript now (its session opened, reopened or was replaced)."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class SessionInfoChanged:
    """The agent sent a `session_info_update` for one of its sessions open in this client.

    ``given`` names the fields the update carried (``title``, ``updated_at``): a field it
    omits is left as it is, one it gives as null is cleared.
    """

    agent: AgentRuntime
    session_id: str
    title: str | None
    updated_at: str | None
    given: frozenset[str]

    def changes(self) -> dict[str, str | None]:
        """The fields the update carried, by name, with their new values."""
        values = {"title": self.title, "updated_at": self.updated_at}
        return {name: value for name, value in values.items() if name in self.given}


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the user in passing (a toast); ``slot`` where it belongs to one."""

    text: str
    level: Level = "info"
    slot: SessionSlot | None = None


@dataclass(frozen=True, slots=True)
class DraftsReturned:
    """Queued prompts that can no longer be sent where they were meant to: back to the draft."""

    slot: SessionSlot
    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ActionProgress:
    """Progress of a session action started from the browser (open, fork, close, delete)."""

    agent: AgentRuntime
    text: str
    level: Level = "info"
    done: int | None = None
    total: int = 0


@dataclass(frozen=True, slots=True)
class SessionsChanged:
    """The agent's list of sessions changed: one was added (a fork) or some were removed."""

    agent: AgentRuntime
    added: SessionInfo | None = None
    removed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SessionRenamed:
    """The user renamed a session here (``title`` None: back to the agent's title); its tab,
    header and row show the local title from now on."""

    agent: AgentRuntime
    session_id: str
    title: str | None


WorkspaceEvent = (
    AgentChanged
    | SlotAdded
    | SlotRemoved
    | CurrentChanged
    | SlotStateChanged
    | QueueChanged
    | AttentionChanged
    | TurnChanged
    | SessionShown
    | SessionInfoChanged
    | Notice
    | DraftsReturned
    | ActionProgress
    | SessionsChanged
    | SessionRenamed
)
