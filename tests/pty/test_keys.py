"""Keys as real terminals send them (a pseudo-terminal, the bytes xterm and tmux write).

Alt+1..9 arrive as ESC followed by the digit (xterm's metaSendsEscape, GNOME Terminal, tmux,
iTerm's Esc+ mode): they switch tabs, and type nothing. An escape sequence the app does not
know is dropped, never typed into the prompt as text.
"""

from __future__ import annotations

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
