"""The quiet time of an asking dialog counts from keys as the terminal read them.

The event loop may run the dialog's check before keys it has not handled yet (a busy loop, a
process that was not scheduled): such a check must take no answer. The clock is driven by hand
here (the countdown's own timer is slowed out of the way); tests/pty/test_intent.py shows the
same with a real terminal and a stopped process.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from acp_tui.ui.dialogs import asking
from acp_tui.ui.dialogs.asking import AskingScreen
from acp_tui.ui.input_clock import Keyboard


class Clock:
    """Stands in for the `time` module in `asking`: ``now`` moves only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class Question(AskingScreen[str]):
    def compose(self) -> ComposeResult:
        yield self.quiet_note()
        yield Button("Yes", disabled=True)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("behind")

    def on_mount(self) -> None:
        self.push_screen(Question())


@pytest.fixture
def keyboard(monkeypatch: pytest.MonkeyPatch) -> Keyboard:
    """The input thread's clock, as the test sets it (0: no terminal, as under Pilot)."""
    keyboard = Keyboard()
    monkeypatch.setattr(asking, "KEYBOARD", keyboard)
    return keyboard


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, keyboard: Keyboard) -> Clock:
    clock = Clock()
    monkeypatch.setattr(asking, "time", clock)
    monkeypatch.setattr(Question, "TICK", 1000.0)  # the test makes every check itself
    return clock


async def test_a_key_the_terminal_read_but_the_loop_has_not_handled_restarts_the_quiet_time(
    clock: Clock, keyboard: Keyboard
) -> None:
    async with Host().run_test() as pilot:
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, Question)
        clock.now += 0.7
        keyboard.key_read_at = clock.now  # read by the input thread, still queued
        clock.now += 0.2
        dialog.check_quiet()
        assert not dialog.accepting
        clock.now += 0.2
        dialog.check_quiet()
        assert not dialog.accepting  # 0.4 s since that key
        for _ in range(4):
            clock.now += 0.1
            dialog.check_quiet()
        assert dialog.accepting  # 0.8 s since it


async def test_a_check_that_comes_late_takes_no_answer_and_the_next_one_decides(
    clock: Clock,
) -> None:
    async with Host().run_test() as pilot:
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, Question)
        clock.now += 2.0  # the process was not running: keys may wait unread
        dialog.check_quiet()
        assert not dialog.accepting
        assert "0.0 s to go" in str(dialog.query_one(".asking-quiet", Static).content)
        clock.now += 0.1
        dialog.check_quiet()
        assert dialog.accepting
        assert not dialog.query_one(Button).disabled


async def test_the_quiet_time_counts_from_when_the_dialog_is_drawn(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy machine may take most of the quiet time to draw the dialog: no answer is taken
    before it is on the screen, and the quiet time starts there."""
    frames: list[Callable[[], object]] = []
    monkeypatch.setattr(
        Question, "call_after_refresh", lambda self, callback: frames.append(callback)
    )
    async with Host().run_test() as pilot:
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, Question)
        assert [frame.__name__ for frame in frames] == ["drawn"]
        clock.now += 0.1
        for _ in range(20):  # two seconds, not drawn yet
            clock.now += 0.1
            dialog.check_quiet()
        assert not dialog.accepting
        frames.pop()()  # the frame is out
        for _ in range(7):
            clock.now += 0.1
            dialog.check_quiet()
        assert not dialog.accepting  # 0.7 s since it was drawn
        clock.now += 0.1
        dialog.check_quiet()
        assert dialog.accepting


async def test_the_quiet_time_counts_only_as_far_as_the_terminal_has_been_read(
    clock: Clock, keyboard: Keyboard
) -> None:
    """On a busy machine the input thread may not run while the loop's checks come on time:
    keys typed meanwhile wait unread, so the keyboard is quiet only up to when the thread last
    found nothing to read."""
    async with Host().run_test() as pilot:
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, Question)
        keyboard.key_read_at = keyboard.clear_at = clock.now  # a key, then nothing unread
        for _ in range(20):  # two seconds of checks, on time; the thread has not run since
            clock.now += 0.1
            dialog.check_quiet()
        assert not dialog.accepting
        keyboard.clear_at = clock.now - 0.3  # it ran: nothing unread 1.7 s after the key
        clock.now += 0.1
        dialog.check_quiet()
        assert dialog.accepting
