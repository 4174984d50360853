"""Provides the plan of a build: the local record merged into the database, and the list of
transcripts that have lines not indexed yet, oldest session first.

A build starts every time the library opens (and after any trouble). On an empty database it
is the whole build; on a complete one, ten thousand ``stat`` calls that find nothing to do.
Only one acp-tui process builds at a time (`build_lock`, an advisory lock beside the database);
another one serves its own writes meanwhile and checks what is left once the lock is free.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from acp_tui.store.library.rows import agent_id, note_local, session_row_id
from acp_tui.store.library.sources import scan_agents

__all__ = ["BuildLock", "BuildPlan", "build_lock", "plan_build"]


@dataclass(slots=True)
class BuildPlan:
    transcripts: list[tuple[int, Path]] = field(default_factory=list)
    """(session row id, transcript path) to catch up, in this order."""
    bytes: int = 0
    """How many bytes of them are not indexed yet."""


def plan_build(conn: sqlite3.Connection, root: Path) -> BuildPlan:
    """Merge every agent folder's record into the database (in the caller's transaction) and
    list the transcripts to catch up."""
    for source in scan_agents(root):
        if source.key is None:
            continue  # neither the index nor the library file says whose it is
        agent = agent_id(conn, source.key, source.name)
        listed = {session.session_id for session in source.sessions}
        for session in source.sessions:
            note_local(conn, agent, session)
        stale = [
            (rid,)
            for rid, sid in conn.execute(
                "SELECT id, session_id FROM sessions WHERE agent = ? AND recorded = 1", (agent,)
            )
            if sid not in listed
        ]
        conn.executemany("UPDATE sessions SET recorded = 0 WHERE id = ?", stale)
        _apply_titles(conn, agent, source.titles)
    plan = BuildPlan()
    offsets = dict(conn.execute("SELECT session, offset FROM transcripts"))
    found = conn.execute(
        "SELECT s.id, a.dir, s.file FROM sessions s JOIN agents a ON a.id = s.agent "
        "ORDER BY s.updated, s.id"
    )
    for session, folder, name in found:
        path = root / folder / f"{name}.jsonl"
        try:
            size = os.stat(path).st_size
        except OSError:
            size = -1
        offset = offsets.get(session)
        if size < 0 and offset is None:
            continue
        if size != offset:
            plan.transcripts.append((session, path))
            plan.bytes += max(0, size - (offset or 0))
    return plan


def _apply_titles(conn: sqlite3.Connection, agent: int, titles: dict[str, str]) -> None:
    """Make the database's local titles of ``agent`` those of its library file."""
    for rid, sid, title in conn.execute(
        "SELECT id, session_id, local_title FROM sessions "
        "WHERE agent = ? AND local_title IS NOT NULL",
        (agent,),
    ).fetchall():
        if titles.get(sid) != title:
            conn.execute("UPDATE sessions SET local_title = NULL WHERE id = ?", (rid,))
    for sid, title in titles.items():
        rid = session_row_id(conn, agent, sid)
        conn.execute(
            "UPDATE sessions SET local_title = ? WHERE id = ? AND local_title IS NOT ?",
            (title, rid, title),
        )


class BuildLock:
    """An advisory lock on ``build.lock`` beside the database (no-op where ``fcntl`` is not)."""

    def __init__(self, handle: IO[bytes] | None) -> None:
        self.handle = handle

    def acquire(self) -> bool:
        """Take the lock if it is free; whether this process holds it."""
        if self.handle is None:
            return True
        try:
            import fcntl
        except ImportError:
            return True
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError:
            return True  # a file system without locks: build anyway (it is idempotent)
        return True


@contextlib.contextmanager
def build_lock(library_dir: Path) -> Iterator[BuildLock]:
    """The build lock, released (with its file handle) when the block ends."""
    try:
        handle: IO[bytes] | None = open(library_dir / "build.lock", "ab")  # noqa: SIM115
    except OSError:
        handle = None
    try:
        yield BuildLock(handle)
    finally:
        if handle is not None:
            handle.close()
