"""Ctrl+C and Ctrl+Q as a terminal sends them (0x03 and 0x11, the terminal in raw mode).

Ctrl+C copies a selection; otherwise it interrupts a running turn (as in Claude Code), clears a
draft, and else offers to quit ("Press Ctrl+C again to quit"), as does a second Ctrl+C within
2 s; a Ctrl+C while the offer stands quits. Ctrl+Q asks first during a turn or with a dialog
open, and a second Ctrl+Q there quits.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path

from tests.pty.chat import prompt_line, start
from tests.terminal import Terminal

OFFER = "Press Ctrl+C again to quit"
ASK = "Quit acp-tui?"
HANGING = "I will hang until you cancel this turn."


def offer_written(term: Terminal, since: int) -> None:
    """Wait until the offer is written after output offset ``since``. The raw output, not the
    screen: the offer shows for 2 s, and a test starved that long finds the screen without it."""
    term.wait_for_output(OFFER.encode(), start=since)


def hang(term: Terminal) -> None:
    """Start a turn that runs until it is cancelled."""
    term.type("hang\r")
    term.wait_for(HANGING)


def test_ctrl_c_cancels_the_turn_and_a_second_one_offers_to_quit(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        hang(term)
        term.press("ctrl+c")
        screen = term.wait_for("Cancelled.")
        assert OFFER not in screen
        since = len(term.output)
        term.press("ctrl+c")  # within 2 s of the first
        offer_written(term, since)
        assert term.process.poll() is None
        term.press("ctrl+c")
        assert term.wait() == 0


def test_ctrl_c_at_an_empty_prompt_offers_to_quit_for_two_seconds(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        since = len(term.output)
        term.press("ctrl+c")
        offer_written(term, since)
        term.wait_for(lambda text: OFFER not in text, timeout=10)  # the offer lapses...
        time.sleep(0.5)
        since = len(term.output)
        term.press("ctrl+c")  # ...so this one only offers again
        offer_written(term, since)
        assert term.process.poll() is None
        term.press("ctrl+c")
        assert term.wait() == 0


def test_ctrl_c_copies_a_selection_and_clears_a_draft_that_ctrl_z_brings_back(
    tmp_path: Path,
) -> None:
    with start(tmp_path) as term:
        term.type("a draft to keep")
        term.send("\x1b[1;2D" * 4)  # Shift+Left, four times: "keep" selected
        term.press("ctrl+c")
        copied = b"\x1b]52;c;" + base64.b64encode(b"keep")
        term.wait_for_output(copied)  # to the clipboard, through the terminal (OSC 52)
        time.sleep(0.3)
        assert "a draft to keep" in prompt_line(term)
        assert OFFER not in term.text()
        term.press("right")  # nothing selected now
        term.press("ctrl+c")
        term.wait_for(lambda _: "Message the agent" in prompt_line(term))
        assert OFFER not in term.text()
        term.send("\x1a")  # Ctrl+Z: undo
        term.wait_for(lambda _: "a draft to keep" in prompt_line(term))
        term.press("ctrl+q")
        assert term.wait() == 0


def test_ctrl_q_during_a_turn_asks_first(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        hang(term)
        term.press("ctrl+q")
        # The dialog may be drawn in more than one write: wait for its reason too.
        screen = term.wait_for(lambda text: ASK in text and "A turn is running" in text)
        assert "A turn is running" in screen
        time.sleep(0.3)
        term.send("n")
        term.wait_for(lambda text: ASK not in text)
        time.sleep(0.5)
        assert term.process.poll() is None
        assert "working…" in term.text()  # the turn goes on
        term.press("ctrl+q")
        term.wait_for(ASK)
        time.sleep(0.3)
        term.press("ctrl+q")  # a second Ctrl+Q quits
        assert term.wait() == 0


def test_ctrl_q_with_a_dialog_open_asks_first(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        term.send("\x13")  # Ctrl+S: the export dialog
        term.wait_for("Export")
        time.sleep(0.3)
        term.press("ctrl+q")
        screen = term.wait_for(lambda text: ASK in text and "A dialog is open" in text)
        assert "A dialog is open" in screen
        time.sleep(0.3)
        term.send("y")
        assert term.wait() == 0
