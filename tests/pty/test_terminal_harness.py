"""The pseudo-terminal harness itself (`tests.terminal`): what a test reads after a command's
exit is all it wrote, however late the reader runs."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.terminal import Terminal

LAST_WORDS = "not started: the last words before the exit"


class LateReader(Terminal):
    """A terminal whose reader runs only a while after the command has exited, as on a loaded
    machine that did not run it meanwhile."""

    def _read(self) -> None:
        self.process.wait()
        time.sleep(0.3)  # the behaviour under test: the reader comes late, after the exit
        super()._read()


def test_the_output_written_before_the_exit_is_read_once_wait_returns(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", f"print({LAST_WORDS!r})"]
    with LateReader(argv, tmp_path) as term:
        assert term.wait() == 0
        assert LAST_WORDS in term.text()
        assert LAST_WORDS.encode() in bytes(term.output)
