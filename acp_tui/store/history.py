"""Provides PromptHistory: the prompts a user sent, kept per project as JSON lines.

Each project (the session's cwd) has its own file under ``<data_dir>/history/``, named by a hash
of the project's absolute path. One prompt is one line, ``{"text": ...}``, appended as it is sent:
a crash can only tear the last line, which the next load skips. The file is trimmed to ``limit``
entries by an atomic rewrite (temporary file, then ``os.replace``). A missing, unreadable or corrupt
file never raises: it is logged and the history starts from what could be read.

``HistoryBrowser`` is the walk through the entries that the prompt editor does with up and down.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from acp_tui.config.atomic import write_atomic
from acp_tui.config.paths import Paths

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 500


def history_file(project: Path, paths: Paths) -> Path:
    """Where the history of ``project`` lives: a hash of its absolute path under the data dir."""
    return paths.project_file("history", project, ".jsonl")


def history_for_project(project: Path, paths: Paths, limit: int = DEFAULT_LIMIT) -> PromptHistory:
    """The prompt history of one project (the session's working directory).

    The file's name is a hash of the path, worked out on first use: the chat screen makes the
    history before the first frame, and hashlib takes a few milliseconds to import.
    """
    return PromptHistory(lambda: history_file(project, paths), limit)


class PromptHistory:
    """Sent prompts, oldest first, persisted as JSON lines; loaded on first use."""

    def __init__(self, path: Path | Callable[[], Path], limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("the history limit must be at least 1")
        self._path = path
        self.limit = limit
        self._entries: list[str] | None = None
        self._lines_on_disk = 0

    @property
    def path(self) -> Path:
        """The history file (given, or worked out once on first use)."""
        if not isinstance(self._path, Path):
            self._path = self._path()
        return self._path

    def entries(self) -> list[str]:
        """The prompts, oldest first (a copy)."""
        return list(self._load())

    def append(self, text: str) -> bool:
        """Record a sent prompt; False when skipped (blank, or the same as the last one)."""
        entries = self._load()
        if not text.strip() or (entries and entries[-1] == text):
            return False
        entries.append(text)
        if len(entries) > self.limit:
            del entries[: len(entries) - self.limit]
        try:
            if self._lines_on_disk + 1 > self.limit:
                self._rewrite(entries)
            else:
                self._append_line(text)
        except OSError as exc:
            log.warning("could not save the prompt history to %s: %s", self.path, exc)
        return True

    # -- the file ------------------------------------------------------------------------------

    def _load(self) -> list[str]:
        if self._entries is None:
            self._entries, self._lines_on_disk = read_entries(self.path)
            if len(self._entries) > self.limit:
                del self._entries[: len(self._entries) - self.limit]
        return self._entries

    def _append_line(self, text: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = encode_entry(text)
        with open(self.path, "a+b") as f:
            # After a torn write the file does not end with a newline: start a fresh line.
            if f.tell() > 0:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    line = b"\n" + line
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self._lines_on_disk += 1

    def _rewrite(self, entries: Sequence[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, b"".join(encode_entry(text) for text in entries))
        self._lines_on_disk = len(entries)


def encode_entry(text: str) -> bytes:
    import json  # on first use, not on the way to the first frame

    return json.dumps({"text": text}, ensure_ascii=True).encode("ascii") + b"\n"


def read_entries(path: Path) -> tuple[list[str], int]:
    """The entries of a history file and its line count; bad lines are skipped and logged."""
    import json

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        log.warning("could not read the prompt history %s: %s", path, exc)
        return [], 0
    entries: list[str] = []
    lines = data.splitlines()
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            skipped += 1
            continue
        text = obj.get("text") if isinstance(obj, dict) else None
        if isinstance(text, str) and text.strip():
            entries.append(text)
        else:
            skipped += 1
    if skipped:
        log.warning("skipped %d unreadable line(s) of the prompt history %s", skipped, path)
    return entries, len(lines)


class HistoryBrowser:
    """Up/down through a history while keeping the draft being typed.

    ``older(current)`` and ``newer(current)`` return the text to show, or None when there is
    nowhere to go. Going newer past the newest entry gives back the draft.
    """

    def __init__(self) -> None:
        self.index: int | None = None
        self.draft = ""
        self.shown: str | None = None

    @property
    def browsing(self) -> bool:
        return self.index is not None

    def reset(self) -> None:
        self.index = None
        self.draft = ""
        self.shown = None

    def edited(self, current: str) -> None:
        """The user changed the text: what they typed becomes the draft again."""
        if self.index is not None and current != self.shown:
            self.index = None
            self.shown = None

    def older(self, entries: Sequence[str], current: str) -> str | None:
        if not entries:
            return None
        if self.index is None:
            self.draft = current
            index = len(entries) - 1
        elif self.index > 0:
            index = min(self.index, len(entries)) - 1
        else:
            return None
        self.index = index
        self.shown = entries[index]
        return self.shown

    def newer(self, entries: Sequence[str]) -> str | None:
        if self.index is None:
            return None
        if self.index + 1 < len(entries):
            self.index += 1
            self.shown = entries[self.index]
            return self.shown
        self.index = None
        self.shown = None
        return self.draft
