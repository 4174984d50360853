"""Provides the library's sessions as rows: what the merged browser lists, and how rows are kept.

Every function takes a connection; the writes run on the library's writer thread (inside a
transaction it opened), the reads on any thread with a reader connection. Rows are merged from
every agent, newest ``updatedAt`` first (unknown times last), filtered by agent, cwd (exact) and
extra roots (exact and ordered, as the browser filters today), and paged with a cursor.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from acp_tui.protocol.timestamps import parse_timestamp
from acp_tui.store.names import agent_dir_name, transcript_name
from acp_tui.store.sessions import CachedSession

__all__ = [
    "Filters",
    "LibraryRow",
    "ListedSession",
    "RowCursor",
    "RowsPage",
    "agent_id",
    "dirs_json",
    "epoch",
    "filter_sql",
    "find_row",
    "forget_unlisted",
    "load_rows",
    "note_local",
    "query_rows",
    "record_listed",
    "session_row_id",
]

ROW_COLUMNS = (
    "s.id, s.session_id, s.cwd, s.dirs, s.title, s.local_title, s.first_prompt, s.updated_at, "
    "s.updated, s.listed_at, s.recorded, coalesce(t.offset, 0) > 0, a.key, a.name, a.listed_at"
)
ROW_JOINS = "JOIN agents a ON a.id = s.agent LEFT JOIN transcripts t ON t.session = s.id"

RowCursor = tuple[float, int]
"""Where the next page starts: (updated, row id) of the last row shown."""


class ListedSession(Protocol):
    """A session as an agent's ``session/list`` gives it (``SessionInfo`` is one)."""

    @property
    def session_id(self) -> str: ...
    @property
    def cwd(self) -> str: ...
    @property
    def additional_directories(self) -> Sequence[str] | None: ...
    @property
    def title(self) -> str | None: ...
    @property
    def updated_at(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Filters:
    """Which sessions: of these agents (keys; None: all), this cwd, exactly these extra roots."""

    agents: tuple[str, ...] | None = None
    cwd: str | None = None
    additional_directories: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class LibraryRow:
    """One session of one agent, as the library knows it."""

    agent_key: str
    agent_name: str | None
    """The agent's display name when known (else show ``sources.agent_label(agent_key)``)."""
    session_id: str
    cwd: str
    additional_directories: tuple[str, ...]
    title: str | None
    """What to show: the local title, else the agent's, else the first prompt."""
    agent_title: str | None
    local_title: str | None
    first_prompt: str | None
    updated_at: str | None
    listed_at: float | None
    """When the agent's ``session/list`` last showed it (epoch seconds; None: never, it is
    known only from acp-tui's own record)."""
    agent_listed_at: float | None
    """When this agent's sessions were last listed at all."""
    in_local_index: bool
    """acp-tui's own record has it (it was opened or created here)."""
    has_local_copy: bool
    """Its transcript was recorded here and is indexed (it can be shown, and searched)."""
    row_id: int = 0


@dataclass(frozen=True, slots=True)
class RowsPage:
    rows: list[LibraryRow]
    next: RowCursor | None
    """Pass it as ``after`` for the next page; None at the end."""


def epoch(updated_at: str | None) -> float:
    when = parse_timestamp(updated_at)
    return when.timestamp() if when is not None else 0.0


def dirs_json(dirs: Iterable[str] | None) -> str:
    """Extra roots as stored: a JSON array, so that equal lists are equal strings."""
    return json.dumps(list(dirs or ()), ensure_ascii=False)


def _row(values: Sequence[Any]) -> LibraryRow:
    (rid, sid, cwd, dirs, title, local, prompt, updated_at, _updated, listed) = values[:10]
    recorded, copy, key, name, agent_listed = values[10:15]
    try:
        roots = tuple(d for d in json.loads(dirs) if isinstance(d, str))
    except ValueError:
        roots = ()
    return LibraryRow(
        agent_key=key,
        agent_name=name,
        session_id=sid,
        cwd=cwd,
        additional_directories=roots,
        title=local or title or prompt,
        agent_title=title,
        local_title=local,
        first_prompt=prompt,
        updated_at=updated_at,
        listed_at=listed,
        agent_listed_at=agent_listed,
        in_local_index=bool(recorded),
        has_local_copy=bool(copy),
        row_id=rid,
    )


def filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The WHERE conditions (on ``s`` and ``a``) of ``filters``, and their parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.agents is not None:
        clauses.append(f"a.key IN ({','.join('?' * len(filters.agents))})")
        params.extend(filters.agents)
    if filters.cwd is not None:
        clauses.append("s.cwd = ?")
        params.append(filters.cwd)
    if filters.additional_directories is not None:
        clauses.append("s.dirs = ?")
        params.append(dirs_json(filters.additional_directories))
    return " AND ".join(clauses) or "1", params


def query_rows(
    conn: sqlite3.Connection, filters: Filters, *, limit: int, after: RowCursor | None = None
) -> RowsPage:
    """A page of the merged rows, newest first."""
    where, params = filter_sql(filters)
    if filters.agents == ():
        return RowsPage([], None)
    if after is not None:
        where += " AND (s.updated, s.id) < (?, ?)"
        params.extend(after)
    found = conn.execute(
        f"SELECT {ROW_COLUMNS} FROM sessions s {ROW_JOINS} WHERE {where} "
        "ORDER BY s.updated DESC, s.id DESC LIMIT ?",
        (*params, limit + 1),
    ).fetchall()
    rows = [_row(values) for values in found[:limit]]
    more = len(found) > limit
    return RowsPage(rows, (found[limit - 1][8], found[limit - 1][0]) if more and rows else None)


def find_row(conn: sqlite3.Connection, agent_key: str, session_id: str) -> LibraryRow | None:
    found = conn.execute(
        f"SELECT {ROW_COLUMNS} FROM sessions s {ROW_JOINS} WHERE a.key = ? AND s.session_id = ?",
        (agent_key, session_id),
    ).fetchone()
    return _row(found) if found is not None else None


def load_rows(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, LibraryRow]:
    """The rows with these row ids."""
    if not ids:
        return {}
    found = conn.execute(
        f"SELECT {ROW_COLUMNS} FROM sessions s {ROW_JOINS} "
        f"WHERE s.id IN ({','.join('?' * len(ids))})",
        tuple(ids),
    ).fetchall()
    return {values[0]: _row(values) for values in found}


# -- writes (on the writer thread, inside a transaction) -------------------------------------


def agent_id(conn: sqlite3.Connection, key: str, name: str | None = None) -> int:
    """The row id of the agent with ``key``, added if new; a given ``name`` is kept."""
    found = conn.execute("SELECT id, name FROM agents WHERE key = ?", (key,)).fetchone()
    if found is not None:
        if name and found[1] != name:
            conn.execute("UPDATE agents SET name = ? WHERE id = ?", (name, found[0]))
        return int(found[0])
    cursor = conn.execute(
        "INSERT INTO agents(key, dir, name) VALUES (?, ?, ?)", (key, agent_dir_name(key), name)
    )
    return int(cursor.lastrowid or 0)


def session_row_id(conn: sqlite3.Connection, agent: int, session_id: str) -> int:
    """The row id of a session, added (with nothing known yet) if new."""
    found = conn.execute(
        "SELECT id FROM sessions WHERE agent = ? AND session_id = ?", (agent, session_id)
    ).fetchone()
    if found is not None:
        return int(found[0])
    cursor = conn.execute(
        "INSERT INTO sessions(agent, session_id, file) VALUES (?, ?, ?)",
        (agent, session_id, transcript_name(session_id)),
    )
    return int(cursor.lastrowid or 0)


def note_local(conn: sqlite3.Connection, agent: int, session: CachedSession) -> int:
    """Merge an entry of the local index into the session's row; its row id."""
    updated = epoch(session.updated_at)
    conn.execute(
        "INSERT INTO sessions(agent, session_id, file, cwd, dirs, title, first_prompt, "
        "updated_at, updated, recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1) "
        "ON CONFLICT(agent, session_id) DO UPDATE SET cwd = excluded.cwd, "
        "dirs = excluded.dirs, title = coalesce(excluded.title, title), "
        "first_prompt = coalesce(first_prompt, excluded.first_prompt), recorded = 1, "
        "updated_at = CASE WHEN excluded.updated >= updated THEN excluded.updated_at "
        "ELSE updated_at END, updated = max(updated, excluded.updated)",
        (
            agent,
            session.session_id,
            transcript_name(session.session_id),
            session.cwd,
            dirs_json(session.additional_directories),
            session.title,
            session.first_prompt,
            session.updated_at,
            updated,
        ),
    )
    return session_row_id(conn, agent, session.session_id)


def record_listed(
    conn: sqlite3.Connection, agent: int, sessions: Sequence[ListedSession], listed_at: float
) -> list[int]:
    """Merge a page of the agent's ``session/list``; the row ids of the sessions new to it."""
    ids = [info.session_id for info in sessions]
    known = {
        sid
        for (sid,) in conn.execute(
            f"SELECT session_id FROM sessions WHERE agent = ? "
            f"AND session_id IN ({','.join('?' * len(ids))})",
            (agent, *ids),
        )
    }
    for info in sessions:
        conn.execute(
            "INSERT INTO sessions(agent, session_id, file, cwd, dirs, title, updated_at, "
            "updated, listed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(agent, session_id) DO UPDATE SET cwd = excluded.cwd, "
            "dirs = excluded.dirs, title = coalesce(excluded.title, title), "
            "updated_at = coalesce(excluded.updated_at, updated_at), "
            "updated = CASE WHEN excluded.updated_at IS NULL THEN updated "
            "ELSE excluded.updated END, listed_at = excluded.listed_at",
            (
                agent,
                info.session_id,
                transcript_name(info.session_id),
                info.cwd,
                dirs_json(info.additional_directories),
                info.title,
                info.updated_at,
                epoch(info.updated_at),
                listed_at,
            ),
        )
    conn.execute("UPDATE agents SET listed_at = ? WHERE id = ?", (listed_at, agent))
    return [
        session_row_id(conn, agent, info.session_id)
        for info in sessions
        if info.session_id not in known
    ]


def forget_unlisted(
    conn: sqlite3.Connection, agent: int, started_at: float, cwd: str | None
) -> int:
    """After a complete listing (begun at ``started_at``, of ``cwd`` or of every directory):
    the sessions it did not show are gone from the agent. Those acp-tui recorded stay, as its
    own record (no longer listed); the others leave. Returns how many were gone."""
    where = "agent = ? AND listed_at IS NOT NULL AND listed_at < ?"
    params: list[Any] = [agent, started_at]
    if cwd is not None:
        where += " AND cwd = ?"
        params.append(cwd)
    gone = conn.execute(f"SELECT count(*) FROM sessions WHERE {where}", params).fetchone()[0]
    conn.execute(f"DELETE FROM sessions WHERE {where} AND recorded = 0", params)
    conn.execute(f"UPDATE sessions SET listed_at = NULL WHERE {where}", params)
    return int(gone)
