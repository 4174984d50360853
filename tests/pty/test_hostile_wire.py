"""The wire inspector in a real terminal: an agent's methods, ids and lines never act on it.

The demo agent's ``--hostile NAME`` sends, after its ``initialize`` reply, a notification whose
method is the hostile text, a request whose id and method are it, and the text as a line that is
not JSON. Opened with F12 (the bytes xterm sends), the inspector shows them in its table and, row
by row, in its detail pane. What must hold is about the bytes that reach the terminal: an OSC 52
(which sets the clipboard) or an OSC 0 (the window title) is never written, and a ``[/]`` (a
MarkupError if parsed as markup) does not end the app.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from acp_tui.client.safe_text import sanitize
from acp_tui.demo_agent.hostile import HOSTILE_TEXTS
from tests.terminal import Terminal, acp_tui_argv

SEPARATOR = "┌"
"""Where the detail pane starts on the screen (its top border)."""


def detail(screen: str) -> list[str]:
    """The lines of the detail pane (below the table), without its borders."""
    lines = screen.splitlines()
    top = next((i for i, line in enumerate(lines) if line.startswith(SEPARATOR)), len(lines))
    return [line.strip("▊▎ ") for line in lines[top + 1 :]]


def escaped(term: Terminal) -> bool:
    """Whether an OSC 52 (the clipboard) or an OSC 0 (the window title) reached the terminal."""
    return b"\x1b]52" in term.output or b"\x1b]0;" in term.output


def invalid_row(screen: str) -> int:
    """The index in the table of the row of the line that is not JSON."""
    lines = screen.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "time"])
    return next(i for i, line in enumerate(lines[header + 1 :]) if " invalid " in line)


@pytest.mark.parametrize("name", ["osc52", "osc0", "close-tag"])
def test_f12_writes_none_of_the_agents_escapes_and_survives_its_markup(
    tmp_path: Path, name: str
) -> None:
    text = HOSTILE_TEXTS[name]
    shown = sanitize(text)
    project = tmp_path / "project"
    project.mkdir()
    agent = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "d")]
    argv = acp_tui_argv("--", *agent, "--hostile", name)
    with Terminal(argv, project, rows=40, cols=160) as term:
        term.wait_for(re.compile(r"·\s+ready"), timeout=60)
        term.press("f12")
        # The table drawn, with the detail pane showing the last message (the table follows
        # the newest once it is laid out: the first row is shown before that).
        screen = term.wait_for(
            lambda s: (
                escaped(term)
                or ("Wire: " in s and " invalid " in s and '"sessionId"' in "\n".join(detail(s)))
            )
        )
        assert not escaped(term)
        # Shown instead: the title, the methods and the ids, their controls made visible.
        term.wait_for(lambda s: s.count(shown) >= 6)
        # The line that is not JSON in the detail pane: from the first row, down to its row.
        term.press("pageup")
        term.wait_for('"method": "initialize"')
        term.press(*["down"] * invalid_row(screen))
        term.wait_for(lambda s: detail(s)[:1] == [shown])
        assert term.process.poll() is None
        assert not escaped(term)
        term.press("escape")
        term.wait_for(re.compile(r"·\s+ready"))
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0
    assert not escaped(term)
