"""The live turn indicator, in a real terminal: while a turn runs, the status line counts its
seconds and says which key stops it; the turn over, it says "ready" again."""

from __future__ import annotations

import re
from pathlib import Path

from tests.pty.chat import start

HANGING = "I will hang until you cancel this turn."


def status(text: str) -> str:
    return text.splitlines()[0]


def test_a_running_turn_shows_its_time_and_esc_to_interrupt(tmp_path: Path) -> None:
    with start(tmp_path) as term:
        term.type("hang\r")
        term.wait_for(HANGING)
        ticking = re.compile(r"working… · [1-9]\d*s · .*esc to interrupt")
        term.wait_for(lambda text: ticking.search(status(text)) is not None)
        term.press("escape")
        screen = term.wait_for(lambda text: "ready" in status(text))
        assert "esc to interrupt" not in status(screen)
        term.press("ctrl+q")
        assert term.wait() == 0
