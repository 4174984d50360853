"""The prompt's draft in the user's editor, in a real terminal: Ctrl+G, and Ctrl+X Ctrl+E.

The app gives the terminal to ``$VISUAL``/``$EDITOR`` as it does to a terminal login (nothing
drawn meanwhile) and takes the edited text back into the prompt. No editor set, or one that
fails, is said, and the draft stays as it was.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.pty.chat import prompt_line, start
from tests.terminal import Terminal

SYNC = b"\x1b[?2026"
"""The start or end of a synchronized update: Textual writes one around every frame."""

EDITOR = """\
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
print("EDITING [" + text + "]", flush=True)
answer = sys.stdin.readline().strip()  # the editor has the keyboard
if answer == "fail":
    sys.exit(3)
with open(path, "w", encoding="utf-8") as file:
    file.write(text + " and " + answer + "\\n")
"""

CTRL_G, CTRL_X, CTRL_E = "\x07", "\x18", "\x05"


def editor(tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "editor.py"
    script.write_text(EDITOR)
    return {"VISUAL": "", "EDITOR": f"{sys.executable} {script}"}


def edit(term: Terminal, keys: str, answer: str) -> None:
    """Type a draft, open the editor with ``keys``, answer it; no frame of the app meanwhile."""
    term.type("my draft")
    term.wait_for(lambda _: "my draft" in prompt_line(term))
    begun = len(term.output)
    term.send(keys)
    asked = term.wait_for_output(b"EDITING [my draft]", start=begun)
    term.send(answer + "\r")
    term.wait_for_output(b"\x1b[?1049h", start=asked)  # the app back on its screen
    assert SYNC not in bytes(term.output[begun:asked])


def test_ctrl_g_edits_the_draft_in_the_editor(tmp_path: Path) -> None:
    with start(tmp_path, env=editor(tmp_path)) as term:
        edit(term, CTRL_G, "more")
        term.wait_for(lambda _: "my draft and more" in prompt_line(term))
        term.press("enter")
        term.wait_for("You said")
        term.press("ctrl+q")
        assert term.wait() == 0


def test_ctrl_x_ctrl_e_edits_the_draft_too(tmp_path: Path) -> None:
    with start(tmp_path, env=editor(tmp_path)) as term:
        edit(term, CTRL_X + CTRL_E, "else")
        term.wait_for(lambda _: "my draft and else" in prompt_line(term))
        term.press("ctrl+q")
        assert term.wait() == 0


def test_a_failing_editor_keeps_the_draft_and_says_so(tmp_path: Path) -> None:
    with start(tmp_path, env=editor(tmp_path)) as term:
        edit(term, CTRL_G, "fail")
        term.wait_for("exited with 3")
        assert "my draft" in prompt_line(term)
        assert "and" not in prompt_line(term)
        term.press("ctrl+q")
        assert term.wait() == 0


def test_no_editor_set_keeps_the_draft_and_says_so(tmp_path: Path) -> None:
    with start(tmp_path, env={"VISUAL": "", "EDITOR": ""}) as term:
        term.type("my draft")
        term.wait_for(lambda _: "my draft" in prompt_line(term))
        term.send(CTRL_G)
        term.wait_for("set $VISUAL or $EDITOR")
        assert "my draft" in prompt_line(term)
        term.press("ctrl+q")
        assert term.wait() == 0
