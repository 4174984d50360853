"""Provides RecentRoots: the extra roots a user chose for a project, most recent first.

Each project (the session's cwd) has one small JSON file under ``<data_dir>/roots/``, named by a
hash of the project's absolute path: ``{"version": 1, "roots": ["/abs/path", ...]}``. Writes are
atomic (temporary file in the same directory, then ``os.replace``). A missing, unreadable or
corrupt file never raises: it is logged and the list starts from what could be read. Only
absolute path strings are kept; whether they still exist is for the caller to check.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from acp_tui.config.atomic import write_atomic
from acp_tui.config.paths import Paths, get_paths

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 20
_VERSION = 1


def recent_roots_file(project: Path, paths: Paths) -> Path:
    """Where the recent roots of ``project`` live: a hash of its absolute path, in the data dir."""
    return paths.project_file("roots", project, ".json")


def recent_roots_for_project(
    project: Path, paths: Paths | None = None, limit: int = DEFAULT_LIMIT
) -> RecentRoots:
    """The recent extra roots of one project (the session's working directory)."""
    return RecentRoots(recent_roots_file(project, paths or get_paths()), limit)


class RecentRoots:
    """Extra roots used with one project, most recent first, at most ``limit`` of them."""

    def __init__(self, path: Path, limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("the recent roots limit must be at least 1")
        self.path = path
        self.limit = limit

    def load(self) -> list[Path]:
        """The recent roots, most recent first; empty when the file is missing or unreadable."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("could not read the recent roots %s: %s", self.path, exc)
            return []
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError) as exc:
            log.warning("ignoring the corrupt recent roots file %s: %s", self.path, exc)
            return []
        raw = obj.get("roots") if isinstance(obj, dict) else None
        if not isinstance(raw, list):
            log.warning("ignoring the recent roots file %s: no list of roots", self.path)
            return []
        roots: list[Path] = []
        for item in raw:
            if isinstance(item, str) and item.startswith("/") and "\x00" not in item:
                root = Path(item)
                if root not in roots:
                    roots.append(root)
        return roots[: self.limit]

    def record(self, used: Iterable[Path]) -> list[Path]:
        """Put ``used`` (in its order) in front of the others; returns the new list.

        Relative paths are skipped. A failure to save is logged, never raised: the session
        goes on whether or not its roots could be remembered.
        """
        fresh = [Path(p) for p in used if Path(p).is_absolute()]
        roots: list[Path] = []
        for root in [*fresh, *self.load()]:
            if root not in roots:
                roots.append(root)
        roots = roots[: self.limit]
        try:
            self._write(roots)
        except OSError as exc:
            log.warning("could not save the recent roots to %s: %s", self.path, exc)
        return roots

    def forget(self, root: Path) -> list[Path]:
        """Remove ``root`` from the list; returns the new list."""
        roots = [r for r in self.load() if r != root]
        try:
            self._write(roots)
        except OSError as exc:
            log.warning("could not save the recent roots to %s: %s", self.path, exc)
        return roots

    def _write(self, roots: list[Path]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": _VERSION, "roots": [str(r) for r in roots]}, indent=1)
        write_atomic(self.path, (payload + "\n").encode("utf-8", "surrogateescape"))
