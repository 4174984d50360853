"""TranscriptView frames: the work of one is bounded per loop iteration, and the scroll size
changes without laying the whole screen out."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.app import App, ComposeResult

from acp_tui.client.session.transcript import Transcript
from acp_tui.ui.transcript import display, frames
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for
from tests.app.test_transcript_view import ViewApp, agent


class CountingView(TranscriptView):
    """Counts the units each flush renders, and the moves to a place not all rendered."""

    def __init__(self) -> None:
        super().__init__()
        self.per_flush: list[int] = [0]
        self.blank_frames = 0
        render_unit = self.lines.render_unit

        def counting_render_unit(index: int, unit: Any) -> None:
            self.per_flush[-1] += 1
            render_unit(index, unit)

        self.lines.render_unit = counting_render_unit  # type: ignore[method-assign]

    def flush(self) -> None:
        self.per_flush.append(0)
        before = (self.scroll_offset.y, self.virtual_size)
        super().flush()
        top = self.scroll_offset.y
        if (top, self.virtual_size) != before:  # the view moved: to a place all rendered
            page = self.scrollable_content_region.height
            units = self.lines.iter_units(top, top + page)
            self.blank_frames += any(unit.strips is None for _, _, unit in units)


class CountingApp(App[None]):
    def __init__(self, transcript: Transcript) -> None:
        super().__init__()
        self.transcript = transcript

    def compose(self) -> ComposeResult:
        yield CountingView()

    def on_mount(self) -> None:
        self.query_one(CountingView).show(self.transcript)


async def test_a_window_slow_to_render_is_rendered_over_several_loop_iterations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(display, "RENDER_BUDGET", 0.0)  # one unit per step
    transcript = Transcript("s")
    for n in range(40):
        transcript.add_notice(f"notice {n}")
    app = CountingApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(CountingView)
        await wait_for(pilot, lambda: view.settled and "notice 39" in view.visible_lines())
        assert view.scroll_offset.y == view.max_scroll_y
        assert max(view.per_flush) == 1  # each step stopped after one unit
        assert sum(view.per_flush) >= 10  # a page of notices (a line and a blank each)
        assert view.blank_frames == 0


async def test_a_growing_transcript_updates_its_scroll_size_without_a_layout() -> None:
    transcript = Transcript("s")
    app = ViewApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        for n in range(40):
            transcript.add_notice(f"notice {n}")
        # The scrollbar appearing lays the screen out (the view gets narrower): let it.
        await wait_for(pilot, lambda: view.settled and view.show_vertical_scrollbar)
        await pilot.pause()
        layouts: list[bool] = []
        refresh = view.refresh

        def spy(*args: Any, **kwargs: Any) -> Any:
            layouts.append(bool(kwargs.get("layout")))
            return refresh(*args, **kwargs)

        view.refresh = spy  # type: ignore[method-assign]
        height = view.virtual_size.height
        for n in range(30):
            transcript.apply(agent(f"word{n} " + ("\n\n" if n % 5 == 0 else "")))
            await pilot.pause()
        for n in range(40, 60):
            transcript.add_notice(f"notice {n}")
        await wait_for(pilot, lambda: view.settled and "notice 59" in view.visible_lines())
        assert view.virtual_size.height > height
        assert view.vertical_scrollbar.window_virtual_size == view.virtual_size.height
        assert view.scroll_offset.y == view.max_scroll_y
        assert layouts
        assert not any(layouts)


async def test_a_long_transcript_is_laid_out_over_several_loop_iterations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(display, "LAYOUT_BUDGET", 0.0)  # one entry per step
    transcript = Transcript("s")
    for n in range(60):
        transcript.add_notice(f"notice {n}")
    app = CountingApp(transcript)
    iterations = [0]
    steps: list[tuple[int, int]] = []  # (loop iteration, flush) of each entry laid out

    def tick() -> None:  # once per loop iteration
        iterations[0] += 1
        asyncio.get_running_loop().call_soon(tick)

    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(CountingView)
        await wait_for(pilot, lambda: view.settled and "notice 59" in view.visible_lines())
        update = view.lines.lay_out_entry

        def counting_update(*args: Any) -> int:
            steps.append((iterations[0], len(view.per_flush)))
            return update(*args)

        view.lines.lay_out_entry = counting_update  # type: ignore[method-assign]
        asyncio.get_running_loop().call_soon(tick)
        view.show(transcript)  # everything to lay out again
        await wait_for(pilot, lambda: view.settled and "notice 59" in view.visible_lines())
        flushes = [flush for _, flush in steps]
        assert len(steps) >= 60
        assert len(set(flushes)) == len(flushes)  # one entry per flush
        # Each flush going on with the rest in a later loop iteration (a timer's flush may
        # share one), not all of them in one callback.
        assert len({iteration for iteration, _ in steps}) >= len(steps) // 2
        assert view.scroll_offset.y == view.max_scroll_y
        assert view.blank_frames == 0


class RefreshCountingView(TranscriptView):
    """Counts the whole-view refreshes, and the lines refreshed alone."""

    def __init__(self) -> None:
        super().__init__()
        self.whole = 0
        self.lines_refreshed: list[tuple[int, int]] = []

    def refresh(self, *regions: Any, **kwargs: Any) -> Any:
        if not regions:
            self.whole += 1
        return super().refresh(*regions, **kwargs)

    def refresh_lines(self, y_start: int, line_count: int = 1) -> None:
        self.lines_refreshed.append((y_start, line_count))
        super().refresh_lines(y_start, line_count)


class RefreshCountingApp(App[None]):
    def __init__(self, transcript: Transcript) -> None:
        super().__init__()
        self.transcript = transcript

    def compose(self) -> ComposeResult:
        yield RefreshCountingView()

    def on_mount(self) -> None:
        self.query_one(RefreshCountingView).show(self.transcript)


async def test_an_entry_changed_in_place_redraws_its_lines_only() -> None:
    """A count updated 10,000 times in a flood (refused questions, notices past the first)
    made each frame compose the whole view again; lines that did not move are kept."""
    transcript = Transcript("s")
    for n in range(30):
        transcript.add_notice(f"notice {n}")
    transcript.notices.tally("count", "1 counted")
    app = RefreshCountingApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(RefreshCountingView)
        await wait_for(pilot, lambda: view.settled and "1 counted" in view.visible_lines())
        first = view.whole
        line = next(i for i, text in enumerate(view.plain_lines()) if text == "1 counted")
        for n in range(2, 50):
            transcript.notices.tally("count", f"{n} counted")
            await asyncio.sleep(0.01)
        await wait_for(pilot, lambda: view.settled and "49 counted" in view.visible_lines())
        assert view.whole == first
        assert view.lines_refreshed
        assert set(view.lines_refreshed) == {(line, 1)}
        # It takes a second line: what is below moves, the whole view is drawn again.
        transcript.notices.tally("count", "50 counted\nand a second line")
        await wait_for(pilot, lambda: view.settled and "and a second line" in view.visible_lines())
        assert view.whole > first
        # A new entry: the whole view again.
        whole = view.whole
        transcript.add_notice("one more")
        await wait_for(pilot, lambda: view.settled and "one more" in view.visible_lines())
        assert view.whole > whole


async def test_the_flush_timer_rests_while_nothing_changes_and_wakes_for_a_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An idle view flushed thirty times a second for nothing (about 40% of an idle app's
    CPU). Its timer now rests after QUIET_FLUSHES idle ticks, and a change that comes meanwhile
    is still shown: in view, and in a view hidden (a tab in the background) then shown."""
    monkeypatch.setattr(frames, "QUIET_FLUSHES", 3)
    transcript = Transcript("s")
    transcript.apply(agent("the first reply", "m1"))
    app = CountingApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(CountingView)
        await wait_for(pilot, lambda: view.flush_timer.resting)
        flushes = len(view.per_flush)
        await asyncio.sleep(10 * display.FLUSH_INTERVAL)
        assert len(view.per_flush) == flushes  # not one flush while it rests
        assert view.flush_timer.resting

        transcript.apply(agent(", and more of it", "m1"))
        transcript.apply(agent("a second reply", "m2"))
        await wait_for(pilot, lambda: "a second reply" in view.visible_lines())
        assert "the first reply, and more of it" in view.visible_lines()
        await wait_for(pilot, lambda: view.flush_timer.resting)

        view.display = False  # a tab in the background: its timer rests too
        await wait_for(pilot, lambda: view.scrollable_content_region.width == 0)
        transcript.apply(agent("said while hidden", "m3"))
        await wait_for(pilot, lambda: view.flush_timer.resting)
        view.display = True
        await wait_for(pilot, lambda: "said while hidden" in view.visible_lines())
