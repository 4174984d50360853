"""Provides atomic_write and write_atomic: a file replaced whole or not at all.

Every file acp-tui (and its demo agent) rewrites goes through here: the settings, the session
index, the prompt history, the recent roots, an exported transcript, the demo agent's store.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_write", "write_atomic"]


@contextlib.contextmanager
def atomic_write(path: Path, *, keep_mode: bool = False) -> Iterator[BinaryIO]:
    """Write ``path`` through a temporary file beside it, renamed over it once on disk.

    If anything fails (the ``with`` body included) the old file is left as it was, the temporary
    file is removed and the error raised. The directory must exist. The new file is private
    (0600) unless ``keep_mode`` keeps the permissions of the file it replaces.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if keep_mode:
            with contextlib.suppress(FileNotFoundError):
                os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def write_atomic(path: Path, data: bytes, *, keep_mode: bool = False) -> None:
    """Replace ``path`` with ``data`` (see `atomic_write`)."""
    with atomic_write(path, keep_mode=keep_mode) as handle:
        handle.write(data)


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable where the platform allows it (not on Windows)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
