"""Provides catch_up_step: index what a session's transcript gained since it was last indexed.

The transcript is appended to, line by line, and only ever rewritten whole (a replay replacing
the copy, a fork, a reset), which gives it a new inode or a new head. So the library keeps, per
transcript, the inode, the byte offset and line count indexed so far, a digest of its first
bytes, the turn count and the message still open (see ``acp_tui.store.library.segments``), and
each step reads on from there. A rewritten file (another inode, shorter, or another head) is
indexed again from its start; a missing one loses its text.

Each step is one write transaction holding at most `BATCH_LINES` lines or `BATCH_BYTES` bytes
and commits the text with the state that says it is there: a kill -9 at any moment leaves a
database that opens, and indexing resumes where the last commit left it (the work of the
interrupted batch is simply redone). A line still being written (no line feed yet) waits for
the next step; a line longer than `LINE_BYTES` is read only in part.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from acp_tui.store.library.segments import OpenMessage, Row, Segmenter
from acp_tui.store.library.text import (
    LINE_BYTES,
    MESSAGE_CHARS,
    PROMPT,
    REPLY,
    THOUGHT,
    Piece,
    partial_event,
    piece_of,
    plain,
)

__all__ = [
    "BATCH_BYTES",
    "BATCH_LINES",
    "FileState",
    "Step",
    "catch_up_step",
    "drop_text",
    "pending_text",
]

BATCH_LINES = 4000
BATCH_BYTES = 2_000_000
READ_BUFFER = 1 << 20
"""Transcripts are read a megabyte at a time: each read releases the GIL, and a thread that
releases it and takes it back often starves the event loop (see ``_store``)."""
HEAD_BYTES = 4096
_SKIP_CHUNK = 1 << 20
_END_BYTES = 65_536
_NOTHING: Piece = (3, 0, None, "")


@dataclass(slots=True)
class FileState:
    """How far a transcript is indexed."""

    inode: int | None = None
    offset: int = 0
    lines: int = 0
    head: str | None = None
    turn: int = 0
    open: OpenMessage | None = None
    echo: bool = False


@dataclass(frozen=True, slots=True)
class Step:
    done: bool
    """Everything written so far is indexed (else: call again)."""
    read: int
    """Bytes indexed by this step."""
    size: int
    """The transcript's size when the step began."""


def load_state(conn: sqlite3.Connection, session: int) -> FileState:
    found = conn.execute(
        "SELECT inode, offset, lines, head, turn, open, echo FROM transcripts WHERE session = ?",
        (session,),
    ).fetchone()
    if found is None:
        return FileState()
    inode, offset, lines, head, turn, open_json, echo = found
    opened = OpenMessage.from_json(open_json)
    return FileState(inode, offset, lines, head, turn, opened, bool(echo))


def _save_state(conn: sqlite3.Connection, session: int, state: FileState) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO transcripts(session, inode, offset, lines, head, turn, open, echo) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session,
            state.inode,
            state.offset,
            state.lines,
            state.head,
            state.turn,
            state.open.to_json() if state.open is not None else None,
            state.echo,
        ),
    )


def pending_text(conn: sqlite3.Connection, session: int, path: Path) -> tuple[int, bool]:
    """About how much of the transcript is not indexed yet (what follows the offset indexed,
    or all of it when it is another file now), and whether it is another file (rewritten
    whole since it was indexed: replaced, or shorter)."""
    try:
        stat = os.stat(path)
    except OSError:
        return 0, False
    found = conn.execute(
        "SELECT inode, offset FROM transcripts WHERE session = ?", (session,)
    ).fetchone()
    if found is None:
        return stat.st_size, False
    if found[0] != stat.st_ino or found[1] > stat.st_size:
        return stat.st_size, True
    return int(stat.st_size - found[1]), False


def drop_text(conn: sqlite3.Connection, session: int) -> None:
    """Forget the indexed text of a session (its transcript is gone or was rewritten)."""
    conn.execute("DELETE FROM messages WHERE session = ?", (session,))
    conn.execute("DELETE FROM transcripts WHERE session = ?", (session,))


def catch_up_step(conn: sqlite3.Connection, session: int, path: Path) -> Step:
    """Index the next batch of ``path``'s lines for the session with row id ``session``, in
    one transaction (BEGIN IMMEDIATE: another process indexing the same file waits, then sees
    what this one did)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        step = _step(conn, session, path)
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return step


def _head(handle: BinaryIO, offset: int) -> str:
    handle.seek(0)
    return hashlib.sha1(handle.read(min(HEAD_BYTES, offset)), usedforsecurity=False).hexdigest()


def _step(conn: sqlite3.Connection, session: int, path: Path) -> Step:
    state = load_state(conn, session)
    try:
        handle = path.open("rb", buffering=READ_BUFFER)
    except FileNotFoundError:
        if state.inode is not None:
            drop_text(conn, session)
        return Step(True, 0, 0)
    with handle:
        size = os.fstat(handle.fileno()).st_size
        inode = os.fstat(handle.fileno()).st_ino
        if state.inode is not None and (
            inode != state.inode or size < state.offset or _head(handle, state.offset) != state.head
        ):
            drop_text(conn, session)
            state = FileState()
        if state.inode is not None and size == state.offset:
            return Step(True, 0, size)
        return _index_lines(conn, session, handle, state, inode, size)


def _index_lines(
    conn: sqlite3.Connection,
    session: int,
    handle: BinaryIO,
    state: FileState,
    inode: int,
    size: int,
) -> Step:
    segmenter = Segmenter(state.turn, state.open, echo=state.echo)
    handle.seek(state.offset)
    line, offset, count, done = state.lines, state.offset, 0, False
    while count < BATCH_LINES and offset - state.offset < BATCH_BYTES:
        raw = handle.readline(LINE_BYTES + 1)
        length = len(raw)
        if raw.endswith(b"\n"):
            opened = segmenter.open
            full = opened is not None and opened.total >= MESSAGE_CHARS
            piece = _NOTHING if full and _more_of(raw, opened) else _piece(raw)
        elif length <= LINE_BYTES:  # the end of the file, or a line still being written
            done = True
            break
        else:
            length, end = _skip_rest(handle, length)
            if length < 0:
                done = True
                break
            piece = partial_event(raw, end)
        segmenter.feed(line, piece)
        line, offset, count = line + 1, offset + length, count + 1
    else:
        done = offset >= size
    if segmenter.stale:
        conn.executemany("DELETE FROM messages WHERE id = ?", [(row,) for row in segmenter.stale])
    rows = segmenter.rows
    opened = segmenter.finish()
    partial = opened is not None and opened.row is None and bool(opened.parts)
    if opened is not None and partial:
        rows = [*rows, (opened.line, opened.turn, opened.kind, plain("".join(opened.parts)))]
    if rows:
        first = _store(conn, session, rows)
        if opened is not None and partial:
            opened.row = first + len(rows) - 1
    head = _head(handle, offset)
    after = FileState(inode, offset, line, head, segmenter.turn, opened, segmenter.echo)
    _save_state(conn, session, after)
    return Step(done, offset - state.offset, size)


def _store(conn: sqlite3.Connection, session: int, rows: list[Row]) -> int:
    """Insert ``rows`` (numbered after every row so far, inside the caller's write
    transaction); the number of the first.

    One statement per table, its rows passed as one JSON array: SQLite then inserts (and
    indexes) the whole batch in one call that releases the GIL throughout. ``executemany``
    would release and take it back for every row, thousands of times a batch, and a thread
    that keeps doing that starves the event loop (the GIL's "convoy effect": the loop's thread
    is woken at each release but the indexing thread takes the GIL back first).
    """
    last = conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0
    places = _dumps([[line, turn, kind] for line, turn, kind, _ in rows])
    texts = _dumps([text for *_, text in rows])
    conn.execute(
        "INSERT INTO messages(id, session, line, turn, kind) SELECT ? + key, ?, "
        "json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') "
        "FROM json_each(?)",
        (last + 1, session, places),
    )
    conn.execute(
        "INSERT INTO bodies(id, body) SELECT ? + key, value FROM json_each(?)", (last + 1, texts)
    )
    return last + 1


_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

_decode = json.JSONDecoder().decode

_CHUNK_NAMES = {
    REPLY: b"agent_message_chunk",
    THOUGHT: b"agent_thought_chunk",
    PROMPT: b"user_message_chunk",
}
_UPDATE_KIND = re.compile(rb'"sessionUpdate"\s*:\s*"([a-z_]{1,40})"')
_IDS = re.compile(rb'"(?:messageId|toolCallId)"\s*:\s*"([^"\\]{0,200})(["\\])')


def _more_of(raw: bytes, opened: OpenMessage | None) -> bool:
    """Whether ``raw`` is surely one more chunk of ``opened`` (a message at its cap: the line
    would add nothing, so it need not be parsed). Keys are found only outside strings (a quote
    in a string is escaped); anything unusual (an escaped id, two ids) says no, and is parsed."""
    if opened is None or opened.kind not in _CHUNK_NAMES:
        return False
    kinds = _UPDATE_KIND.findall(raw)
    if kinds != [_CHUNK_NAMES[opened.kind]]:
        return False
    ids = _IDS.findall(raw)
    if opened.key is None:
        return not ids
    return len(ids) == 1 and ids[0][1] == b'"' and ids[0][0] == opened.key.encode()


def _piece(raw: bytes) -> Piece:
    try:
        return piece_of(_decode(raw.decode("utf-8", "surrogatepass")))
    except (ValueError, RecursionError):  # a torn or foreign line: skipped, as on replay
        return _NOTHING


def _skip_rest(handle: BinaryIO, length: int) -> tuple[int, bytes]:
    """Read past the rest of a long line: its whole length (-1 when it is not finished yet)
    and its last bytes."""
    last = b""
    while True:
        more = handle.readline(_SKIP_CHUNK)
        if not more:
            return -1, b""
        length += len(more)
        last = (last + more)[-_END_BYTES:]
        if more.endswith(b"\n"):
            return length, last
