"""An unexpected error ends acp-tui with a non-zero status, and says where its details are.

Textual ends the app on an uncaught exception (``return_code`` 1), but ``acp-tui`` used to exit
with 0 all the same: a crash looked like a normal quit to a shell or a script. This runs the real
command in a real terminal with one bug put in on purpose (the F12 action raises, its message
holding an escape sequence as an agent's text could) and checks the status, the line on stderr,
the file it names, and that the error's text never reaches the terminal raw.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from acp_tui.client.log_file import LOG_NAME
from acp_tui.config.paths import Paths
from tests.terminal import Terminal

BUG = "a bug put in on purpose \x1b]0;pwned\x07"

CRASHING = f"""
import sys
from acp_tui.ui.app import AcpApp

def crash(self):
    raise RuntimeError({BUG!r})

AcpApp.action_wire_inspector = crash
from acp_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""
"""``acp-tui`` with its F12 action broken."""


def test_an_uncaught_error_exits_non_zero_and_names_the_file_with_its_details(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    agent = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "d")]
    argv = [sys.executable, "-c", CRASHING, "--", *agent]
    with Terminal(argv, project, cols=160) as term:
        term.wait_for(re.compile(r"·\s+ready"), timeout=60)
        term.press("f12")
        assert term.wait(timeout=30) == 1
        output = bytes(term.output)
    said = re.search(rb"acp-tui: [^\r\n]*unexpected error[^\r\n]*details are in ([^\r\n]+)", output)
    assert said is not None, output[-2000:]
    report = Path(said.group(1).decode())
    assert report.parent == acp_home.log_dir
    details = report.read_text()
    assert f"acp-tui: the log of this run is {acp_home.log_dir / LOG_NAME}".encode() in output
    assert "RuntimeError" in details
    assert "a bug put in on purpose ␛]0;pwned" in details  # kept, its controls made visible
    # Neither the report nor anything else wrote the error's escape to the terminal.
    assert b"on purpose \x1b" not in output
    assert b"\x1b]0;" not in output
