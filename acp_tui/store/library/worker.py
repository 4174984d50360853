"""Provides Worker: the library's one writer, a thread that builds the index, follows what is
recorded, and applies the writes the UI asks for.

Everything the app writes to the database runs here, one short transaction at a time, so the
event loop never waits for SQLite and never holds the GIL long on its behalf (SQLite releases it
in its C calls; the Python work per step is bounded by ``catchup.BATCH_LINES``); a big first
build runs in a child process instead (see `ChildBuild`), this thread relaying its progress.
Priorities: the UI's writes first (a rename, a listed page), then the transcripts being
recorded, then the build, which yields to both between steps.

* **Build** (at start, and after any trouble): every agent folder's local index and library
  file are merged into the database, then every transcript is caught up, oldest session first
  (so the newest text gets the highest row numbers), with progress. On a complete database it
  only checks sizes: a second or so for ten thousand sessions.
* **Live**: ``touched`` marks a transcript; it is indexed `DEBOUNCE` seconds later (at once
  when a turn ends), so a streaming reply costs a few passes a second, not one per chunk. A
  copy rewritten whole with more than `ASIDE_BYTES` to index (a replay replacing it) waits
  until its writing pauses and goes to a child process, as a big build does.
* **Trouble**: a full disk (or any write error) stops indexing with one notice and is retried
  every `RETRY_AFTER` seconds; a damaged file is moved aside and rebuilt (one notice); "database
  is locked" (another acp-tui writing for longer than the busy timeout) is retried quietly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from acp_tui.store.library import schema
from acp_tui.store.library.build import BuildPlan, build_lock, plan_build
from acp_tui.store.library.build_child import CHILD_BYTES, ChildBuild
from acp_tui.store.library.catchup import catch_up_step, pending_text
from acp_tui.store.library.rows import agent_id, session_row_id
from acp_tui.store.names import agent_dir_name, transcript_name

__all__ = ["DEBOUNCE", "LibraryStatus", "Worker"]

log = logging.getLogger(__name__)

DEBOUNCE = 0.5
ASIDE_BYTES = 1_000_000
"""A copy rewritten whole with this much to index is indexed in a child process (~0.1 s of
another core to start), not in the app's (~70 ms of the GIL a MB of replayed chunks)."""
MAX_WAIT = 5.0
"""How long such a transcript may wait, at most, for its writing to pause."""
RETRY_AFTER = 60.0
PROGRESS_EVERY = 0.2

Job = Callable[[sqlite3.Connection], Any]
State = Literal["starting", "building", "ready", "stopped", "closed"]


@dataclass(frozen=True, slots=True)
class LibraryStatus:
    """What the library is doing, for a status line."""

    state: State = "starting"
    sessions_done: int = 0
    sessions_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0
    trouble: str | None = None
    """Why indexing stopped (state ``stopped``)."""

    def describe(self) -> str:
        """How far the library is, for a status line ("" once it is ready, or closed)."""
        if self.state == "building" and self.sessions_total:
            done, total = self.sessions_done, self.sessions_total
            percent = 100 * self.bytes_done // self.bytes_total if self.bytes_total else 100
            return f"indexing the local history: {done} of {total} sessions ({percent}%)…"
        if self.state in ("starting", "building"):
            return "opening the history library…"
        if self.state == "stopped":
            return f"the history library cannot be used: {self.trouble}"
        return ""


class _Stopping(Exception):
    pass


class Worker:
    """The writer thread (see the module docstring)."""

    def __init__(
        self,
        db_path: Path,
        transcripts_root: Path,
        *,
        on_status: Callable[[LibraryStatus], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.db_path = db_path
        self.root = transcripts_root
        self.on_status = on_status
        self.on_notice = on_notice
        self.status = LibraryStatus()
        self.opened = threading.Event()
        """Set once the database is open with its schema (or could not be)."""
        self.built = threading.Event()
        """Set once the first build is done (or could not be)."""
        self._cond = threading.Condition()
        self._jobs: deque[tuple[Job, Future[Any]]] = deque()
        self._dirty: dict[tuple[str, str], float] = {}
        self._places: dict[tuple[str, str], tuple[int, Path]] = {}
        self._growing: dict[tuple[str, str], tuple[int, float]] = {}
        """Long rewrites waiting for their writing to pause: (size seen, since when)."""
        self._rewrites: set[tuple[str, str]] = set()
        """Transcripts rewritten whole, indexed aside while they grow by much (see
        `_goes_aside`)."""
        self._conn: sqlite3.Connection | None = None
        self._stopping = False
        self._need_build = True
        self._idle_waiters: list[threading.Event] = []
        self._noticed: set[str] = set()
        self._last_status = 0.0
        self._thread: threading.Thread | None = None
        self._aside = False
        """A child process builds meanwhile (see `_build_aside`)."""
        self.generation = 0
        """Counts the database files opened: a reader of an older one reconnects."""

    # -- any thread --------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="history-library", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the step under way and stop (what is left is indexed at the next start)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def touched(self, agent_key: str, session_id: str, *, soon: bool = False) -> None:
        """Index this transcript's new lines shortly (cheap: called per recorded update)."""
        key = (agent_key, session_id)
        if not soon and key in self._dirty:
            # Due already (the usual case: every chunk of a streaming reply): nothing to
            # change, so no lock. Without the lock the thread may take the key meanwhile, as
            # it may with it just after; the line is then indexed at the next touch or the
            # turn's end, which touches ``soon``.
            return
        with self._cond:
            due = self._dirty.get(key)
            if due is not None and not soon:
                return
            when = time.monotonic() + (0.0 if soon else DEBOUNCE)
            self._dirty[key] = when if due is None else min(due, when)
            self._cond.notify_all()

    def submit(self, job: Job) -> Future[Any]:
        """Run ``job(connection)`` in a write transaction on the thread; its result."""
        future: Future[Any] = Future()
        with self._cond:
            if self._stopping:
                future.set_exception(schema.DatabaseTrouble("the history library is closed"))
                return future
            self._jobs.append((job, future))
            self._cond.notify_all()
        return future

    def sync(self, timeout: float | None = None) -> bool:
        """Index everything touched so far now, and wait until it is (and the build, and the
        writes queued before) are done; whether that happened within ``timeout``."""
        idle = threading.Event()
        with self._cond:
            alive = self._thread is not None and self._thread.is_alive()
            if not alive or self.status.state == "stopped":
                return False
            for key in self._dirty:
                self._dirty[key] = 0.0
            self._idle_waiters.append(idle)
            self._cond.notify_all()
        return idle.wait(timeout) and self.status.state not in ("stopped", "closed")

    def forget_place(self, agent_key: str, session_id: str) -> None:
        with self._cond:
            self._places.pop((agent_key, session_id), None)
            self._dirty.pop((agent_key, session_id), None)
            self._growing.pop((agent_key, session_id), None)
            self._rewrites.discard((agent_key, session_id))

    def drop_place(self, agent_key: str, session_id: str) -> None:
        """Look the session's row up afresh next time (its row was deleted): lines recorded
        since are indexed into the row it gets again."""
        with self._cond:
            self._places.pop((agent_key, session_id), None)

    # -- the thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping:
                try:
                    self._work()
                except _Stopping:
                    break
                except (sqlite3.Error, schema.DatabaseTrouble, OSError) as exc:
                    self._trouble(exc)
                except Exception:
                    log.exception("the history library failed; retrying in a minute")
                    self._pause(RETRY_AFTER)
        finally:
            self._fail_jobs(schema.DatabaseTrouble("the history library is closed"))
            with self._cond:
                self._release_waiters()
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None
            self._set_status(replace(self.status, state="closed"), force=True)
            self.opened.set()
            self.built.set()

    def _work(self) -> None:
        if self._conn is None:
            self._conn, notice = schema.open_database(self.db_path)
            self.generation += 1
            with contextlib.suppress(OSError):
                schema.remove_older_versions(self.db_path.parent)
            if notice is not None:
                self._notice("damaged", notice)
            self.opened.set()
        if self._need_build:
            self._build(self._conn)
            self._need_build = False
            self.built.set()
            self._set_status(LibraryStatus("ready"), force=True)
        self._serve(self._conn, wait=True)

    def _build(self, conn: sqlite3.Connection) -> None:
        with build_lock(self.db_path.parent) as lock:
            while not lock.acquire():  # another acp-tui builds: serve meanwhile, then check
                self._serve(conn, wait=True, at_most=2.0)
            self._set_status(LibraryStatus("building"), force=True)
            plan: BuildPlan = self._transaction(conn, lambda c: plan_build(c, self.root))
            if plan.bytes >= CHILD_BYTES and self._build_aside(conn):
                plan = self._transaction(conn, lambda c: plan_build(c, self.root))  # what is left
            done_bytes = 0
            for number, (session, path) in enumerate(plan.transcripts):
                while True:
                    step = catch_up_step(conn, session, path)
                    done_bytes += step.read
                    self._set_status(
                        LibraryStatus(
                            "building", number, len(plan.transcripts), done_bytes, plan.bytes
                        )
                    )
                    self._serve(conn, wait=False)
                    if step.done:
                        break

    def _build_aside(
        self, conn: sqlite3.Connection, only: list[tuple[int, Path]] | None = None
    ) -> bool:
        """Build in a child process (see `ChildBuild`; ``only`` these transcripts), serving
        the app's writes meanwhile; whether it ran to its end (False: it could not start, or
        failed: what it left is indexed here)."""
        child = ChildBuild.start(self.db_path, self.root, only)
        if child is None:
            return False
        self._aside = True
        try:
            while not child.finished:
                progress = child.progress(PROGRESS_EVERY)
                if progress is not None and only is None:
                    self._set_status(LibraryStatus("building", *progress), force=True)
                self._serve(conn, wait=False)
        finally:
            self._aside = False
            child.stop()
        return child.error is None and child.process.returncode == 0

    def _serve(self, conn: sqlite3.Connection, *, wait: bool, at_most: float = 5.0) -> None:
        """Run the queued jobs and index the transcripts due; with ``wait``, first wait for
        something to do (at most ``at_most`` seconds)."""
        if wait:
            with self._cond:
                if not self._jobs and not self._stopping and not self._idle_waiters:
                    due = min(self._dirty.values(), default=None)
                    left = at_most if due is None else due - time.monotonic()
                    delay = max(0.0, min(at_most, left))
                    if delay > 0:
                        self._cond.wait(delay)
        self._run_jobs(conn)
        now = time.monotonic()
        with self._cond:
            ready = [key for key, due in self._dirty.items() if due <= now]
            for key in ready:
                del self._dirty[key]
        for key in ready:
            self._index_live(conn, key)
        if wait and not self._need_build:  # the build is done
            with self._cond:
                if not self._jobs and not self._dirty_due():
                    self._release_waiters()

    def _release_waiters(self) -> None:
        """Wake every ``sync`` (with the lock held)."""
        for idle in self._idle_waiters:
            idle.set()
        self._idle_waiters.clear()

    def _dirty_due(self) -> bool:
        now = time.monotonic()
        return any(due <= now for due in self._dirty.values())

    def _run_jobs(self, conn: sqlite3.Connection) -> None:
        while True:
            with self._cond:
                if self._stopping:
                    raise _Stopping
                if not self._jobs:
                    return
                job, future = self._jobs.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = self._transaction(conn, job)
            except BaseException as exc:
                future.set_exception(exc)
                if isinstance(exc, sqlite3.Error | schema.DatabaseTrouble):
                    raise
            else:
                future.set_result(result)

    def _index_live(self, conn: sqlite3.Connection, key: tuple[str, str]) -> None:
        place = self._places.get(key)
        if place is None:
            agent_key, session_id = key

            def locate(c: sqlite3.Connection) -> int:
                return session_row_id(c, agent_id(c, agent_key), session_id)

            path = self.root / agent_dir_name(agent_key) / f"{transcript_name(session_id)}.jsonl"
            place = (self._transaction(conn, locate), path)
            with self._cond:
                self._places[key] = place
        session, path = place
        if self._goes_aside(key, *pending_text(conn, session, path)):
            # A long copy rewritten whole (the agent's replay replacing it): parsed here, it
            # would take the GIL from the event loop for seconds, in turns. A child process
            # indexes it once it stops growing (at most every `MAX_WAIT` seconds meanwhile).
            if self._aside or self._still_written(key, path):
                self._later(key)
                return
            done = self._build_aside(conn, [(session, path)])
            if done and pending_text(conn, session, path)[0] >= ASIDE_BYTES:
                self._later(key)  # it grew that much meanwhile: the same way again
                return
        self._growing.pop(key, None)
        self._rewrites.discard(key)
        while not catch_up_step(conn, session, path).done:
            self._run_jobs(conn)

    def _goes_aside(self, key: tuple[str, str], pending: int, replaced: bool) -> bool:
        """Whether a child process should index this transcript: more than `CHILD_BYTES`
        to index, or more than `ASIDE_BYTES` of a copy rewritten whole (until a look finds
        it small: a replay goes on appending to it). A reply recorded live is appended to
        the copy indexed, and stays here: past its cap, its chunks cost next to nothing."""
        if pending >= CHILD_BYTES or (
            pending >= ASIDE_BYTES and (replaced or key in self._rewrites)
        ):
            self._rewrites.add(key)
            return True
        return False

    def _still_written(self, key: tuple[str, str], path: Path) -> bool:
        """Whether the transcript grew since it was last looked at here (the first look
        says yes), for at most `MAX_WAIT` seconds; never while a ``sync`` waits."""
        with self._cond:
            if self._idle_waiters:
                return False
        try:
            size = os.stat(path).st_size
        except OSError:
            return False
        now = time.monotonic()
        seen = self._growing.get(key)
        if seen is not None and (size == seen[0] or now - seen[1] >= MAX_WAIT):
            del self._growing[key]
            return False
        self._growing[key] = (size, seen[1] if seen is not None else now)
        return True

    def _later(self, key: tuple[str, str]) -> None:
        """Look at this transcript again in `DEBOUNCE` seconds."""
        with self._cond:
            self._dirty[key] = time.monotonic() + DEBOUNCE

    def _transaction(self, conn: sqlite3.Connection, job: Job) -> Any:
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = job(conn)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        return result

    # -- trouble -----------------------------------------------------------------------------

    def _trouble(self, exc: BaseException) -> None:
        self._need_build = True  # whatever was missed is caught up after the trouble
        if schema.is_busy(exc):
            log.debug("the history library is busy (another acp-tui writing): %s", exc)
            self._pause(1.0)
            return
        if schema.is_corrupt(exc):
            self._close()
            aside = schema.move_aside(self.db_path)
            self._notice(
                "damaged",
                f"The history index was damaged ({exc}); it was moved to {aside.name} and is "
                "being rebuilt from the local transcripts.",
            )
            return
        if isinstance(exc, schema.DatabaseTrouble | OSError) or schema.is_disk_trouble(exc):
            reason = str(exc) or type(exc).__name__
            self._set_status(LibraryStatus("stopped", trouble=reason), force=True)
            self._notice(
                "disk",
                f"History indexing stopped: {reason}. Chat and recording go on; indexing "
                "resumes once the index can be written again.",
            )
            self.opened.set()
            self.built.set()
            self._fail_jobs(schema.DatabaseTrouble(reason))
            self._close()
            with self._cond:
                self._release_waiters()  # nothing more will be indexed until the retry
            self._pause(RETRY_AFTER)
            return
        log.warning("the history library skipped some work: %s", exc)
        self._pause(1.0)

    def _close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None
        with self._cond:
            self._places.clear()

    def _pause(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        with self._cond:
            while not self._stopping and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)

    def _fail_jobs(self, exc: BaseException) -> None:
        with self._cond:
            jobs, self._jobs = list(self._jobs), deque()
        for _, future in jobs:
            if future.set_running_or_notify_cancel():
                future.set_exception(exc)

    def _notice(self, kind: str, text: str) -> None:
        """Tell the user once per kind of trouble (a retry that fails again says nothing)."""
        if kind in self._noticed:
            return
        self._noticed.add(kind)
        log.warning("%s", text)
        if self.on_notice is not None:
            try:
                self.on_notice(text)
            except Exception:
                log.exception("the history library's notice listener failed")

    def _set_status(self, status: LibraryStatus, *, force: bool = False) -> None:
        self.status = status
        now = time.monotonic()
        if self.on_status is None or (not force and now - self._last_status < PROGRESS_EVERY):
            return
        self._last_status = now
        try:
            self.on_status(status)
        except Exception:
            log.exception("the history library's status listener failed")
