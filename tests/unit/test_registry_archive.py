"""Unpacking agent archives: the formats the registry uses, and every refusal."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from acp_tui.registry.archive import (
    ArchiveError,
    archive_format,
    extract_archive,
    resolve_command,
)
from tests.registry_helpers import AGENT_SCRIPT, tar_gz, tar_with, zip_of


def unpack(tmp_path: Path, data: bytes, fmt: str, cmd: str = "./agent") -> Path:
    archive = tmp_path / "archive"
    archive.write_bytes(data)
    dest = tmp_path / "out"
    dest.mkdir()
    extract_archive(archive, fmt, dest, cmd)
    return dest


@pytest.mark.parametrize(
    ("url", "fmt"),
    [
        ("https://x/a/opencode-linux-x64.tar.gz", ".tar.gz"),
        ("https://x/a.TGZ", ".tgz"),
        ("https://x/a.tar.xz?download=1", ".tar.xz"),
        ("https://x/goose.tar.bz2", ".tar.bz2"),
        ("https://x/a.tar", ".tar"),
        ("https://x/vibe-acp-2.0.2.zip", ".zip"),
        ("https://x/cagent-linux-amd64", ""),
        ("https://x/cagent-windows-amd64.exe", ""),
    ],
)
def test_the_format_comes_from_the_url(url: str, fmt: str) -> None:
    assert archive_format(url) == fmt


@pytest.mark.parametrize("url", ["https://x/Kiro%20CLI.dmg", "https://x/a.7z", "https://x/a.gz"])
def test_formats_acp_tui_cannot_unpack_are_refused(url: str) -> None:
    with pytest.raises(ArchiveError, match="not supported"):
        archive_format(url)


@pytest.mark.parametrize("fmt", ["gz", "xz", "bz2"])
def test_tarballs_unpack_with_their_modes(tmp_path: Path, fmt: str) -> None:
    data = tar_gz({"bin/agent": AGENT_SCRIPT, "share/doc.txt": b"doc"}, fmt=fmt)
    dest = unpack(tmp_path, data, f".tar.{fmt}")
    program = resolve_command(dest, "./bin/agent")
    assert program == dest / "bin" / "agent"
    assert program.read_bytes() == AGENT_SCRIPT
    assert os.access(program, os.X_OK)


def test_a_zip_unpacks_and_its_command_is_made_executable(tmp_path: Path) -> None:
    dest = unpack(tmp_path, zip_of({"agent": AGENT_SCRIPT}, mode=0o644), ".zip")
    assert not os.access(dest / "agent", os.X_OK)
    program = resolve_command(dest, "./agent")
    assert os.access(program, os.X_OK)


def test_a_bare_binary_is_saved_as_the_command(tmp_path: Path) -> None:
    dest = unpack(tmp_path, AGENT_SCRIPT, "", cmd="./cagent")
    assert resolve_command(dest, "./cagent").read_bytes() == AGENT_SCRIPT
    assert os.access(dest / "cagent", os.X_OK)


def member(name: str, kind: bytes = tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.mode = 0o755
    return info


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ([member("/etc/cron.d/evil")], "absolute or goes up"),
        ([member("ok"), member("../evil")], "absolute or goes up"),
        ([member("a/../../evil")], "absolute or goes up"),
        ([member("link", tarfile.SYMTYPE, "/etc/passwd")], "points outside"),
        ([member("link", tarfile.SYMTYPE, "../../.ssh")], "points outside"),
        ([member("dot", tarfile.SYMTYPE, "."), member("up", tarfile.SYMTYPE, "dot/..")], "outside"),
        ([member("hard", tarfile.LNKTYPE, "../outside")], "absolute or goes up"),
        ([member("hard", tarfile.LNKTYPE, "/etc/shadow")], "absolute or goes up"),
        ([member("dev", tarfile.CHRTYPE)], "device or special file"),
        ([member("fifo", tarfile.FIFOTYPE)], "device or special file"),
    ],
)
def test_a_bad_tar_member_refuses_the_whole_archive(
    tmp_path: Path, members: list[tarfile.TarInfo], message: str
) -> None:
    data = tar_with([member("agent"), *members], {"agent": AGENT_SCRIPT, "ok": b"ok"})
    with pytest.raises(ArchiveError, match=message):
        unpack(tmp_path, data, ".tar.gz")
    assert list((tmp_path / "out").iterdir()) == []  # nothing was written, not even "agent"
    assert not (tmp_path / "evil").exists()


def test_links_that_stay_inside_are_kept(tmp_path: Path) -> None:
    data = tar_with(
        [member("bin/real-agent"), member("bin/agent", tarfile.SYMTYPE, "real-agent")],
        {"bin/real-agent": AGENT_SCRIPT},
    )
    dest = unpack(tmp_path, data, ".tar.gz")
    assert (dest / "bin" / "agent").is_symlink()
    assert resolve_command(dest, "./bin/agent").read_bytes() == AGENT_SCRIPT


@pytest.mark.parametrize("name", ["../evil", "/abs/evil", "a/../../evil", "..\\evil", "C:/evil"])
def test_a_bad_zip_member_refuses_the_whole_archive(tmp_path: Path, name: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("agent", AGENT_SCRIPT)
        zipped.writestr(zipfile.ZipInfo(name), b"owned")
    with pytest.raises(ArchiveError, match="absolute or goes up"):
        unpack(tmp_path, buffer.getvalue(), ".zip")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_zip_symlink_pointing_outside_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        info = zipfile.ZipInfo("agent")
        info.create_system = 3
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zipped.writestr(info, "/usr/bin/env")
    with pytest.raises(ArchiveError, match="points outside"):
        unpack(tmp_path, buffer.getvalue(), ".zip")


@pytest.mark.parametrize(
    ("data", "fmt"), [(b"PK\x03\x04 not really", ".zip"), (b"junk", ".tar.gz"), (b"", ".tar.xz")]
)
def test_a_corrupt_archive_is_an_archive_error(tmp_path: Path, data: bytes, fmt: str) -> None:
    with pytest.raises(ArchiveError, match="cannot unpack"):
        unpack(tmp_path, data, fmt)


@pytest.mark.parametrize("cmd", ["../agent", "/bin/sh", "bin/../../agent"])
def test_the_command_must_be_inside(tmp_path: Path, cmd: str) -> None:
    dest = unpack(tmp_path, tar_gz({"agent": AGENT_SCRIPT}), ".tar.gz")
    with pytest.raises(ArchiveError, match="absolute or goes up"):
        resolve_command(dest, cmd)


def test_a_missing_command_is_named(tmp_path: Path) -> None:
    dest = unpack(tmp_path, tar_gz({"other": AGENT_SCRIPT}), ".tar.gz")
    with pytest.raises(ArchiveError, match=r"has no '\./agent'"):
        resolve_command(dest, "./agent")
