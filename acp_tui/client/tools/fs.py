"""Provides FileSystem: the client side of ``fs/read_text_file`` and ``fs/write_text_file``.

Every path goes through ``RootSet`` first. The checked real path is then opened component by
component from ``/`` with ``O_NOFOLLOW`` (each directory relative to its parent's descriptor), so a
symbolic link swapped in after the check is refused instead of followed. Writes are atomic: a temp
file in the same directory, fsync, then a rename over the target; on any error the target is
untouched and the temp file removed. Blocking I/O runs in a worker thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

import anyio.to_thread

from acp_tui.client.tools.roots import (
    PathNotFound,
    PathRefused,
    RootSet,
    open_real_directory,
    show_path,
)
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

MAX_READ_BYTES = 50 * 1024 * 1024

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _os_error(path: str, action: str, exc: OSError) -> RpcError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return PathRefused(path, "a symbolic link or file appeared in the path after the check")
    if isinstance(exc, FileNotFoundError):
        return PathNotFound(path)
    if isinstance(exc, IsADirectoryError):
        return PathRefused(path, "is a directory, not a file")
    return RpcError(
        ErrorCode.INTERNAL_ERROR,
        f"Cannot {action} {show_path(path)}: {exc.strerror or type(exc).__name__}",
        {"path": path},
    )


def _check_count(name: str, value: object, minimum: int) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise RpcError.invalid_params(f"{name} must be an integer >= {minimum}, not {value!r}")
    return value


def select_lines(text: str, line: int | None, limit: int | None) -> str:
    """The ``limit`` lines starting at 1-based ``line`` (lines end at ``\\n``, kept)."""
    if line is None and limit is None:
        return text
    lines = text.split("\n")
    ends = ["\n"] * (len(lines) - 1) + [""]
    if lines[-1] == "":  # a final newline ends the last line, it does not start a new one
        lines.pop()
        ends.pop()
    start = (line or 1) - 1
    stop = len(lines) if limit is None else start + limit
    selected = zip(lines[start:stop], ends[start:stop], strict=True)
    return "".join(body + end for body, end in selected)


class FileSystem:
    """Reads and writes text files for the agent, inside the session's roots only."""

    def __init__(self, roots: RootSet) -> None:
        self.roots = roots

    async def read_text_file(
        self, path: str, line: int | None = None, limit: int | None = None
    ) -> str:
        """The file's UTF-8 text, or ``limit`` lines from 1-based ``line`` (empty past the end)."""
        line = _check_count("line", line, 1)
        limit = _check_count("limit", limit, 0)
        text = await anyio.to_thread.run_sync(self._read, path)
        return select_lines(text, line, limit)

    async def write_text_file(self, path: str, content: str) -> None:
        """Replace (or create) the file atomically with ``content`` encoded as UTF-8."""
        if not isinstance(content, str):
            raise RpcError.invalid_params(f"content for {show_path(path)} must be a string")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise RpcError.invalid_params(
                f"content for {show_path(path)} is not encodable as UTF-8 ({exc.reason})"
            ) from None
        await anyio.to_thread.run_sync(self._write, path, data)

    def _read(self, path: str) -> str:
        real = self.roots.check(path)
        try:
            dir_fd = open_real_directory(real.parent)
            try:
                fd = os.open(real.name, _READ_FLAGS, dir_fd=dir_fd)
            finally:
                os.close(dir_fd)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise PathRefused(path, "is not a regular file")
                if st.st_size > MAX_READ_BYTES:
                    raise self._too_large(path, st.st_size)
                chunks: list[bytes] = []
                size = 0
                while size <= MAX_READ_BYTES:
                    chunk = os.read(fd, min(1 << 20, MAX_READ_BYTES + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            finally:
                os.close(fd)
        except OSError as exc:
            raise _os_error(path, "read", exc) from None
        if size > MAX_READ_BYTES:
            raise self._too_large(path, size)
        data = b"".join(chunks)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RpcError.invalid_params(
                f"{show_path(path)} is not UTF-8 text (invalid byte at offset {exc.start})",
                {"path": path},
            ) from None

    @staticmethod
    def _too_large(path: str, size: int) -> RpcError:
        return RpcError.invalid_params(
            f"{show_path(path)} is too large to read ({size} bytes; the limit is "
            f"{MAX_READ_BYTES} bytes)",
            {"path": path},
        )

    def _write(self, path: str, data: bytes) -> None:
        resolved = self.roots.locate(path, for_write=True)
        real = resolved.path
        temp = f".{real.name[:64]}.{secrets.token_hex(6)}.acp-tmp"
        try:
            dir_fd = open_real_directory(real.parent, create_below=resolved.root)
            try:
                try:
                    st: os.stat_result | None = os.stat(
                        real.name, dir_fd=dir_fd, follow_symlinks=False
                    )
                except FileNotFoundError:
                    st = None
                if st is not None and not stat.S_ISREG(st.st_mode):
                    raise PathRefused(path, "is not a regular file")
                fd = os.open(temp, _TEMP_FLAGS, 0o666 if st is None else 0o600, dir_fd=dir_fd)
                try:
                    try:
                        if st is not None:
                            self._copy_metadata(fd, st)
                        view = memoryview(data)
                        while view:
                            view = view[os.write(fd, view) :]
                        os.fsync(fd)
                    finally:
                        os.close(fd)
                    os.replace(temp, real.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(temp, dir_fd=dir_fd)
                    raise
            finally:
                os.close(dir_fd)
        except OSError as exc:
            raise _os_error(path, "write", exc) from None

    @staticmethod
    def _copy_metadata(fd: int, st: os.stat_result) -> None:
        """Keep the replaced file's owner (when allowed) and mode (without set-id bits)."""
        if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):
                os.fchown(fd, st.st_uid, st.st_gid)
        os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
