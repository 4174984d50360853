"""Provides search: sessions of every agent found by id, title, what was said, or directory.

One hit per session, in tiers: sessions whose id starts with the query (when it looks like an
id), then those whose shown title matches (newest first), then those where something said
matches (the newest matching message first: messages are numbered as indexed, so FTS5 walks
them newest first and stops as soon as enough sessions are found), then those whose cwd or extra
roots match. Every hit carries its session's row, a plain-text snippet with the offsets of the
matches (never markup), and for text hits the message that matched: the transcript line where
it starts, its turn and its kind, so the UI can scroll there.

A search can be cancelled from another thread (a newer keystroke): it then raises
`SearchCancelled` at its next step, within a few thousand SQLite instructions.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import Any, Literal

from acp_tui.store.library.query import (
    MARK_END,
    MARK_START,
    Query,
    Snippet,
    parse_query,
    snippet_in,
    snippet_of,
)
from acp_tui.store.library.rows import Filters, LibraryRow, filter_sql, load_rows
from acp_tui.store.library.text import KIND_NAMES

__all__ = ["SearchCancelled", "SearchHit", "SearchResults", "search"]

SCAN_LIMIT = 200_000
"""At most this many matching messages are walked for one page of sessions (a word said in
every message of a few sessions that the filters exclude must not scan the whole index)."""

Field = Literal["id", "title", "text", "cwd"]


class SearchCancelled(Exception):
    """A newer search replaced this one."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One session found, and where."""

    row: LibraryRow
    field: Field
    snippet: Snippet
    """The id, the title, the cwd and extra roots, or the message, around the match."""
    line: int | None = None
    """Text hits: the line of the session's transcript where the matched message starts
    (0-based; every line counts, as ``TranscriptCache.events`` reads them)."""
    turn: int | None = None
    """Text hits: the turn of that message (1 for the first prompt; 0 before any)."""
    kind: str | None = None
    """Text hits: ``prompt``, ``reply``, ``thought`` or ``tool``."""


@dataclass(frozen=True, slots=True)
class SearchResults:
    query: Query
    hits: list[SearchHit]
    more: bool
    """There are more hits than the limit (ask again with a larger one)."""


def search(
    conn: sqlite3.Connection,
    text: str,
    filters: Filters = Filters(),  # noqa: B008 - frozen
    *,
    limit: int = 50,
    cancel: threading.Event | None = None,
) -> SearchResults:
    """Search the library; raises `SearchCancelled` when ``cancel`` is set meanwhile."""
    query = parse_query(text)
    if cancel is not None:
        conn.set_progress_handler(lambda: 1 if cancel.is_set() else 0, 2000)
    try:
        return _search(conn, query, filters, limit, cancel)
    except sqlite3.OperationalError as exc:
        if cancel is not None and cancel.is_set():
            raise SearchCancelled from exc
        raise
    finally:
        if cancel is not None:
            conn.set_progress_handler(None, 0)


def _search(
    conn: sqlite3.Connection,
    query: Query,
    filters: Filters,
    limit: int,
    cancel: threading.Event | None,
) -> SearchResults:
    found: list[tuple[int, Field, Snippet, int | None, int | None, int | None]] = []
    seen: set[int] = set()
    more = False
    if filters.agents == ():
        return SearchResults(query, [], False)
    where, params = filter_sql(filters)
    if query.id_prefix is not None:
        prefix = query.id_prefix
        for rid, sid in conn.execute(
            f"SELECT s.id, s.session_id FROM sessions s JOIN agents a ON a.id = s.agent "
            f"WHERE s.session_id >= ? AND s.session_id < ? AND {where} "
            "ORDER BY s.updated DESC, s.id DESC LIMIT ?",
            (prefix, prefix + "\U0010ffff", *params, limit + 1),
        ):
            if len(found) >= limit:
                more = True
                break
            seen.add(rid)
            found.append((rid, "id", Snippet(sid, ((0, len(prefix)),)), None, None, None))
    tiers: list[tuple[Field, str | None]] = [
        ("title", query.on("title")),
        ("text", query.match),
        ("cwd", query.on("cwd dirs")),
    ]
    for field, match in tiers:
        if match is None or more:
            continue
        if cancel is not None and cancel.is_set():
            raise SearchCancelled
        if field == "text":
            more = _text_tier(conn, query, match, where, params, limit, seen, found)
        else:
            more = _title_tier(conn, field, match, where, params, limit, seen, found)
    rows = load_rows(conn, [rid for rid, *_ in found])
    hits = [
        SearchHit(
            rows[rid], field, snippet, line, turn, KIND_NAMES[kind] if kind is not None else None
        )
        for rid, field, snippet, line, turn, kind in found
        if rid in rows
    ]
    return SearchResults(query, hits, more)


def _title_tier(
    conn: sqlite3.Connection,
    field: Field,
    match: str,
    where: str,
    params: list[Any],
    limit: int,
    seen: set[int],
    found: list[Any],
) -> bool:
    """Sessions whose title (or cwd and roots) match, newest first; whether there are more."""
    column = 0 if field == "title" else 1
    rows = conn.execute(
        f"SELECT s.id, highlight(titles, {column}, ?, ?), highlight(titles, 2, ?, ?) "
        f"FROM titles CROSS JOIN sessions s ON s.id = titles.rowid "
        f"JOIN agents a ON a.id = s.agent WHERE titles MATCH ? AND {where} "
        "ORDER BY s.updated DESC, s.id DESC",
        (MARK_START, MARK_END, MARK_START, MARK_END, match, *params),
    )
    for rid, marked, marked_dirs in rows:
        if rid in seen:
            continue
        if len(found) >= limit:
            return True
        seen.add(rid)
        if field == "cwd" and MARK_START not in marked and MARK_START in marked_dirs:
            marked = marked_dirs
        found.append((rid, field, snippet_of(marked), None, None, None))
    return False


def _text_tier(
    conn: sqlite3.Connection,
    query: Query,
    match: str,
    where: str,
    params: list[Any],
    limit: int,
    seen: set[int],
    found: list[Any],
) -> bool:
    """Sessions where a message matches, by their newest matching message."""
    filtered = where != "1"
    joins = "CROSS JOIN sessions s ON s.id = m.session JOIN agents a ON a.id = s.agent"
    cursor = conn.execute(
        f"SELECT said.rowid, m.session FROM said CROSS JOIN messages m ON m.id = said.rowid "
        f"{joins if filtered else ''} WHERE said MATCH ? {'AND ' + where if filtered else ''} "
        "ORDER BY said.rowid DESC",
        (match, *params),
    )
    picked: list[tuple[int, int]] = []
    scanned = 0
    more = False
    for message, session in cursor:
        scanned += 1
        if scanned > SCAN_LIMIT:
            more = True
            break
        if session in seen:
            continue
        if len(found) + len(picked) >= limit:
            more = True
            break
        seen.add(session)
        picked.append((message, session))
    cursor.close()
    # Snippets are made here from the text: FTS5's snippet() costs a millisecond a hit.
    details = {
        number: rest
        for number, *rest in conn.execute(
            "SELECT m.id, m.line, m.turn, m.kind, b.body FROM messages m "
            f"JOIN bodies b ON b.id = m.id WHERE m.id IN ({','.join('?' * len(picked))})",
            [message for message, _ in picked],
        )
    }
    for message, session in picked:
        if message in details:
            line, turn, kind, body = details[message]
            found.append((session, "text", snippet_in(body, query), line, turn, kind))
    return more
