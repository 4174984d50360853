"""Provides SessionSlot: one tab, the state a UI renders, and the ways a tab opens its session.

A slot is one place a session is shown (a tab): it exists before its session opens (the agent
may still be starting) and after it closes (the transcript stays on screen). Its explicit
``state`` answers "what happens to Enter now": a prompt is sent at once only when the slot is
``ready`` and no turn runs; otherwise it waits in the slot's queue
(`acp_tui.client.workspace.prompt_queue`), visibly, and is sent in order when it can be.

What happens to slots is told by the Workspace's events (`acp_tui.client.workspace.events`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from acp_tui.client.session.transcript import Transcript
from acp_tui.client.workspace.prompt_queue.waiting import SlotQueue

if TYPE_CHECKING:
    from acp_tui.client.history.preview import Preview
    from acp_tui.client.session.live_session import LiveSession
    from acp_tui.client.session.prompt_blocks import CommandOutput
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.protocol.methods import SessionInfo

__all__ = [
    "Attention",
    "Intent",
    "OpenExisting",
    "OpenFork",
    "OpenNew",
    "SessionSlot",
    "SlotState",
]

SlotState = Literal["starting", "opening", "ready", "closed", "failed", "agent_down"]
"""starting: the agent is not up yet; opening: its session is being created or restored;
ready: open (a turn may be running, see ``busy``); closed: closed or deleted; failed: it could
not be opened; agent_down: the agent exited under it (Restart reopens it)."""

Attention = Literal["permission", "failed", "finished"]
"""Why a slot in the background wants the user: a permission question, a failure, a turn done."""


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
    at_line: int | None = None
    """A line of its local copy to show (a search hit's message), if any."""


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
    queue: SlotQueue = field(default_factory=SlotQueue)
    """The prompts waiting to be sent here, and the one being sent."""
    context: list[CommandOutput] = field(default_factory=list)
    """The output of ``!`` commands, going with the next prompt sent here (the user may take
    it off first)."""
    attention: Attention | None = None
    prompted: bool = False
    """Whether any prompt was sent in this slot's session (an unused session is not kept)."""
    placeholder: Transcript = field(default_factory=lambda: Transcript(""))
    """What the slot shows before its session opens (notices of what went wrong)."""
    opened_from: SessionSlot | None = None
    """The tab that was current when this one was opened: back there if opening fails."""
    local_title: str | None = None
    """The title the user gave its session here: it wins over the agent's."""
    preview: Preview | None = None
    """The end of its session's local copy, shown (as ``placeholder``) while the agent
    replays the session (see `acp_tui.client.history.preview`)."""
    preview_agreed: bool | None = None
    """Whether the agent's replay ended with what the preview showed (None: no preview)."""

    @property
    def transcript(self) -> Transcript:
        return self.session.transcript if self.session is not None else self.placeholder

    @property
    def session_id(self) -> str | None:
        return self.session.session_id if self.session is not None else None

    @property
    def title(self) -> str | None:
        """The local title, else the agent's (None before a session opens)."""
        if self.session is None:
            return None
        return self.local_title or self.session.title

    @property
    def busy(self) -> bool:
        """A turn runs here (or a prompt is on its way)."""
        return self.queue.busy

    @property
    def live(self) -> bool:
        """Its session is open in this client."""
        return self.session is not None and not self.session.closed and self.state == "ready"

    def queue_reason(self) -> str:
        """Why the queued prompts wait, in words (see `SlotQueue.reason`)."""
        return self.queue.reason(self.state)
