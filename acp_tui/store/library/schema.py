"""Provides the history library's database: its schema, how it is opened, and what its errors mean.

One SQLite file (WAL, FTS5; Python's ``sqlite3``, nothing to install) under the data dir,
``library/index-v<SCHEMA_VERSION>.db``. The JSONL transcripts stay the record: everything here
can be rebuilt from them, except what the user set (local titles), which is also written beside
the transcripts (see ``acp_tui.store.library.sources``). The file name carries the schema
version, so an older or newer acp-tui never fights over one file: a new version builds its own
and removes the older ones.

Tables:

* ``agents``: one per agent key (the JSON argv, see ``agent_key_for``), with the name of its
  transcript folder, its display name and when its ``session/list`` was last recorded;
* ``sessions``: one per (agent, session id), merged from the agent's ``session/list`` and the
  local index (cwd, extra roots as a JSON array compared exactly, the agent's title, a local
  title, the first prompt, ``updatedAt`` as given and as epoch seconds for ordering, when it was
  last listed, whether a local copy exists);
* ``transcripts``: how far each local copy is indexed (inode, byte offset, lines, a digest of its
  head, the turn count and the message still open), so indexing resumes where it stopped;
* ``messages``, ``bodies`` and ``said`` (FTS5 over ``bodies``): the text of the local copies, one
  row per segment of a message (bounded): where it is (session, the line of the transcript
  where the message starts, turn, kind) apart from its text, so that walking the matches to
  find their sessions reads a narrow table;
* ``titles`` (FTS5): the shown title, cwd and extra roots of every session, for search, as
  plain text (``acp_plain``, a function every connection registers, used by the triggers).

Rows of ``messages`` are numbered in the order they were indexed (oldest sessions first when
built), so ``ORDER BY rowid DESC`` walks the matches newest first and can stop early.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

from acp_tui.store.library.text import plain

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "DatabaseTrouble",
    "connect",
    "database_path",
    "is_busy",
    "is_corrupt",
    "is_disk_trouble",
    "move_aside",
    "open_database",
    "remove_older_versions",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
APPLICATION_ID = 0x61637468  # "acth": tells our file from any other SQLite database
BUSY_TIMEOUT_MS = 10_000
"""How long a statement waits for another process's write (two acp-tui at once)."""
SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agents(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    dir TEXT NOT NULL UNIQUE,
    name TEXT,
    listed_at REAL
);
CREATE TABLE IF NOT EXISTS sessions(
    id INTEGER PRIMARY KEY,
    agent INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    file TEXT NOT NULL,
    cwd TEXT NOT NULL DEFAULT '',
    dirs TEXT NOT NULL DEFAULT '[]',
    title TEXT,
    local_title TEXT,
    first_prompt TEXT,
    updated_at TEXT,
    updated REAL NOT NULL DEFAULT 0,
    listed_at REAL,
    recorded INTEGER NOT NULL DEFAULT 0,
    UNIQUE(agent, session_id)
);
CREATE INDEX IF NOT EXISTS sessions_by_time ON sessions(updated DESC, id DESC);
CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions(agent, updated DESC, id DESC);
CREATE INDEX IF NOT EXISTS sessions_by_cwd ON sessions(cwd, updated DESC, id DESC);
CREATE INDEX IF NOT EXISTS sessions_by_sid ON sessions(session_id);
CREATE TABLE IF NOT EXISTS transcripts(
    session INTEGER PRIMARY KEY,
    inode INTEGER,
    offset INTEGER NOT NULL DEFAULT 0,
    lines INTEGER NOT NULL DEFAULT 0,
    head TEXT,
    turn INTEGER NOT NULL DEFAULT 0,
    echo INTEGER NOT NULL DEFAULT 0,
    open TEXT
);
CREATE TABLE IF NOT EXISTS messages(
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    line INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    kind INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session);
CREATE TABLE IF NOT EXISTS bodies(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS said USING fts5(
    body, content='bodies', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS bodies_added AFTER INSERT ON bodies BEGIN
    INSERT INTO said(rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER IF NOT EXISTS bodies_removed AFTER DELETE ON bodies BEGIN
    INSERT INTO said(said, rowid, body) VALUES ('delete', old.id, old.body);
END;
CREATE TRIGGER IF NOT EXISTS messages_removed AFTER DELETE ON messages BEGIN
    DELETE FROM bodies WHERE id = old.id;
END;
CREATE VIRTUAL TABLE IF NOT EXISTS titles USING fts5(
    title, cwd, dirs, tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS sessions_added AFTER INSERT ON sessions BEGIN
    INSERT INTO titles(rowid, title, cwd, dirs)
    VALUES (
        new.id,
        acp_plain(coalesce(new.local_title, new.title, new.first_prompt, '')),
        acp_plain(new.cwd),
        acp_plain(new.dirs)
    );
END;
CREATE TRIGGER IF NOT EXISTS sessions_retitled
AFTER UPDATE OF title, local_title, first_prompt, cwd, dirs ON sessions BEGIN
    DELETE FROM titles WHERE rowid = old.id;
    INSERT INTO titles(rowid, title, cwd, dirs)
    VALUES (
        new.id,
        acp_plain(coalesce(new.local_title, new.title, new.first_prompt, '')),
        acp_plain(new.cwd),
        acp_plain(new.dirs)
    );
END;
CREATE TRIGGER IF NOT EXISTS sessions_removed AFTER DELETE ON sessions BEGIN
    DELETE FROM titles WHERE rowid = old.id;
    DELETE FROM messages WHERE session = old.id;
    DELETE FROM transcripts WHERE session = old.id;
END;
"""


class DatabaseTrouble(Exception):
    """The library cannot be opened or written (a full disk, a read-only folder...)."""


def database_path(library_dir: Path) -> Path:
    return library_dir / f"index-v{SCHEMA_VERSION}.db"


def connect(path: Path, *, reader: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), usable from any one thread
    at a time; ``reader`` connections refuse writes."""
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA synchronous = NORMAL")  # WAL: an app crash loses nothing committed
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute(f"PRAGMA cache_size = {-2000 if reader else -8000}")  # KiB
    # The searchable titles are plain text, like the messages (the triggers use it).
    conn.create_function("acp_plain", 1, _plain, deterministic=True)
    if reader:
        conn.execute("PRAGMA query_only = 1")
    return conn


def _plain(value: Any) -> Any:
    return plain(value) if isinstance(value, str) else value


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and _code(exc) in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


def is_disk_trouble(exc: BaseException) -> bool:
    """A full disk, an I/O error or a folder we may not write: indexing stops, chat goes on."""
    return isinstance(exc, sqlite3.Error) and _code(exc) in (
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PERM,
    )


def is_corrupt(exc: BaseException) -> bool:
    """The file is damaged or not ours: it is moved aside and the library rebuilt."""
    return isinstance(exc, sqlite3.DatabaseError) and _code(exc) in (
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_NOTADB,
    )


def _code(exc: BaseException) -> int:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else -1


def open_database(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """The library's writer connection, the schema in place; and a notice when a damaged or
    foreign file had to be moved aside first (said once, the library is then rebuilt).

    Raises `DatabaseTrouble` when the database cannot be created or written.
    """
    notice: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        problem = _foreign_file(path)
        if problem is None:
            try:
                return _opened(path), None
            except sqlite3.DatabaseError as exc:
                if not is_corrupt(exc) and not isinstance(exc, _NotOurs):
                    raise
                problem = str(exc)
        aside = move_aside(path)
        notice = (
            f"The history index at {path} could not be used ({problem}); it was moved to "
            f"{aside.name} and is being rebuilt from the local transcripts."
        )
        log.warning("%s", notice)
        return _opened(path), notice
    except (sqlite3.Error, OSError) as exc:
        raise DatabaseTrouble(str(exc)) from exc


class _NotOurs(sqlite3.DatabaseError):
    """A SQLite database, but another program's."""


def _foreign_file(path: Path) -> str | None:
    """Why the file at ``path`` is not a SQLite database at all (None: it is, or is absent or
    empty, e.g. just created by another acp-tui)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return None
    if head and head != SQLITE_MAGIC[: len(head)]:
        return "not a SQLite database"
    return None


def _opened(path: Path) -> sqlite3.Connection:
    conn = connect(path)
    try:
        _check_ours(conn)
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA journal_size_limit = 67108864")
        conn.execute("BEGIN IMMEDIATE")
        try:
            _check_ours(conn)  # again, inside the lock: another process may have just made it
            _create(conn)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
    except BaseException:
        conn.close()
        raise
    return conn


def _create(conn: sqlite3.Connection) -> None:
    """Create what is missing, statement by statement (``executescript`` would commit)."""
    statement = ""
    for line in _SCHEMA.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""


def _check_ours(conn: sqlite3.Connection) -> None:
    """Raise `_NotOurs` for another program's database or another schema version of ours."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id == APPLICATION_ID and version == SCHEMA_VERSION:
        return
    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if app_id == 0 and version == 0 and tables == 0:
        return  # new and empty
    what = "another program's database" if app_id != APPLICATION_ID else f"version {version}"
    raise _NotOurs(what)


def move_aside(path: Path) -> Path:
    """Rename the damaged file (and its WAL) out of the way; an older one aside is replaced."""
    aside = path.with_name(path.name + ".damaged")
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, aside)
    for suffix in ("-wal", "-shm"):  # they belong to the damaged file: never replay them
        with contextlib.suppress(OSError):
            Path(str(path) + suffix).unlink()
    return aside


def remove_older_versions(library_dir: Path) -> None:
    """Delete the files of older schema versions (derived data; this version rebuilt it)."""
    current = database_path(library_dir).name
    for old in library_dir.glob("index-v*.db*"):
        stem = old.name.split(".db", 1)[0]
        version = stem.removeprefix("index-v")
        if old.name.startswith(current) or not version.isdigit():
            continue
        if int(version) < SCHEMA_VERSION:
            with contextlib.suppress(OSError):
                old.unlink()
