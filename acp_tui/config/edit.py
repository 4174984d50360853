"""Provides edit_settings: one locked read-modify-write of the config file.

Two acp-tui processes changing the config at once (two `acp-tui agents add` in parallel, a theme
picked in the palette while a script adds an agent) would each read the old file and the last
writer would drop the other's change. Every change therefore holds an exclusive lock on
`config.toml.lock`, beside the file, from the read to the atomic replace. Platforms without
`fcntl` (Windows) go unlocked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from acp_tui.config.settings import Settings, load_settings, save_settings

__all__ = ["ConfigEditError", "config_lock", "edit_settings"]


class ConfigEditError(Exception):
    """The config file cannot be changed; `lines` says why, one problem per line."""

    def __init__(self, *lines: str) -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines


def lock_file_for(config_file: Path) -> Path:
    """The lock file beside `config_file`."""
    return config_file.with_name(config_file.name + ".lock")


@contextlib.contextmanager
def config_lock(config_file: Path) -> Iterator[None]:
    """Hold the exclusive lock on the config file while the block runs (waits for it)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    lock = lock_file_for(config_file)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise ConfigEditError(f"could not lock {config_file}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def edit_settings(
    config_file: Path,
    change: Callable[[Settings], Settings],
    *,
    tell: Callable[[str], None] | None = None,
) -> Settings:
    """Apply `change` to the settings in `config_file` and save the result, under the lock.

    A file that does not load cleanly is never rewritten (the user's text would be replaced by
    defaults): that raises ConfigEditError listing its problems. Whatever `change` raises goes
    through unchanged, and the file is left as it was; so is a file that `change` leaves the
    same. Returns the settings in effect afterwards. ``tell`` hears what the user should know
    of the write: that the file, now holding secrets, was made private.
    """
    with config_lock(config_file):
        loaded = load_settings(config_file)
        if loaded.problems:
            raise ConfigEditError(
                *loaded.problems, f"not changing {config_file} until these problems are fixed"
            )
        settings = change(loaded.settings)
        if settings == loaded.settings:
            return settings  # nothing to write
        try:
            note = save_settings(settings, config_file)
        except OSError as exc:
            raise ConfigEditError(f"could not write {config_file}: {exc.strerror or exc}") from None
        if note is not None and tell is not None:
            tell(note)
        return settings
