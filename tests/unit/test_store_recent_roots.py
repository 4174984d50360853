"""Recent roots: per project, most recent first, capped, atomic, never fatal on a bad file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from acp_tui.config.paths import Paths
from acp_tui.store.recent_roots import RecentRoots, recent_roots_file, recent_roots_for_project

A, B, C, D = (Path(f"/roots/{name}") for name in "abcd")


def test_recorded_roots_come_back_most_recent_first(tmp_path: Path) -> None:
    recent = RecentRoots(tmp_path / "r.json")
    assert recent.load() == []
    assert recent.record([A, B]) == [A, B]
    assert recent.record([C]) == [C, A, B]
    assert recent.record([B]) == [B, C, A]  # used again: moved to the front, not repeated
    assert RecentRoots(tmp_path / "r.json").load() == [B, C, A]


def test_the_list_is_capped(tmp_path: Path) -> None:
    recent = RecentRoots(tmp_path / "r.json", limit=3)
    recent.record([A])
    recent.record([B])
    recent.record([C, D])
    assert recent.load() == [C, D, B]
    assert RecentRoots(tmp_path / "r.json", limit=2).load() == [C, D]
    with pytest.raises(ValueError, match="at least 1"):
        RecentRoots(tmp_path / "r.json", limit=0)


def test_relative_paths_are_not_recorded(tmp_path: Path) -> None:
    recent = RecentRoots(tmp_path / "r.json")
    assert recent.record([Path("rel"), A]) == [A]


def test_forget(tmp_path: Path) -> None:
    recent = RecentRoots(tmp_path / "r.json")
    recent.record([A, B, C])
    assert recent.forget(B) == [A, C]
    assert recent.load() == [A, C]


def test_roots_are_kept_per_project(tmp_path: Path, acp_home: Paths) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    recent_roots_for_project(one, acp_home).record([A])
    recent_roots_for_project(two, acp_home).record([B])
    assert recent_roots_for_project(one, acp_home).load() == [A]
    assert recent_roots_for_project(two).load() == [B]  # default paths: ACP_TUI_HOME
    path = recent_roots_file(one, acp_home)
    assert path.parent == acp_home.data_dir / "roots"
    assert path.suffix == ".json"
    assert path != recent_roots_file(two, acp_home)


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"roots": "nope"}',
        b"[" * 100_000,
    ],
)
def test_a_corrupt_file_is_ignored_and_then_replaced(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    recent = RecentRoots(path)
    with caplog.at_level(logging.WARNING):
        assert recent.load() == []
    assert "recent roots" in caplog.text
    assert recent.record([A]) == [A]
    assert RecentRoots(path).load() == [A]


def test_bad_entries_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"version": 1, "roots": ["/a", 3, null, "rel", "", "/a", "/b"]}')
    assert RecentRoots(path).load() == [Path("/a"), Path("/b")]


def test_an_unwritable_place_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    recent = RecentRoots(blocker / "r.json")  # its directory cannot be created
    with caplog.at_level(logging.WARNING):
        assert recent.record([A]) == [A]
        assert recent.forget(A) == []
    assert "could not save" in caplog.text
    assert recent.load() == []


def test_writes_leave_no_temporary_file(tmp_path: Path) -> None:
    recent = RecentRoots(tmp_path / "r.json")
    for root in (A, B, C):
        recent.record([root])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
