"""Provides FramePacer: when the transcript view may render a frame while the transcript changes;
and FlushTimer, the view's flush timer, which rests while nothing changes.

Rendering takes at most about half of the time, however fast text streams in, and while updates
pour in, about a fifth of the CPU: after a frame, the next one is due once as much time as the
frame took has passed, and the process has spent RENDER_CPU_FACTOR times the frame's CPU on
other work (reading the agent), unless MAX_FRAME_GAP went by; a frame's cost is the rendering
of its units and the drawing of its lines on the screen. A stream of tiny updates so costs a
bounded share of the CPU in frames however slowly the machine runs; once the changes stop, the
next flush renders at once. A frame rendered in several steps (each within the view's budget)
counts as one, with the time of all its steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer

__all__ = ["MAX_FRAME_GAP", "QUIET_FLUSHES", "RENDER_CPU_FACTOR", "FlushTimer", "FramePacer"]

RENDER_CPU_FACTOR = 4
MAX_FRAME_GAP = 0.25  # seconds: the longest a changing transcript waits for a frame
QUIET_FLUSHES = 30
"""Ticks in a row with nothing to flush (a second's worth) before the flush timer rests."""


class FlushTimer:
    """The view's repeating flush, resting while there is nothing to flush: each view of an
    idle app flushed thirty times a second for nothing (about 40% of the idle app's CPU with
    one tab). Whatever may need a flush (a change of the transcript, a new width, new styles,
    a flush asked for) calls `wake`."""

    def __init__(self, flush: Callable[[], None], idle: Callable[[], bool]) -> None:
        self._flush = flush
        self._idle = idle
        """True when nothing is left to lay out or render (or nothing can be)."""
        self.timer: Timer | None = None
        self.quiet = 0
        """Ticks in a row that had nothing to flush."""
        self._ticking = False

    def tick(self) -> None:
        """Flush; rest once QUIET_FLUSHES ticks in a row found nothing to do."""
        self._ticking = True
        try:
            self._flush()
        finally:
            self._ticking = False
        if not self._idle():
            self.quiet = 0
            return
        self.quiet += 1
        if self.quiet >= QUIET_FLUSHES and self.timer is not None:
            self.timer.pause()

    def wake(self) -> None:
        """Run the timer again (cheap when it runs: called on every change)."""
        if self.quiet and not self._ticking:
            self.quiet = 0
            if self.timer is not None:
                self.timer.resume()

    @property
    def resting(self) -> bool:
        return self.quiet >= QUIET_FLUSHES


class FramePacer:
    """The timing of the frames of one view (wall time from ``perf_counter``)."""

    def __init__(self) -> None:
        self._render_after = 0.0
        self._render_after_cpu = 0.0
        self._rendered_at = 0.0
        self._started = (0.0, 0.0)
        self._spent: tuple[float, float] | None = None
        """Wall and CPU time spent so far on a frame rendered in several steps."""

    def start_over(self) -> None:
        """A new transcript is shown: as if a frame had just been shown (so a long transcript
        is laid out before its end is rendered), and none is half-rendered."""
        self._spent = None
        self._rendered_at = time.perf_counter()

    def shown_lately(self) -> bool:
        """True when the last frame was shown less than MAX_FRAME_GAP ago."""
        return time.perf_counter() - self._rendered_at < MAX_FRAME_GAP

    @property
    def frame_begun(self) -> bool:
        """True while a frame is rendered in steps (the next step is not held back)."""
        return self._spent is not None

    def frame_due(self) -> bool:
        """Whether a frame is due while the transcript changes (see the module's docstring)."""
        now = time.perf_counter()
        if now < self._render_after:
            return False
        if now - self._rendered_at >= MAX_FRAME_GAP:
            return True
        return time.process_time() >= self._render_after_cpu

    def begin(self) -> float:
        """A step of rendering starts; returns when (``perf_counter``)."""
        started = time.perf_counter()
        self._started = (started, time.process_time())
        return started

    def end(self, complete: bool) -> bool:
        """The step that :meth:`begin` started ended; ``complete`` when the frame is whole
        (to be shown). Returns ``complete``."""
        ended = time.perf_counter()
        wall, cpu = ended - self._started[0], time.process_time() - self._started[1]
        if self._spent is not None:
            wall, cpu = wall + self._spent[0], cpu + self._spent[1]
        if not complete:
            self._spent = (wall, cpu)
            return False
        self._spent = None
        self._render_after = ended + wall
        self._render_after_cpu = time.process_time() + RENDER_CPU_FACTOR * cpu
        self._rendered_at = ended
        return True

    def drawn(self, wall: float, cpu: float) -> None:
        """The screen drew lines of the view (``render_lines``): part of the frame's cost, as
        much as rendering its units (more, when a unit is drawn again in place each frame),
        so the next frame waits for it too."""
        self._render_after += wall
        self._render_after_cpu += RENDER_CPU_FACTOR * cpu
