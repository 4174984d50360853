"""Provides Library: every session of every agent, and what was said in them, in one local index.

The UI and the headless commands use this one object::

    library = Library.under(paths.data_dir, on_notice=..., on_status=...)
    library.start()                 # opens, builds or catches up, in a thread of its own
    cache = TranscriptCache(paths.data_dir / "transcripts", library=library)  # live indexing

    library.record_page(agent_key, page.sessions, agent_name="claude")   # writes: Futures
    library.set_local_title(agent_key, session_id, "Release notes")
    page = library.rows(Filters(cwd=str(project)), limit=100)           # reads: blocking,
    found = library.search("lighthouse", Filters(), limit=50, cancel=ev) # call them off-loop

Writes are queued to the writer thread (`acp_tui.store.library.worker`) and return a
``concurrent.futures.Future`` (``asyncio.wrap_future`` awaits one). Reads run on the calling
thread with a connection of their own (WAL: they never wait for the writer); the UI calls them
from a worker thread, a headless command directly. Nothing here raises into a caller for a disk
or database problem: reads give empty results, writes fail their future, and the user is told
once through ``on_notice``.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from acp_tui.store.library import schema
from acp_tui.store.library.query import parse_query
from acp_tui.store.library.rows import (
    Filters,
    LibraryRow,
    ListedSession,
    RowCursor,
    RowsPage,
    agent_id,
    find_row,
    forget_unlisted,
    note_local,
    query_rows,
    record_listed,
    session_row_id,
)
from acp_tui.store.library.search import SearchCancelled, SearchResults, search
from acp_tui.store.library.sources import TITLE_CHARS, read_user_data, write_user_data
from acp_tui.store.library.worker import LibraryStatus, Worker
from acp_tui.store.names import agent_dir_name
from acp_tui.store.sessions import CachedSession

__all__ = ["Library"]

log = logging.getLogger(__name__)

READERS = 3
"""Reader connections kept open (more are opened while more threads read at once)."""
OPEN_WAIT = 2.0
"""How long a read waits for the writer to open the database (and create its schema)."""

T = TypeVar("T")


class Library:
    """The history library (see the module docstring); a `LibraryFeed` for the cache."""

    def __init__(
        self,
        library_dir: Path,
        transcripts_root: Path,
        *,
        on_notice: Callable[[str], None] | None = None,
        on_status: Callable[[LibraryStatus], None] | None = None,
    ) -> None:
        self.library_dir = library_dir
        self.root = transcripts_root
        self.db_path = schema.database_path(library_dir)
        self.worker = Worker(
            self.db_path, transcripts_root, on_status=on_status, on_notice=on_notice
        )
        self._readers: list[tuple[int, sqlite3.Connection]] = []
        self._lock = threading.Lock()

    @classmethod
    def under(
        cls,
        data_dir: Path,
        *,
        on_notice: Callable[[str], None] | None = None,
        on_status: Callable[[LibraryStatus], None] | None = None,
    ) -> Library:
        """The library of the data dir (beside its ``transcripts``)."""
        return cls(
            data_dir / "library", data_dir / "transcripts", on_notice=on_notice, on_status=on_status
        )

    # -- life --------------------------------------------------------------------------------

    def start(self) -> None:
        """Open and build in the background (returns at once)."""
        self.worker.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the writer after its current step, and close every connection."""
        self.worker.stop(timeout)
        with self._lock:
            readers, self._readers = self._readers, []
        for _, conn in readers:
            conn.close()

    @property
    def status(self) -> LibraryStatus:
        return self.worker.status

    def sync(self, timeout: float | None = None) -> bool:
        """Index what was recorded so far, now, and wait until it is (see ``Worker.sync``)."""
        return self.worker.sync(timeout)

    def wait_built(self, timeout: float | None = None) -> bool:
        """Wait until the first build is done (or failed); whether it finished in time."""
        return self.worker.built.wait(timeout)

    # -- the feed (called by the transcript cache as it records; cheap, never raises) -------

    def touched(self, agent_key: str, session_id: str, *, soon: bool = False) -> None:
        self.worker.touched(agent_key, session_id, soon=soon)

    def noted(self, agent_key: str, session: CachedSession) -> None:
        self.worker.submit(lambda c: note_local(c, agent_id(c, agent_key), session))

    def forgotten(self, agent_key: str, session_id: str) -> None:
        self.forget(agent_key, session_id)

    # -- writes ------------------------------------------------------------------------------

    def record_page(
        self,
        agent_key: str,
        sessions: Sequence[ListedSession],
        *,
        agent_name: str | None = None,
        listed_at: float | None = None,
    ) -> Future[int]:
        """Merge one page of the agent's ``session/list`` (``listed_at``: when the listing
        began, default now); how many sessions were new. A new one with a local copy is
        indexed too."""
        page = list(sessions)
        when = listed_at if listed_at is not None else time.time()
        folder = self.root / agent_dir_name(agent_key)

        def job(conn: sqlite3.Connection) -> int:
            agent = agent_id(conn, agent_key, agent_name)
            new = record_listed(conn, agent, page, when) if page else []
            for sid, name in conn.execute(
                f"SELECT session_id, file FROM sessions WHERE id IN ({','.join('?' * len(new))})",
                new,
            ).fetchall():
                if (folder / f"{name}.jsonl").exists():
                    self.worker.touched(agent_key, sid, soon=True)
            return len(new)

        return self.worker.submit(job)

    def finish_listing(
        self, agent_key: str, started_at: float, *, cwd: str | None = None
    ) -> Future[int]:
        """A listing of ``cwd`` (None: every directory) begun at ``started_at`` went through
        every page: sessions it did not show are gone from the agent; how many."""
        return self.worker.submit(
            lambda c: forget_unlisted(c, agent_id(c, agent_key), started_at, cwd)
        )

    def set_local_title(self, agent_key: str, session_id: str, title: str | None) -> Future[None]:
        """Rename a session here (it wins over the agent's title); None or blank clears it."""
        clean = " ".join(title.split())[:TITLE_CHARS] if title else ""
        folder = self.root / agent_dir_name(agent_key)

        def job(conn: sqlite3.Connection) -> None:
            data = read_user_data(folder)
            data.key = agent_key
            if clean:
                data.titles[session_id] = clean
            else:
                data.titles.pop(session_id, None)
            write_user_data(folder, data)  # the record first: a rebuild keeps it
            session = session_row_id(conn, agent_id(conn, agent_key), session_id)
            conn.execute(
                "UPDATE sessions SET local_title = ? WHERE id = ?", (clean or None, session)
            )

        return self.worker.submit(job)

    def name_agents(self, names: Mapping[str, str]) -> Future[None]:
        """Remember the display names of agents by key (the configured names)."""
        given = dict(names)

        def job(conn: sqlite3.Connection) -> None:
            for key, name in given.items():
                known = conn.execute("SELECT name FROM agents WHERE key = ?", (key,)).fetchone()
                if known is not None and known[0] == name:
                    continue
                agent_id(conn, key, name)
                folder = self.root / agent_dir_name(key)
                if folder.is_dir():
                    data = read_user_data(folder)
                    data.key, data.name = key, name
                    write_user_data(folder, data)

        return self.worker.submit(job)

    def forget(self, agent_key: str, session_id: str) -> Future[None]:
        """Take a (deleted) session out of the library, with its local title. Its local copy
        is the cache's to remove (``TranscriptCache.forget`` does both)."""
        self.worker.forget_place(agent_key, session_id)
        folder = self.root / agent_dir_name(agent_key)

        def job(conn: sqlite3.Connection) -> None:
            data = read_user_data(folder)
            if data.titles.pop(session_id, None) is not None:
                write_user_data(folder, data)
            conn.execute(
                "DELETE FROM sessions WHERE session_id = ? AND agent = "
                "(SELECT id FROM agents WHERE key = ?)",
                (session_id, agent_key),
            )
            # Its row is gone only now: the thread may have looked it up again since the call
            # (a line recorded meanwhile), and would go on indexing into the deleted row.
            self.worker.drop_place(agent_key, session_id)

        return self.worker.submit(job)

    # -- reads (blocking: call them off the event loop) ------------------------------------

    def rows(
        self,
        filters: Filters = Filters(),  # noqa: B008 - frozen
        *,
        limit: int = 100,
        after: RowCursor | None = None,
    ) -> RowsPage:
        """A page of every agent's sessions, newest first (empty while nothing is indexed)."""
        return self._read(
            lambda c: query_rows(c, filters, limit=limit, after=after), RowsPage([], None)
        )

    def row(self, agent_key: str, session_id: str) -> LibraryRow | None:
        """One session's row, if the library knows it."""
        return self._read(lambda c: find_row(c, agent_key, session_id), None)

    def search(
        self,
        text: str,
        filters: Filters = Filters(),  # noqa: B008 - frozen
        *,
        limit: int = 50,
        cancel: threading.Event | None = None,
    ) -> SearchResults:
        """Sessions by id, title, what was said or directory (see ``search``); raises
        ``SearchCancelled`` once ``cancel`` is set."""
        return self._read(
            lambda c: search(c, text, filters, limit=limit, cancel=cancel),
            SearchResults(parse_query(text), [], False),
        )

    def _read(self, read: Callable[[sqlite3.Connection], T], default: T) -> T:
        """``read(connection)`` with a reader connection; ``default`` when there is no
        database yet or it cannot be read (said in the log)."""
        if self.worker.started:
            self.worker.opened.wait(OPEN_WAIT)
        generation = self.worker.generation
        with self._lock:
            while self._readers and self._readers[-1][0] != generation:
                self._readers.pop()[1].close()  # the file was replaced since
            conn = self._readers.pop()[1] if self._readers else None
        if conn is None:
            if not self.db_path.exists():
                return default
            try:
                conn = schema.connect(self.db_path, reader=True)
            except sqlite3.Error as exc:
                log.warning("cannot read the history index: %s", exc)
                return default
        try:
            result = read(conn)
        except SearchCancelled:
            self._give_back(generation, conn)
            raise
        except sqlite3.Error as exc:
            level = logging.DEBUG if "no such table" in str(exc) else logging.WARNING
            log.log(level, "cannot read the history index: %s", exc)
            conn.close()
            return default
        self._give_back(generation, conn)
        return result

    def _give_back(self, generation: int, conn: sqlite3.Connection) -> None:
        with self._lock:
            if len(self._readers) < READERS and generation == self.worker.generation:
                self._readers.append((generation, conn))
                return
        conn.close()
