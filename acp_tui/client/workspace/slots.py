"""Provides SessionSlot, QueuedPrompt and the Workspace's events: the state a UI renders.

A slot is one place a session is shown (a tab): it exists before its session opens (the agent
may still be starting) and after it closes (the transcript stays on screen). Its explicit
``state`` answers "what happens to Enter now": a prompt is sent at once only when the slot is
``ready`` and no turn runs; otherwise it is queued, visibly, and sent in order when it can be.

Events are small frozen dataclasses; the Workspace emits them in order on one stream and a UI
adapts them to its own messages. The transcript itself is observed directly
(``slot.transcript.subscribe``), as it changes far more often than anything here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from acp_tui.client.session.transcript import Transcript

if TYPE_CHECKING:
    from acp_tui.client.session.live_session import LiveSession
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.protocol.methods import SessionInfo

__all__ = [
    "ActionProgress",
    "AgentChanged",
    "Attention",
    "CurrentChanged",
    "DraftsReturned",
    "Notice",
    "QueuedPrompt",
    "SessionShown",
    "SessionSlot",
    "SessionsChanged",
    "SlotAdded",
    "SlotChanged",
    "SlotRemoved",
    "SlotState",
    "WorkspaceEvent",
]

SlotState = Literal["starting", "opening", "ready", "closed", "failed", "agent_down"]
"""starting: the agent is not up yet; opening: its session is being created or restored;
ready: open (a turn may be running, see ``busy``); closed: closed or deleted; failed: it could
not be opened; agent_down: the agent exited under it (Restart reopens it)."""

Attention = Literal["permission", "failed", "finished"]
"""Why a slot in the background wants the user: a permission question, a failure, a turn done."""

Level = Literal["info", "warning", "error"]


@dataclass(eq=False)
class QueuedPrompt:
    """A prompt waiting to be sent; editable and removable until it is."""

    id: int
    text: str
    attachments: tuple[Path, ...] = ()
    recorded_in: str | None = None
    """The session whose local copy has it already (sent once, and queued again after a
    terminal login): it is not recorded twice."""


@dataclass(frozen=True, slots=True)
class OpenNew:
    """Open the slot with `session/new` in ``cwd`` with these extra roots."""

    cwd: Path
    additional_directories: tuple[Path, ...] = ()
    notice: str | None = None
    """Said in the new session's transcript once it is open (why it is a new one)."""


@dataclass(frozen=True, slots=True)
class OpenExisting:
    """Open a listed session: ``replay`` its history, or resume without it."""

    info: SessionInfo
    replay: bool


@dataclass(frozen=True, slots=True)
class OpenFork:
    """Fork a listed session into this slot."""

    info: SessionInfo


Intent = OpenNew | OpenExisting | OpenFork


@dataclass(eq=False)
class SessionSlot:
    """One tab: a session (or the wish for one) of one agent, its prompt queue and marks."""

    id: int
    agent: AgentRuntime
    intent: Intent
    cwd: Path
    additional_directories: tuple[Path, ...] = ()
    session: LiveSession | None = None
    state: SlotState = "starting"
    status: str = ""
    """What the slot is doing or why it waits, in words (shown while it is not ready)."""
    queue: list[QueuedPrompt] = field(default_factory=list)
    sending: QueuedPrompt | None = None
    """The prompt whose turn is running."""
    attention: Attention | None = None
    prompted: bool = False
    """Whether any prompt was sent in this slot's session (an unused session is not kept)."""
    placeholder: Transcript = field(default_factory=lambda: Transcript(""))
    """What the slot shows before its session opens (notices of what went wrong)."""
    opened_from: SessionSlot | None = None
    """The tab that was current when this one was opened: back there if opening fails."""

    @property
    def transcript(self) -> Transcript:
        return self.session.transcript if self.session is not None else self.placeholder

    @property
    def session_id(self) -> str | None:
        return self.session.session_id if self.session is not None else None

    @property
    def title(self) -> str | None:
        return self.session.title if self.session is not None else None

    @property
    def busy(self) -> bool:
        """A turn runs (or a prompt is on its way)."""
        return self.sending is not None

    @property
    def live(self) -> bool:
        """Its session is open in this client."""
        return self.session is not None and not self.session.closed and self.state == "ready"

    def queue_reason(self) -> str:
        """Why the queued prompts wait, in words."""
        if self.state == "ready":
            return "sent when the current turn ends" if self.busy else "sending…"
        return {
            "starting": "sent once the agent has started",
            "opening": "sent once the session is open",
            "closed": "sent once a new session is open",
            "failed": "not sent: the session could not be opened (Ctrl+R retries)",
            "agent_down": "not sent: the agent has stopped (Ctrl+R restarts it)",
        }[self.state]


# -- events --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentChanged:
    """An agent's state or status text changed (starting, ready, logging in, exited...)."""

    agent: AgentRuntime


@dataclass(frozen=True, slots=True)
class SlotAdded:
    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class SlotChanged:
    """``what``: ``state``, ``queue``, ``title``, ``attention`` or ``status``."""

    slot: SessionSlot
    what: str


@dataclass(frozen=True, slots=True)
class SlotRemoved:
    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class SessionShown:
    """The slot shows another transcript now (its session opened, reopened or was replaced)."""

    slot: SessionSlot


@dataclass(frozen=True, slots=True)
class CurrentChanged:
    slot: SessionSlot | None


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


WorkspaceEvent = (
    AgentChanged
    | SlotAdded
    | SlotChanged
    | SlotRemoved
    | SessionShown
    | CurrentChanged
    | Notice
    | DraftsReturned
    | ActionProgress
    | SessionsChanged
)
