"""Provides QueuedPrompt and SlotQueue: the prompts a tab holds until they can be sent.

Enter never loses a message: what cannot be sent at once waits here, visibly, with the reason it
waits, editable and removable until it goes. A cancelled turn pauses the queue: nothing queued
goes until the user says so. A tab's `SlotQueue` also holds the prompt whose
turn is running, so "is a turn running here?" and "why does this wait?" are answered in one
place. The part that fills and empties it is `acp_tui.client.workspace.prompt_queue.sending`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.client.session.prompt_blocks import CommandOutput

__all__ = ["QueuedPrompt", "SlotQueue"]


@dataclass(eq=False)
class QueuedPrompt:
    """A prompt waiting to be sent; editable and removable until it is."""

    id: int
    text: str
    attachments: tuple[Path, ...] = ()
    context: tuple[CommandOutput, ...] = ()
    """The ``!`` commands' output that goes with it (taken from its slot when it was sent)."""
    recorded_in: str | None = None
    """The session whose local copy has it already (sent once, and queued again after a
    terminal login): it is not recorded twice."""
    editing: bool = False
    """Taken into the prompt to be edited: it keeps its place, and neither it nor what follows
    goes until the edit is sent."""


WAITING_FOR = {
    "starting": "sent once the agent has started",
    "opening": "sent once the session is open",
    "closed": "sent once a new session is open",
    "failed": "not sent: the session could not be opened (Ctrl+R retries)",
    "agent_down": "not sent: the agent has stopped (Ctrl+R restarts it)",
}
"""Why queued prompts wait, by the state of their slot (see `SlotState`)."""


class SlotQueue(list[QueuedPrompt]):
    """One tab's queued prompts, in the order they go, and the one being sent (``sending``)."""

    def __init__(self) -> None:
        super().__init__()
        self.sending: QueuedPrompt | None = None
        """The prompt whose turn is running (or is on its way)."""
        self.paused = False
        """The user cancelled a turn with prompts queued: none goes until they resume it."""

    @property
    def held(self) -> bool:
        """Nothing may go now: the queue is paused, or its next prompt is being edited."""
        return self.paused or (bool(self) and self[0].editing)

    @property
    def busy(self) -> bool:
        """A turn runs (or a prompt is on its way)."""
        return self.sending is not None

    def reason(self, state: str) -> str:
        """Why the queued prompts wait, in words, in a slot in ``state``."""
        if self.paused:
            return "paused (turn cancelled): Ctrl+Up, then Enter sends them"
        if self and self[0].editing:
            return "waiting for the message you are editing"
        if state == "ready":
            return "sent when the current turn ends" if self.busy else "sending…"
        return WAITING_FOR[state]
