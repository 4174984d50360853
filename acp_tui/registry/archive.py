"""Provides extract_archive: a downloaded agent archive unpacked safely into a new directory.

The archive comes from a URL in an untrusted registry entry, so every member is checked before
anything is written, and one bad member refuses the whole archive: absolute names, `..`
components, links whose target is absolute or climbs with `..`, device files and FIFOs, and
archives too large or with too many members. Tar members are then written with the standard
library's `data` filter as a second line of defence (it also drops set-uid bits). Formats: .zip,
.tar.gz/.tgz, .tar.xz, .tar.bz2, .tar, and a bare executable (a URL with no archive suffix,
as some registry entries publish).
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

__all__ = [
    "ArchiveError",
    "archive_format",
    "extract_archive",
    "resolve_command",
    "safe_relative",
]

MAX_MEMBERS = 100_000
MAX_UNPACKED_BYTES = 4 * 1024 * 1024 * 1024

_TAR_MODES = {".tar.gz": "r:gz", ".tgz": "r:gz", ".tar.xz": "r:xz", ".tar.bz2": "r:bz2"}
_TAR_MODES[".tar"] = "r:"
_UNSUPPORTED = (".dmg", ".pkg", ".msi", ".deb", ".rpm", ".7z", ".rar", ".gz", ".xz", ".bz2")


class ArchiveError(Exception):
    """The archive is refused or cannot be read; nothing of it is kept."""


def archive_format(url: str) -> str:
    """The archive's format from its URL: a suffix from the list above, or "" for a bare file."""
    name = PurePosixPath(unquote(urlsplit(url).path)).name.lower()
    for suffix in (".zip", *_TAR_MODES):
        if name.endswith(suffix):
            return suffix
    for suffix in (*_UNSUPPORTED, ".exe"):
        if name.endswith(suffix):
            if suffix == ".exe":
                return ""
            raise ArchiveError(f"cannot unpack {name!r}: {suffix} files are not supported")
    return ""


def extract_archive(archive: Path, fmt: str, dest: Path, cmd: str) -> None:
    """Unpack `archive` (of format `fmt`, see archive_format) into the existing empty `dest`.

    A bare file is copied to `dest / cmd` and made executable. Raises ArchiveError when the
    archive is refused or unreadable; the caller then removes `dest`.
    """
    try:
        if fmt == ".zip":
            _unzip(archive, dest)
        elif fmt in _TAR_MODES:
            _untar(archive, _TAR_MODES[fmt], dest)
        else:
            target = dest / safe_relative(cmd, "the command")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(archive, target)
            target.chmod(0o755)
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise ArchiveError(f"cannot unpack the archive: {exc}") from None


def resolve_command(dest: Path, cmd: str) -> Path:
    """The program `cmd` (e.g. ``./agent``) inside `dest`, checked and made executable."""
    path = dest / safe_relative(cmd, "the command")
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise ArchiveError(f"the archive has no {cmd!r}") from None
    if not real.is_relative_to(dest.resolve()):
        raise ArchiveError(f"{cmd!r} points outside the archive")
    if not real.is_file():
        raise ArchiveError(f"{cmd!r} in the archive is not a file")
    mode = real.stat().st_mode
    if not mode & stat.S_IXUSR:
        real.chmod(stat.S_IMODE(mode) | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def safe_relative(name: str, what: str) -> PurePosixPath:
    """`name` as a relative path that stays inside; ArchiveError for absolute or `..` names."""
    cleaned = name.replace("\\", "/")
    path = PurePosixPath(cleaned)
    if (
        not cleaned
        or path.is_absolute()
        or (len(cleaned) > 1 and cleaned[1] == ":")  # a Windows drive
        or ".." in path.parts
        or "\x00" in cleaned
    ):
        raise ArchiveError(f"refused: {what} {name[:100]!r} is absolute or goes up with '..'")
    return path


def _check_link(member: str, target: str) -> None:
    """A link must point down from where it is: relative, without `..`."""
    safe_relative(member, "the member")
    if not target or target.startswith(("/", "\\")) or ".." in target.replace("\\", "/").split("/"):
        raise ArchiveError(f"refused: the link {member[:100]!r} points outside ({target[:100]!r})")


def _check_size(count: int, total: int) -> None:
    if count > MAX_MEMBERS:
        raise ArchiveError(f"refused: more than {MAX_MEMBERS} members")
    if total > MAX_UNPACKED_BYTES:
        raise ArchiveError(f"refused: it would unpack to more than {MAX_UNPACKED_BYTES} bytes")


def _untar(archive: Path, mode: str, dest: Path) -> None:
    with tarfile.open(archive, mode) as tar:  # type: ignore[call-overload]
        members = tar.getmembers()
        _check_size(len(members), sum(m.size for m in members if m.isfile()))
        for member in members:
            safe_relative(member.name, "the member")
            if member.issym():
                _check_link(member.name, member.linkname)
            elif member.islnk():
                safe_relative(member.linkname, f"the hard link {member.name!r} to")
            elif not (member.isfile() or member.isdir()):
                raise ArchiveError(f"refused: {member.name[:100]!r} is a device or special file")
        tar.extractall(dest, filter="data")


def _unzip(archive: Path, dest: Path) -> None:
    with zipfile.ZipFile(archive) as zipped:
        infos = zipped.infolist()
        _check_size(len(infos), sum(info.file_size for info in infos))
        links: list[tuple[zipfile.ZipInfo, str]] = []
        for info in infos:
            safe_relative(info.filename, "the member")
            kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
            if kind == stat.S_IFLNK:
                target = zipped.read(info).decode("utf-8", "replace")
                _check_link(info.filename, target)
                links.append((info, target))
            elif kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveError(f"refused: {info.filename[:100]!r} is a special file")
        for info in infos:
            if any(info is link for link, _ in links):
                continue
            path = Path(zipped.extract(info, dest))
            mode = (info.external_attr >> 16) & 0o777 if info.create_system == 3 else 0
            if mode and path.is_file():
                path.chmod(mode | stat.S_IRUSR | stat.S_IWUSR)
        for info, target in links:
            path = dest / safe_relative(info.filename, "the member")
            path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, path)
