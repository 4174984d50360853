"""The one sanitiser of agent text, and the headless commands that print agent text with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_tui.client.safe_text import BIDI_CONTROLS, sanitize
from acp_tui.commands.listing import printable
from acp_tui.demo_agent.hostile import HOSTILE_TEXTS
from acp_tui.demo_agent.store import SessionRecord, SessionStore
from tests.unit.test_cli_sessions import demo_argv, directory, run, run_in_process

RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What must never reach a terminal: control characters, bidi controls, lone surrogates."""


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]52;c;aGFja2Vk\x07", "␛]52;c;aGFja2Vk␇"),  # OSC 52 (the clipboard), BEL-ended
        ("\x1b]0;pwned\x1b\\", "␛]0;pwned␛\\"),  # OSC 0 (the window title), ST-ended
        ("\x1b[2J\x1b[31mred", "␛[2J␛[31mred"),  # CSI
        ("\x9b31m\x9d0;x\x9c", "⟨U+009B⟩31m⟨U+009D⟩0;x⟨U+009C⟩"),  # C1 CSI, OSC, ST
        ("a\x00b\x7f", "a␀b␡"),
        ("evil\u202egpj.exe", "evil⟨U+202E⟩gpj.exe"),
        ("\u2066\u200f\u061c", "⟨U+2066⟩⟨U+200F⟩⟨U+061C⟩"),
        ("lone \ud800", "lone ⟨U+D800⟩"),
        ("one\r\ntwo\rthree", "one\ntwo␍three"),  # CRLF is a line end, a lone CR is shown
        ("tab\tand\nnewline", "tab\tand\nnewline"),  # kept
        ("[@click=app.quit]x[/] [b]", "[@click=app.quit]x[/] [b]"),  # plain text, unchanged
        ("héllo → 世界 🙂", "héllo → 世界 🙂"),  # printable text is never touched
    ],
)
def test_sanitize_makes_unsafe_characters_visible(text: str, shown: str) -> None:
    assert sanitize(text) == shown
    assert RAW.search(sanitize(text)) is None


def test_every_bidi_control_is_made_visible() -> None:
    for char in BIDI_CONTROLS:
        assert sanitize(char) == f"⟨U+{ord(char):04X}⟩"


def test_a_limit_clips_before_sanitising() -> None:
    assert sanitize("x" * 10, limit=4) == "xxxx…"
    assert sanitize("short", limit=10) == "short"
    assert sanitize("\x1b" * 10, limit=2) == "␛␛…"


def test_printable_keeps_a_table_cell_on_one_line() -> None:
    assert printable("a\tb\nc\x1b") == "a␉b␊c␛"


# -- headless: `acp-tui sessions list` prints agent strings to a terminal --------------------------


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_sessions_list_prints_hostile_agent_strings_safely(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = HOSTILE_TEXTS[name]
    data, project = tmp_path / "demo", directory(tmp_path, "project")
    store = SessionStore(data)
    store.open()
    store.put(SessionRecord("s1", str(project), title="a title", updated_at="2024-01-01T00:00:00Z"))
    store.close()
    # Offered v2, the v1 agent is named in a warning; its titles are in the table.
    listed = run("list", cwd=project, agent=demo_argv(data, "--hostile", name), protocol=2)
    assert listed.returncode == 0, listed.stderr
    assert RAW.search(listed.stdout) is None
    assert RAW.search(listed.stderr) is None
    assert printable(text)[:30] in listed.stdout
    assert sanitize(text)[:30] in listed.stderr
    # An error naming the agent (it cannot list sessions), on one line of stderr.
    agent = demo_argv(data, "--hostile", name, "--capabilities", "load")
    failed = run_in_process(capsys, "list", "--cwd", str(project), "--", *agent)
    assert failed.returncode == 1
    assert RAW.search(failed.stderr) is None
    assert sanitize(text)[:30] in failed.stderr
