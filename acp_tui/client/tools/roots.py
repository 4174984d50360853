"""Provides RootSet: the session's allowed directories and the path check behind fs and terminals.

A session's roots are ``[cwd, *additionalDirectories]``. An agent's path is allowed only when its
real path (symbolic links followed) is a root's real path or lies under it, compared component by
component. Everything else is refused with a JSON-RPC error naming the path, and so is anything
that cannot be decided (loops, dangling links, over-long names, I/O errors): the check fails
closed.

Limits (by design, documented for the reader and the user):

* Time of check to time of use: ``check`` resolves the path, the caller opens it later. Between
  the two, whoever else can write inside a root (the agent itself, when it runs locally) could swap
  a directory for a symbolic link. So the checked real path is opened component by component with
  ``O_NOFOLLOW`` (``open_real_directory``): a link appearing after the check is refused.
  ``acp_tui.client.tools.fs`` reads and writes through that descriptor; a terminal starts in the
  directory ``open_directory`` opened (through ``/proc``, see
  ``acp_tui.client.tools.terminal_spawn``). What stays possible is moving an already opened
  directory out of the roots (``rename``), for which the mover needs write access to both places.
* Hard links: a hard link inside a root to a file outside is the same file; it cannot be told
  apart and is allowed for reading. Writes replace the directory entry (temp file then rename), so
  they never modify the outside file through a hard link.
* Bind mounts and other mount tricks made after a root was pinned are not detected.
* Roots are pinned: each root's real path is taken when the set is built. A root that does not
  resolve to an existing directory then, or no longer resolves to the same real path later
  (removed, or replaced by a symbolic link to elsewhere), contains nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

# Linux's PATH_MAX (including the terminating NUL); longer paths are refused up front.
PATH_MAX = 4096

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def show_path(path: object, limit: int = 200) -> str:
    """A printable, bounded rendering of an agent-supplied path (control characters escaped)."""
    if isinstance(path, str) and len(path) > limit:
        return repr(path[: limit // 2] + "…" + path[-(limit // 3) :]) + f" ({len(path)} chars)"
    return repr(path)


class PathRefused(RpcError):
    """The agent may not use this path; the message names the path and the reason."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(
            ErrorCode.INVALID_PARAMS,
            f"Access to {show_path(path)} refused: {reason}",
            {"path": path if isinstance(path, str) else repr(path), "reason": reason},
        )
        self.path = path
        self.reason = reason


class PathNotFound(RpcError):
    """The path is inside the roots but does not exist (answered with -32002 and its uri)."""

    def __init__(self, path: str) -> None:
        super().__init__(
            ErrorCode.RESOURCE_NOT_FOUND, f"File not found: {show_path(path)}", {"uri": path}
        )
        self.path = path


@dataclass(frozen=True, slots=True)
class Resolved:
    """A checked path: its real path and the real path of the root that contains it."""

    path: Path
    root: Path


@dataclass(frozen=True, slots=True)
class _Root:
    given: str
    real: Path | None  # pinned when the set was built; None: it contains nothing


def _validate_root(root: object) -> str:
    if not isinstance(root, str) or not root:
        raise ValueError(f"a root must be a non-empty string, not {root!r}")
    if "\x00" in root:
        raise ValueError(f"a root must not contain a NUL byte: {root!r}")
    if not root.startswith("/"):
        raise ValueError(f"a root must be an absolute path: {root!r}")
    return root


def _pin(root: str) -> Path | None:
    try:
        real = os.path.realpath(root, strict=True)
        return Path(real) if os.path.isdir(real) else None
    except (OSError, ValueError):
        return None


def open_real_directory(real: Path, create_below: Path | None = None) -> int:
    """Open the directory at a resolved path without following any symbolic link.

    Each component is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so a link
    swapped in after the path was checked fails (ELOOP or ENOTDIR) instead of being followed.
    Missing directories strictly below ``create_below`` are created (only there: never a root
    itself nor anything above it).
    """
    fd = os.open("/", _DIR_FLAGS)
    try:
        current = Path("/")
        for name in real.parts[1:]:
            current = current / name
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if create_below is None or create_below not in current.parents:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def descriptor_path(fd: int) -> str | None:
    """Where an open directory is now (Linux ``/proc``), or None when that cannot be told."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


class RootSet:
    """The ordered roots of a session and the checks of agent-supplied paths against them."""

    def __init__(self, cwd: str, additional_directories: Iterable[str] = ()) -> None:
        given: list[str] = []
        for root in (cwd, *additional_directories):
            if _validate_root(root) not in given:
                given.append(root)
        self._roots = tuple(_Root(root, _pin(root)) for root in given)

    @property
    def cwd(self) -> str:
        return self._roots[0].given

    @property
    def roots(self) -> tuple[str, ...]:
        """The roots as given (cwd first), without exact duplicates."""
        return tuple(root.given for root in self._roots)

    def __iter__(self) -> Iterator[str]:
        return iter(self.roots)

    def __len__(self) -> int:
        return len(self._roots)

    def __repr__(self) -> str:
        return f"RootSet({list(self.roots)!r})"

    def live_roots(self) -> list[Path]:
        """Real paths of the roots that still resolve to their pinned real path."""
        live: list[Path] = []
        for root in self._roots:
            if root.real is None:
                continue
            try:
                if Path(os.path.realpath(root.given, strict=True)) == root.real and os.path.isdir(
                    root.real
                ):
                    live.append(root.real)
            except (OSError, ValueError):
                continue
        return live

    def _containing(self, real: Path) -> Path | None:
        for root in self.live_roots():
            if real == root or root in real.parents:
                return root
        return None

    def check(self, path: object, *, for_write: bool = False) -> Path:
        """Return the real path of a regular file the agent may read (or write), else raise.

        Raises PathRefused (-32602) and, for a read of a missing file inside the roots,
        PathNotFound (-32002).
        """
        return self.locate(path, for_write=for_write).path

    def locate(self, path: object, *, for_write: bool = False) -> Resolved:
        """Like ``check``, also returning the root that contains the path."""
        resolved = self.resolve(path, for_write=for_write)
        try:
            st = os.stat(resolved.path)
        except FileNotFoundError:
            if for_write:
                return resolved  # a new file; its parent was checked
            raise PathNotFound(str(path)) from None
        except OSError as exc:
            raise PathRefused(path, f"could not be resolved: {_reason(exc)}") from None
        if stat.S_ISDIR(st.st_mode):
            raise PathRefused(path, "is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused(path, "is not a regular file")
        return resolved

    def check_directory(self, path: object) -> Path:
        """Return the real path of an existing directory inside the roots (a terminal's cwd)."""
        resolved = self.resolve(path)
        if not os.path.isdir(resolved.path):
            raise PathRefused(path, "is not a directory")
        return resolved.path

    def open_directory(self, path: object) -> tuple[int, Path]:
        """Open a directory inside the roots without following links: ``(descriptor, real)``.

        The checked real path is opened with ``O_NOFOLLOW`` at every component, then where the
        opened directory is now is checked again (a parent renamed meanwhile moves it). The
        caller closes the descriptor.
        """
        real = self.check_directory(path)
        try:
            fd = open_real_directory(real)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise PathNotFound(str(path)) from None
            if isinstance(exc, NotADirectoryError) or exc.errno == errno.ELOOP:
                raise PathRefused(
                    path, "a symbolic link or file appeared in the path after the check"
                ) from None
            raise PathRefused(path, f"could not be opened: {_reason(exc)}") from None
        where = descriptor_path(fd)
        if where is not None and (
            not where.startswith("/") or self._containing(Path(where)) is None
        ):
            os.close(fd)
            raise PathRefused(path, "moved outside the session's roots while being opened")
        return fd, real

    def resolve(self, path: object, *, for_write: bool = False) -> Resolved:
        """Resolve and contain a path of any kind (file or directory); fails closed."""
        try:
            return self._resolve(path, for_write)
        except (PathRefused, PathNotFound):
            raise
        except Exception as exc:  # anything unexpected while deciding: refuse
            raise PathRefused(path, f"could not be checked: {type(exc).__name__}") from exc

    def _resolve(self, path: object, for_write: bool) -> Resolved:
        if not isinstance(path, str):
            raise PathRefused(path, "not a string")
        if not path:
            raise PathRefused(path, "empty path")
        if "\x00" in path:
            raise PathRefused(path, "contains a NUL byte")
        if not path.startswith("/"):
            raise PathRefused(path, "relative path (only absolute paths; '~' is not expanded)")
        if len(os.fsencode(path)) >= PATH_MAX:
            raise PathRefused(path, f"path is too long (at least {PATH_MAX} bytes)")
        try:
            real = Path(os.path.realpath(path, strict=True))
        except FileNotFoundError:
            return self._resolve_missing(path, for_write)
        except OSError as exc:
            raise PathRefused(path, f"could not be resolved: {_reason(exc)}") from None
        root = self._containing(real)
        if root is None:
            raise PathRefused(path, "outside the session's roots")
        return Resolved(real, root)

    def _resolve_missing(self, path: str, for_write: bool) -> Resolved:
        """A path with a missing part: a new file (write) or a file not found (read)."""
        parts = [part for part in path.split("/") if part not in ("", ".")]
        index = len(parts)
        while index > 0 and not os.path.lexists("/" + "/".join(parts[:index])):
            index -= 1
        remaining = parts[index:]
        if not remaining:
            raise PathRefused(path, "could not be resolved: dangling symbolic link")
        if ".." in remaining:
            raise PathRefused(path, "'..' after a missing component")
        ancestor = "/" + "/".join(parts[:index])
        try:
            base = Path(os.path.realpath(ancestor, strict=True))
        except OSError as exc:
            raise PathRefused(path, f"could not be resolved: {_reason(exc)}") from None
        real = base.joinpath(*remaining)
        root = self._containing(real)
        if root is None:
            raise PathRefused(path, "outside the session's roots")
        if not os.path.isdir(base):
            raise PathRefused(path, f"{show_path(str(base))} is not a directory")
        if not for_write:
            raise PathNotFound(path)
        return Resolved(real, root)
