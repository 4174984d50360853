"""Provides Board: what the Workspace's parts share: the slots, the current one, the events.

Every part (logins, opening, the prompt queue, listed sessions, questions) receives the board
and changes slots only through it, so each change is said once, as an event, in the order it
happened. A part that must react to another's change subscribes to the board instead of
calling that part: the prompt queue drains when a session is shown, and gives its prompts back
when the session is gone.

Events are delivered in the order they were emitted: one emitted while listeners are still
being told of another waits until every listener has had that one.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

from acp_tui.client.listeners import Listeners
from acp_tui.client.workspace.events import (
    AgentChanged,
    AttentionChanged,
    CurrentChanged,
    Level,
    Notice,
    SlotAdded,
    SlotRemoved,
    SlotStateChanged,
    WorkspaceEvent,
)

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import Attention, SessionSlot, SlotState

__all__ = ["Board"]

log = logging.getLogger(__name__)

E = TypeVar("E")

WAITING_STATES = ("starting", "agent_down", "failed")
"""The states in which a slot shows its agent's status (it waits for the agent)."""


class Board:
    """The slots, the current slot, the event stream and the task group of one Workspace."""

    def __init__(self) -> None:
        self.slots: list[SessionSlot] = []
        self.current: SessionSlot | None = None
        self.events: Listeners[[WorkspaceEvent]] = Listeners("workspace listener")
        self.task_group: TaskGroup | None = None
        """Where `spawn` runs work: set while the Workspace runs."""
        self._pending: deque[WorkspaceEvent] = deque()
        self._emitting = False
        self._focus_changed = anyio.Event()

    # -- events ----------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[WorkspaceEvent], object]) -> Callable[[], None]:
        """Receive every event; returns the unsubscriber. A listener that raises is logged."""
        return self.events.subscribe(listener)

    def on(self, kind: type[E], listener: Callable[[E], object]) -> Callable[[], None]:
        """Receive the events of one kind (a part reacting to another's change)."""

        def of_kind(event: WorkspaceEvent) -> None:
            if isinstance(event, kind):
                listener(event)

        return self.events.subscribe(of_kind)

    def emit(self, event: WorkspaceEvent) -> None:
        """Tell every listener, after the events emitted before this one."""
        self._pending.append(event)
        if self._emitting:
            return
        self._emitting = True
        try:
            while self._pending:
                self.events.emit(self._pending.popleft())
        finally:
            self._emitting = False

    def spawn(self, work: Callable[[], Awaitable[object]], name: str) -> None:
        """Run ``work`` in the Workspace; an unexpected error is reported, never raised."""
        tg = self.task_group
        if tg is None:
            raise RuntimeError("the Workspace is not running (use `async with`)")

        async def guarded() -> None:
            try:
                await work()
            except Exception as exc:
                log.exception("workspace task %s failed", name)
                self.emit(Notice(f"Internal error in {name}: {exc}", "error"))

        tg.start_soon(guarded, name=name)

    # -- slots -----------------------------------------------------------------------------

    def slots_of(self, agent: AgentRuntime) -> list[SessionSlot]:
        return [slot for slot in self.slots if slot.agent is agent]

    def slot_showing(self, agent: AgentRuntime, session_id: str) -> SessionSlot | None:
        """The open tab showing this session of ``agent``, if any."""
        for slot in self.slots:
            if slot.agent is agent and slot.session_id == session_id and slot.state != "closed":
                return slot
        return None

    def add(self, slot: SessionSlot, *, focus: bool) -> None:
        """A new tab, the current one when ``focus`` (or when there is none)."""
        slot.opened_from = self.current
        self.slots.append(slot)
        self.emit(SlotAdded(slot))
        if focus or self.current is None:
            self.focus(slot)

    def remove(self, slot: SessionSlot) -> None:
        """Take a tab away; its neighbour becomes current if it was."""
        index = self.slots.index(slot)
        self.slots.remove(slot)
        if self.current is slot:
            neighbour = self.slots[min(index, len(self.slots) - 1)] if self.slots else None
            self.focus(neighbour)
        self.emit(SlotRemoved(slot))

    def focus(self, slot: SessionSlot | None) -> None:
        """Make ``slot`` the current tab (what it wanted the user for is then seen)."""
        if slot is self.current:
            return
        self.current = slot
        self._focus_changed.set()
        self._focus_changed = anyio.Event()
        if slot is not None and slot.attention is not None:
            self.clear_attention(slot)
        self.emit(CurrentChanged(slot))

    def focus_step(self, step: int) -> None:
        """Focus the next (1) or previous (-1) slot, wrapping around."""
        if not self.slots:
            return
        index = self.slots.index(self.current) if self.current in self.slots else 0
        self.focus(self.slots[(index + step) % len(self.slots)])

    async def focus_changed(self) -> None:
        """Wait until another tab is the current one."""
        await self._focus_changed.wait()

    def want_attention(self, slot: SessionSlot, why: Attention) -> None:
        """Mark a tab in the background (a question waiting there outranks anything else)."""
        if slot is not self.current and slot.attention != "permission":
            slot.attention = why
            self.emit(AttentionChanged(slot))

    def clear_attention(self, slot: SessionSlot) -> None:
        if slot.attention is not None:
            slot.attention = None
            self.emit(AttentionChanged(slot))

    def set_state(self, slot: SessionSlot, state: SlotState, status: str = "") -> None:
        slot.state = state
        slot.status = status
        self.emit(SlotStateChanged(slot))

    # -- agents ----------------------------------------------------------------------------

    def agent_changed(self, agent: AgentRuntime) -> None:
        """The agent's state or status changed: the slots waiting for it say so."""
        for slot in self.slots_of(agent):
            if slot.state in WAITING_STATES and agent.state != "ready":
                slot.status = agent.status
        self.emit(AgentChanged(agent))

    def tell(self, agent: AgentRuntime, text: str, level: Level = "info") -> None:
        """Say ``text`` in the transcript of every slot of ``agent`` (it stays), and in
        passing."""
        for slot in self.slots_of(agent):
            slot.transcript.add_notice(text, level)
        self.emit(Notice(text, level))
