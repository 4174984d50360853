"""The prompt history: per project, bounded, crash-safe, never fatal on a bad file."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from acp_tui.config.paths import Paths
from acp_tui.store.history import (
    HistoryBrowser,
    PromptHistory,
    history_file,
    history_for_project,
)


def test_history_persists_and_reloads_per_project(tmp_path: Path, acp_home: Paths) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    history = history_for_project(one, acp_home)
    history.append("first")
    history.append("second\nwith two lines")
    history_for_project(two, acp_home).append("elsewhere")

    assert history_for_project(one, acp_home).entries() == ["first", "second\nwith two lines"]
    assert history_for_project(two, acp_home).entries() == ["elsewhere"]
    path = history_file(one, acp_home)
    assert path.parent == acp_home.data_dir / "history"
    assert path.suffix == ".jsonl"
    assert path != history_file(two, acp_home)


def test_blank_prompts_and_repeats_of_the_last_are_skipped(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "h.jsonl")
    assert history.append("hello")
    assert not history.append("hello")
    assert not history.append("   \n ")
    assert not history.append("")
    assert history.append("other")
    assert history.append("hello")  # only a repeat of the *last* entry is dropped
    assert PromptHistory(tmp_path / "h.jsonl").entries() == ["hello", "other", "hello"]


def test_history_is_trimmed_to_its_limit_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    history = PromptHistory(path, limit=3)
    for i in range(7):
        history.append(f"prompt {i}")
    assert history.entries() == ["prompt 4", "prompt 5", "prompt 6"]
    assert len(path.read_bytes().splitlines()) == 3
    assert PromptHistory(path, limit=3).entries() == ["prompt 4", "prompt 5", "prompt 6"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]  # no temporary file left


def test_a_longer_file_is_trimmed_on_load(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps({"text": f"p{i}"}) + "\n" for i in range(10)))
    history = PromptHistory(path, limit=4)
    assert history.entries() == ["p6", "p7", "p8", "p9"]
    history.append("new")
    assert PromptHistory(path, limit=4).entries() == ["p7", "p8", "p9", "new"]


def test_a_torn_last_line_is_skipped_and_the_next_append_survives(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'{"text": "kept"}\n{"text": "torn')
    history = PromptHistory(path)
    assert history.entries() == ["kept"]
    history.append("after the crash")
    assert PromptHistory(path).entries() == ["kept", "after the crash"]


def test_a_corrupt_file_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'\xff\xfe garbage\n[[[[\n42\n{"text": 7}\n' + b"[" * 100_000 + b"\n")
    with caplog.at_level(logging.WARNING):
        history = PromptHistory(path)
        assert history.entries() == []
    assert "skipped" in caplog.text
    history.append("works again")
    assert PromptHistory(path).entries() == ["works again"]


def test_an_unreadable_history_starts_empty_and_appending_does_not_raise(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.mkdir()  # a directory where the file should be: reading and writing both fail
    history = PromptHistory(path)
    assert history.entries() == []
    assert history.append("kept in memory")
    assert history.entries() == ["kept in memory"]


def test_browser_walks_back_and_forth_and_restores_the_draft() -> None:
    entries = ["one", "two", "three"]
    browser = HistoryBrowser()
    assert browser.newer(entries) is None  # nothing newer than the draft
    assert browser.older(entries, "my draft") == "three"
    assert browser.older(entries, "three") == "two"
    assert browser.older(entries, "two") == "one"
    assert browser.older(entries, "one") is None  # the oldest: stay
    assert browser.newer(entries) == "two"
    assert browser.newer(entries) == "three"
    assert browser.newer(entries) == "my draft"
    assert not browser.browsing
    assert HistoryBrowser().older([], "draft") is None


def test_browser_editing_a_recalled_entry_makes_it_the_draft() -> None:
    entries = ["one", "two"]
    browser = HistoryBrowser()
    assert browser.older(entries, "") == "two"
    browser.edited("two")  # the recalled text itself: still browsing
    assert browser.browsing
    browser.edited("two, edited")
    assert not browser.browsing
    assert browser.older(entries, "two, edited") == "two"
    assert browser.newer(entries) == "two, edited"
