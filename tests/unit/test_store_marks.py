"""SessionMarks: the sessions left unused and those titled "Fork of …" here, kept per agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store import marks as marks_module
from acp_tui.store.marks import MARKS_FILE, SessionMarks
from acp_tui.store.transcripts import TranscriptCache

AGENT = '["demo"]'


def test_marks_are_kept_per_agent_and_survive_a_restart(tmp_path: Path) -> None:
    cache = TranscriptCache(tmp_path)
    cache.set_unused(AGENT, "s-1", True)
    cache.set_unused(AGENT, "s-2", True)
    cache.set_unused(AGENT, "s-1", False)
    cache.set_local_title(AGENT, "f-1", "Fork of s-9", fork=True)
    again = TranscriptCache(tmp_path)
    assert again.unused_sessions(AGENT) == {"s-2"}
    assert again.unused_sessions('["other"]') == set()
    assert again.fork_titled(AGENT) == {"f-1"}
    again.set_local_title(AGENT, "f-1", "Mine")  # the user's title: no longer acp-tui's
    assert TranscriptCache(tmp_path).fork_titled(AGENT) == set()
    again.forget(AGENT, "s-2")
    assert TranscriptCache(tmp_path).unused_sessions(AGENT) == set()


def test_another_process_changes_are_kept(tmp_path: Path) -> None:
    mine, theirs = TranscriptCache(tmp_path), TranscriptCache(tmp_path)
    assert mine.unused_sessions(AGENT) == set()  # read before the other one writes
    theirs.set_unused(AGENT, "theirs", True)
    mine.set_unused(AGENT, "mine", True)
    assert TranscriptCache(tmp_path).unused_sessions(AGENT) == {"theirs", "mine"}


def test_a_broken_file_is_read_as_no_marks_and_the_newest_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / MARKS_FILE).write_text('{"unused": [1, "a", null, "a\\ud800"], "forkTitled": 3}')
    marks = SessionMarks(lambda _key: folder)
    assert marks.of(AGENT, "unused") == {"a", "a\ud800"}  # a lone surrogate round-trips
    assert marks.of(AGENT, "forkTitled") == set()
    (folder / MARKS_FILE).write_bytes(b"\xff not json")
    assert SessionMarks(lambda _key: folder).of(AGENT, "unused") == set()
    kept = 5
    monkeypatch.setattr(marks_module, "MARKS_KEPT", kept)
    for n in range(kept + 5):
        marks.set(AGENT, f"s-{n}", "unused", True)
    unused = SessionMarks(lambda _key: folder).of(AGENT, "unused")
    assert len(unused) == kept
    assert f"s-{kept + 4}" in unused
    assert "s-0" not in unused
