"""The second pair of tab keys, Alt+Left and Alt+Right, as terminals send them.

Ctrl+PageUp/PageDown switch tabs too, but GNOME Terminal, Konsole and Windows Terminal take
them for their own tabs, so they never reach the app there. Alt+Left/Right reach it from xterm,
GNOME Terminal, Konsole, Windows Terminal (with one pane) and tmux as ``CSI 1;3 D/C``; iTerm2
sends its Option key as modifier 9 (``CSI 1;9 D/C``). tmux is tested as it runs: the outer
terminal's bytes go to tmux, and tmux sends the app its own.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pty.chat import ALT_LEFT, ALT_RIGHT, open_second_tab, prompt_line, start
from tests.terminal import Terminal

DRAFT = "draft of the first tab"


def first_tab_shown(term: Terminal) -> bool:
    return DRAFT in prompt_line(term)


def drawn_whole(term: Terminal) -> bool:
    """The prompt's line is as a frame draws it: the draft with nothing after it, or the empty
    prompt's placeholder. The screen is read while output arrives: under load, tmux's redraw
    of the line came in two pieces, and the line read between them (the draft over the tail of
    the second tab's placeholder) failed the check that nothing was typed after the draft."""
    line = prompt_line(term)
    return line.strip(" ▊▎▌").endswith(DRAFT) or "Message the agent" in line


def switch_back_and_forth(term: Terminal, left: str, right: str) -> None:
    """With two tabs (the second one shown), ``left`` shows the first and ``right`` the second,
    and neither types anything."""
    term.send(left)
    term.wait_for(lambda _: first_tab_shown(term) and drawn_whole(term))
    term.send(right)
    term.wait_for(lambda _: not first_tab_shown(term) and drawn_whole(term))
    # Nothing typed in the second tab's prompt (the screen is in the message).
    assert "Message the agent" in prompt_line(term), term.text()
    term.send(right)  # past the last tab: back to the first
    term.wait_for(lambda _: first_tab_shown(term) and drawn_whole(term))
    # Nothing typed after the draft.
    assert prompt_line(term).strip(" ▊▎▌").endswith(DRAFT), term.text()


@pytest.mark.parametrize(
    ("left", "right"),
    [(ALT_LEFT, ALT_RIGHT), ("\x1b[1;9D", "\x1b[1;9C")],
    ids=["xterm", "iterm2"],
)
def test_alt_arrows_switch_tabs(tmp_path: Path, left: str, right: str) -> None:
    with start(tmp_path) as term:
        term.type(DRAFT)
        open_second_tab(term)
        switch_back_and_forth(term, left, right)
        term.press("ctrl+q")
        assert term.wait() == 0


def test_keys_read_with_a_tab_key_go_to_the_tab_it_shows(tmp_path: Path) -> None:
    """Alt+Left and the keys typed right after it often come in one read: they went to the
    prompt of the tab left behind (the new tab's prompt took the focus a moment later)."""
    with start(tmp_path) as term:
        term.type(DRAFT)
        open_second_tab(term)
        term.send(ALT_LEFT + " and more")  # one write: the tab key, then the text
        term.wait_for(lambda _: f"{DRAFT} and more" in prompt_line(term))
        term.send(ALT_RIGHT)
        term.wait_for(lambda _: not first_tab_shown(term))
        assert "Message the agent" in prompt_line(term)  # nothing went to the second tab
        term.press("ctrl+q")
        assert term.wait() == 0


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[list[str]]:
    """A tmux command line on a server of the test's own (killed afterwards)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    argv = ["tmux", "-S", str(tmp_path / "tmux.sock"), "-f", "/dev/null"]
    yield argv
    subprocess.run([*argv, "kill-server"], capture_output=True, check=False)


def test_alt_arrows_switch_tabs_through_tmux(tmp_path: Path, tmux: list[str]) -> None:
    """The outer terminal sends tmux xterm's Alt+arrows; tmux passes them on as it does."""
    with start(tmp_path, wrap=[*tmux, "new-session"]) as term:
        term.type(DRAFT)
        open_second_tab(term)
        switch_back_and_forth(term, ALT_LEFT, ALT_RIGHT)
        term.press("ctrl+q")
        assert term.wait() == 0
