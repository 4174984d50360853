"""What each Ctrl+C does, by the rules of `acp_tui.ui.interrupt`, on a clock the test moves.

(The keys themselves, as a terminal sends them, are tested in tests/pty/test_interrupt_keys.py.)
"""

from __future__ import annotations

from acp_tui.ui.interrupt import WINDOW, CtrlC


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_turn_is_interrupted_then_quitting_is_offered_then_done() -> None:
    clock = Clock()
    ctrl_c = CtrlC(clock)
    assert ctrl_c.press(turn=True, draft=True) == "interrupt"
    clock.now += 1.0
    assert ctrl_c.press(turn=True, draft=True) == "offer"  # a second one within 2 s
    clock.now += 1.0
    assert ctrl_c.press(turn=True, draft=True) == "quit"


def test_an_offer_lapses_after_two_seconds() -> None:
    clock = Clock()
    ctrl_c = CtrlC(clock)
    assert ctrl_c.press(turn=False, draft=False) == "offer"
    clock.now += WINDOW + 0.1
    assert ctrl_c.press(turn=False, draft=False) == "offer"
    clock.now += 0.5
    assert ctrl_c.press(turn=False, draft=False) == "quit"


def test_a_draft_is_cleared_and_a_slow_second_press_interrupts_again() -> None:
    clock = Clock()
    ctrl_c = CtrlC(clock)
    assert ctrl_c.press(turn=False, draft=True) == "clear"
    clock.now += WINDOW + 0.1
    assert ctrl_c.press(turn=True, draft=False) == "interrupt"  # the agent did not stop yet
    clock.now += WINDOW + 0.1
    assert ctrl_c.press(turn=True, draft=False) == "interrupt"
