"""The Board the Workspace's parts share: events in the order they were emitted, one kind at a
time for a part, and the current tab kept when tabs come and go."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.board import Board
from acp_tui.client.workspace.events import (
    AttentionChanged,
    CurrentChanged,
    QueueChanged,
    SlotAdded,
    SlotRemoved,
    SlotStateChanged,
    WorkspaceEvent,
)
from acp_tui.client.workspace.slots import OpenNew, SessionSlot

AGENT = cast(AgentRuntime, object())


def new_slot(number: int) -> SessionSlot:
    return SessionSlot(number, AGENT, OpenNew(Path("/p")), Path("/p"))


def test_an_event_emitted_by_a_listener_reaches_everyone_after_the_one_being_told() -> None:
    board = Board()
    slot = new_slot(1)
    told: dict[str, list[str]] = {"first": [], "second": []}

    def first(event: WorkspaceEvent) -> None:
        told["first"].append(type(event).__name__)
        if isinstance(event, SlotStateChanged):
            board.emit(QueueChanged(slot))

    board.subscribe(first)
    board.subscribe(lambda event: told["second"].append(type(event).__name__))
    board.set_state(slot, "closed", "closed")
    order = ["SlotStateChanged", "QueueChanged"]
    assert told == {"first": order, "second": order}


def test_a_part_hears_only_the_kind_it_asks_for() -> None:
    board = Board()
    heard: list[SlotStateChanged] = []
    board.on(SlotStateChanged, heard.append)
    slot = new_slot(1)
    board.add(slot, focus=True)
    board.set_state(slot, "ready")
    assert heard == [SlotStateChanged(slot)]


def test_tabs_come_and_go_and_the_current_one_is_a_neighbour() -> None:
    board = Board()
    events: list[WorkspaceEvent] = []
    board.subscribe(events.append)
    one, two, three = new_slot(1), new_slot(2), new_slot(3)
    board.add(one, focus=True)
    board.add(two, focus=False)
    board.add(three, focus=True)
    assert board.current is three
    assert two.opened_from is one
    board.want_attention(two, "finished")
    assert two.attention == "finished"
    board.focus(two)  # what it wanted the user for is seen
    assert two.attention is None
    board.remove(two)
    assert board.current is three
    assert board.slots == [one, three]
    assert events == [
        SlotAdded(one),
        CurrentChanged(one),
        SlotAdded(two),
        SlotAdded(three),
        CurrentChanged(three),
        AttentionChanged(two),
        AttentionChanged(two),
        CurrentChanged(two),
        CurrentChanged(three),
        SlotRemoved(two),
    ]
