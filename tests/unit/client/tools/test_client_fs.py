"""FileSystem: reads with line/limit, atomic writes, refusals that leave files untouched."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from acp_tui.client.tools import fs as fs_module
from acp_tui.client.tools.fs import FileSystem, select_lines
from acp_tui.client.tools.roots import PathRefused, RootSet
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    app = tmp_path.resolve() / "app"
    app.mkdir()
    (app / "five.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return app


@pytest.fixture
def fs(root: Path) -> FileSystem:
    return FileSystem(RootSet(str(root)))


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


async def test_read_whole(fs: FileSystem, root: Path) -> None:
    assert await fs.read_text_file(str(root / "five.txt")) == "one\ntwo\nthree\nfour\nfive\n"


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (1, 2, "one\ntwo\n"),
        (2, None, "two\nthree\nfour\nfive\n"),
        (None, 1, "one\n"),
        (5, 10, "five\n"),
        (6, None, ""),
        (100, 3, ""),
        (3, 0, ""),
    ],
    ids=["first-two", "from-2", "limit-only", "last", "just-past-end", "far-past-end", "limit-0"],
)
async def test_read_lines(
    fs: FileSystem, root: Path, line: int | None, limit: int | None, expected: str
) -> None:
    assert await fs.read_text_file(str(root / "five.txt"), line, limit) == expected


def test_select_lines_without_final_newline() -> None:
    assert select_lines("a\nb", 2, 1) == "b"
    assert select_lines("a\r\nb\n", 1, 1) == "a\r\n"
    assert select_lines("", 1, 5) == ""


@pytest.mark.parametrize(
    ("line", "limit"), [(0, None), (-1, 2), (1, -1), (True, None), ("2", None)]
)
async def test_read_bad_line_or_limit(
    fs: FileSystem, root: Path, line: object, limit: object
) -> None:
    with pytest.raises(RpcError) as info:
        await fs.read_text_file(str(root / "five.txt"), line, limit)  # type: ignore[arg-type]
    assert info.value.code == ErrorCode.INVALID_PARAMS


async def test_read_missing_file(fs: FileSystem, root: Path) -> None:
    path = str(root / "missing.txt")
    with pytest.raises(RpcError) as info:
        await fs.read_text_file(path)
    assert info.value.code == -32002
    assert info.value.data == {"uri": path}
    assert path in info.value.message


async def test_read_outside_refused(fs: FileSystem, root: Path) -> None:
    with pytest.raises(PathRefused):
        await fs.read_text_file(str(root.parent / "outside.txt"))
    with pytest.raises(PathRefused):
        await fs.read_text_file(str(root / ".." / "outside.txt"))


async def test_read_non_utf8_is_clear(fs: FileSystem, root: Path) -> None:
    path = root / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    with pytest.raises(RpcError, match=r"not UTF-8 text \(invalid byte at offset 3\)") as info:
        await fs.read_text_file(str(path))
    assert str(path) in info.value.message


async def test_read_too_large(fs: FileSystem, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fs_module, "MAX_READ_BYTES", 10)
    (root / "big.txt").write_text("x" * 11)
    with pytest.raises(RpcError, match="too large"):
        await fs.read_text_file(str(root / "big.txt"))


async def test_read_multibyte(fs: FileSystem, root: Path) -> None:
    (root / "u.txt").write_text("é\n✓\n𝄞\n", encoding="utf-8")
    assert await fs.read_text_file(str(root / "u.txt"), 2, 2) == "✓\n𝄞\n"


async def test_write_creates_new_file(fs: FileSystem, root: Path) -> None:
    await fs.write_text_file(str(root / "new.txt"), "hello ✓\n")
    assert (root / "new.txt").read_text(encoding="utf-8") == "hello ✓\n"
    assert listing(root) == ["five.txt", "new.txt"]


async def test_write_new_file_respects_umask(fs: FileSystem, root: Path) -> None:
    old = os.umask(0o027)
    try:
        await fs.write_text_file(str(root / "masked.txt"), "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "masked.txt").stat().st_mode) == 0o640


async def test_write_replaces_atomically_and_keeps_mode(fs: FileSystem, root: Path) -> None:
    target = root / "five.txt"
    target.chmod(0o751)
    before = target.stat().st_ino
    await fs.write_text_file(str(target), "replaced")
    assert target.read_text() == "replaced"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert target.stat().st_ino != before  # a new file was renamed over it
    assert listing(root) == ["five.txt"]  # no temp file left behind


async def test_write_drops_setuid_bits(fs: FileSystem, root: Path) -> None:
    target = root / "five.txt"
    target.chmod(0o4755)
    await fs.write_text_file(str(target), "x")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


async def test_write_through_internal_symlink_keeps_the_link(fs: FileSystem, root: Path) -> None:
    (root / "alias.txt").symlink_to(root / "five.txt")
    await fs.write_text_file(str(root / "alias.txt"), "via link")
    assert (root / "alias.txt").is_symlink()
    assert (root / "five.txt").read_text() == "via link"


async def test_write_into_new_subdirectories(fs: FileSystem, root: Path) -> None:
    await fs.write_text_file(str(root / "a" / "b" / "c.txt"), "deep")
    assert (root / "a" / "b" / "c.txt").read_text() == "deep"


async def test_write_does_not_break_a_hard_link_to_outside(fs: FileSystem, root: Path) -> None:
    outside = root.parent / "outside.txt"
    os.link(outside, root / "hard.txt")
    await fs.write_text_file(str(root / "hard.txt"), "new")
    assert outside.read_text() == "secret\n"
    assert (root / "hard.txt").read_text() == "new"


@pytest.mark.parametrize(
    "make",
    [
        lambda root: str(root.parent / "outside.txt"),
        lambda root: f"{root}/../outside.txt",
        lambda root: str(_link(root / "out.txt", root.parent / "outside.txt")),
        lambda root: f"{_link(root / 'up', root.parent)}/outside.txt",
        lambda root: f"{root}/new/../../outside.txt",
        lambda root: "outside.txt",
    ],
    ids=["absolute", "dotdot", "symlink", "dir-symlink", "dotdot-after-missing", "relative"],
)
async def test_refused_write_leaves_target_untouched(
    fs: FileSystem, root: Path, make: object
) -> None:
    path = make(root)  # type: ignore[operator]
    with pytest.raises(PathRefused):
        await fs.write_text_file(path, "pwned")
    assert (root.parent / "outside.txt").read_text() == "secret\n"
    assert sorted(p.name for p in root.parent.iterdir()) == ["app", "outside.txt"]


def _link(at: Path, to: Path) -> Path:
    at.symlink_to(to)
    return at


async def test_write_refused_does_not_create_directories(fs: FileSystem, root: Path) -> None:
    _link(root / "up", root.parent)
    with pytest.raises(PathRefused):
        await fs.write_text_file(f"{root}/up/made/x.txt", "x")
    assert not (root.parent / "made").exists()


async def test_write_error_leaves_target_and_no_temp(
    fs: FileSystem, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(RpcError, match="No space left on device") as info:
        await fs.write_text_file(str(root / "five.txt"), "partial")
    assert info.value.code == ErrorCode.INTERNAL_ERROR
    assert str(root / "five.txt") in info.value.message
    assert (root / "five.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"
    assert listing(root) == ["five.txt"]


async def test_write_to_directory_refused(fs: FileSystem, root: Path) -> None:
    (root / "d").mkdir()
    with pytest.raises(PathRefused, match="directory"):
        await fs.write_text_file(str(root / "d"), "x")
    assert (root / "d").is_dir()


async def test_write_unencodable_content(fs: FileSystem, root: Path) -> None:
    with pytest.raises(RpcError) as info:
        await fs.write_text_file(str(root / "s.txt"), "bad \ud800")
    assert info.value.code == ErrorCode.INVALID_PARAMS
    assert not (root / "s.txt").exists()


async def test_symlink_swapped_in_after_check_is_not_followed(
    fs: FileSystem, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race the O_NOFOLLOW walk closes: a directory becomes a link to outside after check."""
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_text("inside")
    real_check = fs.roots.check

    def check_then_swap(path: object, *, for_write: bool = False) -> Path:
        result = real_check(path, for_write=for_write)
        (root / "d" / "f.txt").unlink()
        (root / "d").rmdir()
        (root / "d").symlink_to(root.parent)
        (root.parent / "f.txt").write_text("secret")
        return result

    monkeypatch.setattr(fs.roots, "check", check_then_swap)
    with pytest.raises(PathRefused, match="symbolic link"):
        await fs.read_text_file(str(root / "d" / "f.txt"))
