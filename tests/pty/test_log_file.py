"""The app's warnings reach the log file, and the end of the run says where (a real terminal:
in the app, stderr is behind the screen, so nothing else could show them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from acp_tui.client.log_file import LOG_NAME
from acp_tui.config.paths import Paths
from tests.terminal import Terminal, acp_tui_argv


def test_a_warning_in_the_app_is_logged_and_named_at_the_end(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    demo = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "d")]
    with Terminal(acp_tui_argv("--", *demo), project, cols=160) as term:
        term.wait_for(re.compile(r"·\s+ready"), timeout=60)
        term.type("malformed\r")  # the demo agent writes a line that is not JSON
        term.wait_for("a line that is not JSON to stdout")
        term.press("ctrl+q")
        assert term.wait(timeout=30) == 0
        log = acp_home.log_dir / LOG_NAME
        term.wait_for_output(f"1 warning logged this run: {log}".encode())
    assert "a line that is not JSON, skipped" in log.read_text()


def test_help_names_the_log_file(acp_home: Paths) -> None:
    result = subprocess.run(
        acp_tui_argv("--help"), capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0
    assert f"Warnings and errors are logged to {acp_home.log_dir / LOG_NAME}" in result.stdout
