"""Provides PaneQueue: the prompts of one chat pane that wait to be sent, as its queue shows them.

Before the Workspace exists (the first frame), Enter keeps the text here and `bind` hands it to
the Workspace once the pane has its slot; from then on the slot's queue, in the Workspace, is the
one, and this only remembers which queued prompt was taken into the editor: the next send
replaces it, in its place.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace

__all__ = ["EARLY_REASON", "PaneQueue", "QueueShown"]

EARLY_REASON = "sent once the agent has started"


class QueueShown(NamedTuple):
    """What the queue view shows: the prompts (id, text, in the editor), why they wait, and
    whether the user paused them."""

    prompts: list[tuple[int, str, bool]]
    reason: str
    paused: bool


class PaneQueue:
    """The waiting prompts of one pane; see the module docstring."""

    def __init__(self) -> None:
        self.early: list[tuple[int, str]] = []
        """Prompts sent before the Workspace existed (id, text), handed over in `bind`."""
        self.editing: int | None = None
        """The queued prompt taken into the editor: the next send replaces it, in its place."""
        self.slot: SessionSlot | None = None
        self.workspace: Workspace | None = None

    def bind(self, slot: SessionSlot, workspace: Workspace) -> None:
        """From now on the slot's queue is the one; what waited here goes to it, in order."""
        self.slot, self.workspace = slot, workspace
        early, self.early = self.early, []
        for _, text in early:
            workspace.prompts.submit(slot, text)

    def send(self, text: str, attachments: tuple[Path, ...] = ()) -> None:
        """Enter: to the Workspace (which sends or queues it; it replaces the prompt taken into
        the editor, if any), or kept here until there is one."""
        if self.slot is None or self.workspace is None:
            self.early.append((-len(self.early) - 1, text))
            return
        editing, self.editing = self.editing, None
        prompts = self.workspace.prompts
        if editing is None or not prompts.edit_queued(self.slot, editing, text):
            prompts.submit(self.slot, text, attachments)

    def take(self, prompt_id: int) -> str | None:
        """Remove a queued prompt; its text, if it still waited."""
        if self.slot is None or self.workspace is None:
            for item in self.early:
                if item[0] == prompt_id:
                    self.early.remove(item)
                    return item[1]
            return None
        taken = self.workspace.prompts.remove_queued(self.slot, prompt_id)
        return taken.text if taken is not None else None

    def take_for_edit(self, prompt_id: int) -> str | None:
        """The text of a queued prompt, for the editor: the Workspace holds it (marked as being
        edited) until the next send replaces it; one kept here is simply taken."""
        if self.slot is None or self.workspace is None:
            return self.take(prompt_id)
        held = self.workspace.prompts.hold_for_edit(self.slot, prompt_id)
        self.editing = prompt_id if held is not None else None
        return held.text if held is not None else None

    def resume(self) -> None:
        """Send the paused queue on."""
        if self.slot is not None and self.workspace is not None:
            self.workspace.prompts.resume(self.slot)

    def shown(self) -> QueueShown:
        slot = self.slot
        if slot is None:
            return QueueShown([(id, text, False) for id, text in self.early], EARLY_REASON, False)
        prompts = [(p.id, p.text, p.editing) for p in slot.queue]
        return QueueShown(prompts, slot.queue_reason(), slot.queue.paused)
