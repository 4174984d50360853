"""The session's mode from the keyboard, and the focus after a picker, in a real terminal.

Shift+Tab (``CSI Z``) in the prompt steps through the session's modes, as in Claude Code, and
the prompt keeps the focus. After a choice in one of the options bar's pickers, what the user
types goes to the prompt, not to the picker (whose Space would open it again and whose letters
would search it).
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.pty.chat import prompt_line, start
from tests.terminal import Terminal


def options_line(term: Terminal) -> str:
    """The options bar: the demo agent's model, effort, mode and verbose pickers."""
    return next((line for line in term.text().splitlines() if "Demo fast" in line), "")


def mode_shown(term: Terminal, name: str) -> bool:
    return f" {name} " in options_line(term)


def click(term: Terminal, text: str, line: str) -> None:
    """Click (SGR mouse report, press and release) on ``text`` in the screen's ``line``."""
    lines = term.text().splitlines()
    row = lines.index(line) + 1
    column = line.index(text.strip()) + 1  # on its first letter, not the gap before it
    term.send(f"\x1b[<0;{column};{row}M\x1b[<0;{column};{row}m")


def test_shift_tab_steps_through_the_modes_and_the_prompt_keeps_the_focus(
    tmp_path: Path,
) -> None:
    with start(tmp_path) as term:
        term.wait_for(lambda _: mode_shown(term, "Ask"))
        term.press("shift+tab")
        term.wait_for(lambda _: mode_shown(term, "Code"))
        term.type("still here")
        term.wait_for(lambda _: "still here" in prompt_line(term))
        term.press("shift+tab")  # past the last mode: back to the first
        term.wait_for(lambda _: mode_shown(term, "Ask"))
        term.press("shift+tab", "shift+tab")  # two quick presses: two modes on
        time.sleep(1.0)
        term.wait_for(lambda _: mode_shown(term, "Ask"))
        assert "still here" in prompt_line(term)
        term.press("ctrl+q")
        assert term.wait() == 0


def test_after_a_picker_change_typing_goes_to_the_prompt(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        term.wait_for(lambda _: mode_shown(term, "Ask"))
        click(term, " Ask ", options_line(term))
        term.wait_for(lambda _: "▲" in options_line(term))  # the picker's list is open
        time.sleep(0.3)
        term.press("down", "enter")
        term.wait_for(lambda _: mode_shown(term, "Code"))
        time.sleep(0.3)
        term.type("hello world")
        term.wait_for(lambda _: "hello world" in prompt_line(term))
        assert mode_shown(term, "Code")  # the picker was not opened again, nor searched
        term.press("ctrl+q")
        assert term.wait() == 0
