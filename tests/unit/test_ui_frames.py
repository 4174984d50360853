"""FramePacer: a frame's cost is the rendering of its units and the drawing of its lines."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from acp_tui.ui.transcript import frames
from acp_tui.ui.transcript.frames import RENDER_CPU_FACTOR, FramePacer


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    now = SimpleNamespace(wall=10.0, cpu=5.0)
    fake = SimpleNamespace(perf_counter=lambda: now.wall, process_time=lambda: now.cpu)
    monkeypatch.setattr(frames, "time", fake)
    return now


def test_the_drawing_of_a_frame_postpones_the_next_one(clock: SimpleNamespace) -> None:
    """A unit drawn again in place each frame (a count in a flood) costs little to render and
    much to draw: counting only the rendering, frames came as fast as the screen took them."""
    pacer = FramePacer()
    pacer.begin()
    clock.wall += 0.001
    clock.cpu += 0.001
    assert pacer.end(True)
    clock.wall += 0.002
    clock.cpu += RENDER_CPU_FACTOR * 0.001 + 0.0005
    assert pacer.frame_due()
    pacer.drawn(0.004, 0.004)  # the screen drew its lines meanwhile
    assert not pacer.frame_due()
    clock.cpu += RENDER_CPU_FACTOR * 0.004
    clock.wall += 0.004
    assert pacer.frame_due()
