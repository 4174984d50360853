"""Cancel never sends what the user did not confirm, in a real terminal.

Esc (or Ctrl+C) during a turn with prompts queued behind it pauses them: the queue says so, and
nothing goes until Enter on the queue (Ctrl+Up, Enter) or a queued prompt edited back in the
prompt and sent; an edited prompt keeps its place in the queue.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.pty.chat import CTRL_UP, start
from tests.terminal import Terminal

HANGING = "I will hang until you cancel this turn."


def queue_behind_a_cancelled_turn(term: Terminal, cancel: str) -> None:
    """A turn that hangs, two prompts queued behind it, then ``cancel``: the queue paused."""
    term.type("hang\r")
    term.wait_for(HANGING)
    term.type("first one\r")
    term.wait_for("1. first one")
    term.type("second one\r")
    term.wait_for("2. second one")
    term.press(cancel)
    term.wait_for("Cancelled.")
    term.wait_for("⏸ paused")
    time.sleep(1.0)  # what a resumed queue would have sent by now
    screen = term.text()
    assert "▌ first one" not in screen, screen
    assert "1. first one" in screen
    assert "2. second one" in screen


def test_escape_pauses_the_queue_and_enter_on_it_sends_it_in_order(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        queue_behind_a_cancelled_turn(term, "escape")
        term.send(CTRL_UP)
        time.sleep(0.3)
        term.press("enter")
        screen = term.wait_for(lambda text: "▌ second one" in text)
        assert screen.index("▌ first one") < screen.index("▌ second one")
        assert "paused" not in screen
        term.press("ctrl+q")
        assert term.wait() == 0


def test_an_edited_prompt_keeps_its_place_and_sending_it_confirms(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        queue_behind_a_cancelled_turn(term, "ctrl+c")
        term.send(CTRL_UP)
        time.sleep(0.3)
        term.send("e")  # the first one, into the prompt; it stays first, marked
        term.wait_for("1. ✎ first one")
        term.type(" edited")
        term.press("enter")
        screen = term.wait_for(lambda text: "▌ second one" in text)
        assert screen.index("▌ first one edited") < screen.index("▌ second one")
        term.press("ctrl+q")
        assert term.wait() == 0
