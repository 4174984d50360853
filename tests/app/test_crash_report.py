"""CrashReport: the exit status of an app that failed, and where the details of the failure go.

The whole path (a real ``acp-tui`` crashing in a terminal) is in
``tests/pty/test_crash_status.py``; these cover the cases around it.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from textual.app import App

from acp_tui.ui.crash import CrashReport

HOSTILE = "agent said \x1b]52;c;aGFja2Vk\x07 and \u202e"


def test_a_normal_exit_is_status_0_and_says_nothing(tmp_path: Path) -> None:
    report = CrashReport(tmp_path / "logs")
    report.console.print("not an error")
    err = io.StringIO()
    assert report.exit_status(None, err) == 0
    assert report.exit_status(0, err) == 0
    assert err.getvalue() == ""
    assert not (tmp_path / "logs").exists()


def test_the_details_go_to_a_file_sanitised_and_stderr_names_it(tmp_path: Path) -> None:
    report = CrashReport(tmp_path / "logs")
    report.console.print(f"Traceback...\nRuntimeError: {HOSTILE}")
    err = io.StringIO()
    assert report.exit_status(1, err) == 1
    (path,) = (tmp_path / "logs").iterdir()
    assert err.getvalue() == (
        f"acp-tui: stopped by an unexpected error (exit status 1); the details are in {path}\n"
    )
    details = path.read_text()
    assert "RuntimeError: agent said ␛]52;c;aGFja2Vk" in details
    assert "\x1b" not in details
    assert "\u202e" not in details


def test_details_that_cannot_be_saved_go_to_stderr_sanitised(tmp_path: Path) -> None:
    blocked = tmp_path / "logs"
    blocked.write_text("a file where the directory should be")
    report = CrashReport(blocked)
    report.console.print(f"RuntimeError: {HOSTILE}")
    err = io.StringIO()
    assert report.exit_status(1, err) == 1
    said = err.getvalue()
    assert said.startswith("acp-tui: stopped by an unexpected error (exit status 1); the details")
    assert "could not be saved" in said
    assert "RuntimeError: agent said ␛]52;c;aGFja2Vk" in said
    assert "\x1b" not in said


def test_no_details_is_said_too(tmp_path: Path) -> None:
    err = io.StringIO()
    assert CrashReport(tmp_path).exit_status(2, err) == 2
    assert err.getvalue() == (
        "acp-tui: stopped by an unexpected error (exit status 2); no details were recorded.\n"
    )


class Failing(App[None]):
    def on_mount(self) -> None:
        raise RuntimeError(HOSTILE)


async def test_textual_reports_a_fatal_error_through_the_report(tmp_path: Path) -> None:
    """The report stands in for Textual's error console: the traceback lands in it."""
    app = Failing()
    report = CrashReport(tmp_path)
    app.error_console = report.console
    with pytest.raises(RuntimeError):
        async with app.run_test():
            pass
    assert app.return_code == 1
    assert "RuntimeError" in report.details
    assert "agent said ␛]52;c;aGFja2Vk" in report.details
