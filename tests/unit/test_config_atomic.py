"""atomic_write: a file is replaced whole or left as it was, and no temporary file stays."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from acp_tui.config.atomic import atomic_write, write_atomic


def names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_a_new_file_is_written_and_private(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    write_atomic(path, b"one\n")
    assert path.read_bytes() == b"one\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert names(tmp_path) == ["data.json"]


def test_a_failure_while_writing_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(b"old")

    def write_half() -> None:
        with atomic_write(path) as handle:
            handle.write(b"half of the new")
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_half()
    assert path.read_bytes() == b"old"
    assert names(tmp_path) == ["data.json"]


@pytest.mark.parametrize(("keep_mode", "mode"), [(True, 0o644), (False, 0o600)])
def test_keep_mode_keeps_the_permissions_of_the_file_replaced(
    tmp_path: Path, keep_mode: bool, mode: int
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"old")
    path.chmod(0o644)
    write_atomic(path, b"new", keep_mode=keep_mode)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_missing_directory_is_an_error_not_a_directory_made(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "nowhere" / "data.json", b"x")
    assert names(tmp_path) == []
