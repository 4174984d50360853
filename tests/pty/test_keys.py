"""Keys as real terminals send them (a pseudo-terminal, the bytes xterm and tmux write).

Alt+1..9 arrive as ESC followed by the digit (xterm's metaSendsEscape, GNOME Terminal, tmux,
iTerm's Esc+ mode): they switch tabs, and type nothing. An escape sequence the app does not
know is dropped, never typed into the prompt as text.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.pty.chat import open_second_tab, prompt_line, start
from tests.terminal import Terminal, acp_tui_argv

DEMO = [sys.executable, "-m", "acp_tui.demo_agent"]


def test_alt_digits_switch_tabs_and_type_nothing(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        term.type("draft of the first tab")
        open_second_tab(term)
        term.wait_for(lambda text: "draft of the first tab" not in text)
        term.send("\x1b1")  # Alt+1
        term.wait_for(lambda text: "draft of the first tab" in prompt_line(term))
        term.send("\x1b2")  # Alt+2
        term.wait_for(lambda text: "draft of the first tab" not in text)
        time.sleep(0.5)
        line = prompt_line(term)
        assert "™" not in line
        assert "2" not in line.replace("2 ", "")  # no digit typed (the tab number aside)
        assert "Message the agent" in line  # the second tab's prompt is still empty
        term.press("ctrl+q")
        assert term.wait() == 0


def test_an_unknown_sequence_is_dropped_not_typed(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        term.type("ab")
        for unknown in ("\x1b[1;9X", "\x1b[99~", "\x1bO9", "\x1b[200;7;9Q"):
            term.send(unknown)
            time.sleep(0.3)
        term.type("cd")
        term.send("£™")  # typed as such (UTF-8), on keyboards that have them
        term.wait_for(lambda text: "abcd£™" in prompt_line(term))
        line = prompt_line(term)
        for typed in ("[1;9X", "c~", "99", "O9", "9Q"):
            assert typed not in line
        term.press("ctrl+q")
        assert term.wait() == 0


@pytest.mark.parametrize("after", [0.0, 0.3, 1.0], ids=lambda s: f"{s}s")
def test_text_typed_before_the_first_frame_is_sent(tmp_path: Path, after: float) -> None:
    """Typed at once after `acp-tui` is started (as in a shell: the command, then the words):
    none of it is lost, and its Enter sends it once the agent is up."""
    project = tmp_path / "project"
    project.mkdir()
    argv = acp_tui_argv("--", *DEMO, "--data-dir", str(tmp_path / "d"))
    with Terminal(argv, project, cols=160, rows=40) as term:
        time.sleep(after)
        term.send("typed early\r")
        term.wait_for("You said", timeout=60)
        screen = term.wait_for("typed early")
        assert screen.count("You said") == 1
        term.press("ctrl+q")
        assert term.wait() == 0


def test_find_goes_to_the_previous_match_with_a_key_tmux_delivers(tmp_path: Path) -> None:
    """tmux 3.3 sends nothing for Shift+F3 and plain Enter for Shift+Enter: Up (ESC [ A, which
    every terminal and tmux send) goes to the previous match, Down to the next."""
    with start(tmp_path) as term:
        for word in ("needle one", "needle two", "needle three"):
            term.type(word)
            term.press("enter")
            term.wait_for(lambda text, word=word: text.count(word) >= 1)
        term.wait_for(re.compile(r"·\s+ready"))
        term.send("\x06")  # Ctrl+F
        term.wait_for("in the transcript")
        term.type("needle")
        # The count of the whole word, on the find line: each key searches at once, so the
        # count of "n" (more matches) may be on the screen before the last letter is in.
        found = re.compile(r"needle\b[^\n]*?(\d+) of (\d+)")
        text = term.wait_for(found)
        match = found.search(text)
        assert match is not None
        first, total = int(match.group(1)), int(match.group(2))
        assert total >= 3
        term.press("up")
        before = (first - 2) % total + 1
        term.wait_for(f"{before} of {total}")
        term.press("up")
        term.wait_for(f"{(before - 2) % total + 1} of {total}")
        term.press("down")
        term.wait_for(f"{before} of {total}")
        line = prompt_line(term)
        assert "needle" not in line  # nothing went to the prompt
        term.press("ctrl+q")
        assert term.wait() == 0


def after_a_turn_focus_the_transcript(term: Terminal) -> None:
    """A turn, then Tab: the transcript has the focus (its keys are in the footer)."""
    term.type("hello")
    term.press("enter")
    term.wait_for("You said")
    term.wait_for(re.compile(r"·\s+ready"))
    term.press("tab")
    term.wait_for("Copy block")


def test_keys_read_with_ctrl_l_go_to_the_prompt(tmp_path: Path) -> None:
    """Ctrl+L and the keys typed right after it often come in one read: they all went to the
    transcript (the app had handed them on before Ctrl+L moved the focus), and were lost."""
    with start(tmp_path) as term:
        after_a_turn_focus_the_transcript(term)
        term.send("\x0c" + "after")  # one write: Ctrl+L, then the text
        term.wait_for(lambda text: "after" in prompt_line(term))
        term.press("ctrl+q")
        assert term.wait() == 0


def test_a_stop_and_continue_from_outside_leave_the_keys_and_ctrl_q_working(
    tmp_path: Path,
) -> None:
    """kill -STOP then kill -CONT (a debugger, a job-control tool): Textual resumed on the
    SIGCONT as if from a suspend, and started a second input thread; the two split the keys,
    and Ctrl+Q no longer quit (4 of 4 before the driver resumed only what it suspended)."""
    with start(tmp_path) as term:
        os.kill(term.process.pid, signal.SIGSTOP)
        time.sleep(0.3)
        os.kill(term.process.pid, signal.SIGCONT)
        term.type("typed after")
        term.wait_for(lambda text: "typed after" in prompt_line(term))
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0


def test_tab_from_the_prompt_goes_to_the_transcript(tmp_path: Path) -> None:
    """As the README says: Tab (a real terminal's \\t) puts the focus on the transcript, whose
    keys the footer then shows; what is typed next is not typed into the prompt."""
    with start(tmp_path) as term:
        after_a_turn_focus_the_transcript(term)
        term.type("xyz")
        term.send("\x0c")  # Ctrl+L: back to the prompt, after the keys above were read
        term.wait_for(lambda text: "Copy block" not in text)  # the prompt's keys in the footer
        term.type("after")
        term.wait_for(lambda text: "after" in prompt_line(term))
        assert "xyz" not in prompt_line(term)
        term.press("ctrl+q")
        assert term.wait() == 0
