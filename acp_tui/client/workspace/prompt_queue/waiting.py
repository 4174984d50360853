"""Provides QueuedPrompt and SlotQueue: the prompts a tab holds until they can be sent.

Enter never loses a message: what cannot be sent at once waits here, visibly, with the reason it
waits, editable and removable until it goes. A tab's `SlotQueue` also holds the prompt whose
turn is running, so "is a turn running here?" and "why does this wait?" are answered in one
place. The part that fills and empties it is `acp_tui.client.workspace.prompt_queue.sending`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["QueuedPrompt", "SlotQueue"]


@dataclass(eq=False)
class QueuedPrompt:
    """A prompt waiting to be sent; editable and removable until it is."""

    id: int
    text: str
    attachments: tuple[Path, ...] = ()
    recorded_in: str | None = None
    """The session whose local copy has it already (sent once, and queued again after a
    terminal login): it is not recorded twice."""


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

    @property
    def busy(self) -> bool:
        """A turn runs (or a prompt is on its way)."""
        return self.sending is not None

    def reason(self, state: str) -> str:
        """Why the queued prompts wait, in words, in a slot in ``state``."""
        if state == "ready":
            return "sent when the current turn ends" if self.busy else "sending…"
        return WAITING_FOR[state]
