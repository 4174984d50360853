"""Paced: a redraw asked for by the thousand runs once for all, at a bounded rate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest

from acp_tui.ui import pacing
from acp_tui.ui.pacing import EVERY, Paced


class Owner:
    """Stands for the widget: records what it was asked to run, and when."""

    def __init__(self) -> None:
        self.soon: list[Callable[[], object]] = []
        self.timers: list[tuple[float, Callable[[], object]]] = []

    def call_later(self, callback: Callable[[], object]) -> None:
        self.soon.append(callback)

    def set_timer(self, delay: float, callback: Callable[[], object]) -> None:
        self.timers.append((delay, callback))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr(pacing, "_clock", lambda: now[0])
    return now


def test_many_calls_run_it_once_soon_then_at_most_once_per_interval(clock: list[float]) -> None:
    owner, runs = Owner(), []
    paced = Paced(cast(Any, owner), lambda: runs.append(clock[0]))
    for _ in range(1000):
        paced()
    assert len(owner.soon) == 1
    assert not owner.timers
    owner.soon.pop()()
    assert runs == [100.0]
    clock[0] += EVERY / 5
    for _ in range(1000):
        paced()
    assert not owner.soon
    assert len(owner.timers) == 1
    delay, run = owner.timers.pop()
    assert delay == pytest.approx(EVERY * 4 / 5)
    clock[0] += delay
    run()
    assert len(runs) == 2
    clock[0] += EVERY * 3  # a quiet moment: the next change shows at once again
    paced()
    assert len(owner.soon) == 1
    assert not owner.timers
