"""The log file: warnings and up, sanitised, rotated, counted; stderr too for headless runs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from acp_tui.client import log_file
from acp_tui.client.log_file import LOG_NAME, LogFile

log = logging.getLogger("acp_tui.test")


def test_warnings_and_up_are_written_sanitised_and_counted(tmp_path: Path) -> None:
    with LogFile(tmp_path / "logs") as logs:
        log.info("not kept")
        log.warning("the agent sent \x1b]0;pwned\x07 as a method")
        log.error("and \u202eworse")
    text = (tmp_path / "logs" / LOG_NAME).read_text()
    assert "not kept" not in text
    assert "WARNING acp_tui.test: the agent sent ␛]0;pwned␇ as a method" in text
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert logs.warnings == 2
    assert logs.summary() == f"2 warnings logged this run: {tmp_path / 'logs' / LOG_NAME}"


def test_a_quiet_run_writes_nothing_and_says_nothing(tmp_path: Path) -> None:
    with LogFile(tmp_path / "logs") as logs:
        log.info("fine")
    assert not (tmp_path / "logs" / LOG_NAME).exists()
    assert logs.summary() is None


def test_the_file_is_moved_aside_once_it_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_file, "MAX_BYTES", 200)
    with LogFile(tmp_path) as _logs:
        for n in range(40):
            log.warning("line %d %s", n, "x" * 40)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [LOG_NAME, f"{LOG_NAME}.1", f"{LOG_NAME}.2", f"{LOG_NAME}.3"]
    assert "line 39" in (tmp_path / LOG_NAME).read_text()
    assert all((tmp_path / name).stat().st_size < 400 for name in names)


def test_a_headless_run_also_prints_them_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LogFile(tmp_path, to_stderr=True):
        log.warning("careful: \x1b[31mred")
    assert capsys.readouterr().err == "careful: ␛[31mred\n"
    assert "careful" in (tmp_path / LOG_NAME).read_text()


def test_a_directory_that_cannot_be_made_leaves_the_count(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with LogFile(blocker / "logs") as logs:
        log.warning("kept nowhere")
    assert logs.problem is not None
    assert logs.warnings == 1
    summary = logs.summary()
    assert summary is not None
    assert "nowhere" in summary


def test_the_agents_notices_are_kept_from_info_up_but_not_counted(tmp_path: Path) -> None:
    notices = logging.getLogger(log_file.NOTICE_LOGGER)
    with LogFile(tmp_path / "logs") as logs:
        notices.info("Indexing finished")
        notices.warning("Rate limit close")
    text = (tmp_path / "logs" / LOG_NAME).read_text()
    assert "INFO acp_tui.agent_notices: Indexing finished" in text
    assert "WARNING acp_tui.agent_notices: Rate limit close" in text
    assert logs.warnings == 0  # the client's own warnings only


def test_a_flood_from_one_logger_is_bounded_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    monkeypatch.setattr(log_file, "_clock", lambda: now[0])
    notices = logging.getLogger(log_file.NOTICE_LOGGER)
    with LogFile(tmp_path / "logs"):
        for n in range(1000):
            notices.info("notice %d", n)
        log.warning("another logger still gets through")
        now[0] += log_file.WINDOW
        notices.info("after the flood")
    lines = (tmp_path / "logs" / LOG_NAME).read_text().splitlines()
    flood = [line for line in lines if "acp_tui.agent_notices" in line]
    assert len(flood) == log_file.BURST + 1
    assert flood[log_file.BURST - 1].endswith(f"notice {log_file.BURST - 1}")
    assert flood[-1].endswith(
        f"(... {1000 - log_file.BURST:,} more records from acp_tui.agent_notices not logged:"
        " a flood) after the flood"
    )
    assert any(line.endswith("another logger still gets through") for line in lines)
