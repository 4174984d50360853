"""Provides TranscriptCache: the client's own record of its sessions, per agent, on disk.

Agents that can resume but not load a session cannot replay its history; a client that keeps its
own transcript can (proposal 002). Layout under the root (default
``<data_dir>/transcripts``)::

    <sha256(agent key)[:24]>/index.json            the sessions (see acp_tui.store.sessions)
    <sha256(agent key)[:24]>/<sha256(id)[:32]>.jsonl  one session's events, appended
    <sha256(agent key)[:24]>/marks.json            unused sessions, forks' titles (store.marks)

Names are hashes, so neither a hostile session id nor an agent command can reach outside the
root. Each line of a transcript file is one event, written and flushed as it happens::

    {"t": "update", "update": <SessionUpdate wire object>}
    {"t": "user", "blocks": [<ContentBlock wire object>, ...]}
    {"t": "end", "stopReason": "end_turn"}

``user`` events are the prompts the client sent (v1 agents do not echo them in live turns);
``end`` marks where a prompt turn ended, so that a replay splits the messages where the live
transcript did (see ``acp_tui.store.recorded``). A crash can only tear the last line; readers
skip it and the next write starts a fresh line.
Recording never raises into the caller for disk errors: it logs one warning and carries on.

While a session is being restored (`session/load` replays the whole history, and some agents
replay on `session/resume` too), its events are recorded *aside*, in ``<name>.jsonl.restore``:
:meth:`TranscriptCache.end_aside` then swaps that file in (the agent replayed: it replaces the
old copy) or appends it (it did not), and :meth:`~TranscriptCache.discard_aside` drops it (the
restore failed or the agent died half-way). The local copy is never wiped by a failed replay.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import TypeAdapter, ValidationError

from acp_tui.config.atomic import write_atomic
from acp_tui.config.paths import get_paths
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.updates import SessionUpdate
from acp_tui.store.background import BIG_WRITE, BackgroundWrites
from acp_tui.store.feed import LibraryFeed
from acp_tui.store.marks import SessionMarks
from acp_tui.store.names import agent_dir_name, transcript_name
from acp_tui.store.recorded import (
    RecordedEvent,
    RecordedTurnEnd,
    RecordedUpdate,
    RecordedUser,
    parse_line,
)
from acp_tui.store.sessions import (
    CachedSession,
    merged,
    newest_first,
    prompt_title,
    read_index,
    utc_now_iso,
    write_index,
)
from acp_tui.store.tail import Tail, read_tail

__all__ = [
    "CachedSession",
    "RecordedEvent",
    "RecordedTurnEnd",
    "RecordedUpdate",
    "RecordedUser",
    "Tail",
    "TranscriptCache",
    "feed_event",
    "warm_up_replay",
]

log = logging.getLogger(__name__)

OPEN_TRANSCRIPTS = 8
"""How many session transcripts stay open for appending at once."""


def warm_up_replay() -> None:
    """Build the models that read recorded events (~50 ms), ahead of the first replay (call it
    on a thread, after the first frame)."""
    _adapters()


@functools.cache
def _adapters() -> tuple[TypeAdapter[SessionUpdate], TypeAdapter[list[ContentBlock]]]:
    """Built on first replay, not at import (they are costly and the app starts without them)."""
    return TypeAdapter(SessionUpdate), TypeAdapter(list[ContentBlock])


class _Unset(Enum):
    UNSET = 0


_UNSET = _Unset.UNSET


def _update_line(update_json: str) -> list[bytes]:
    """The recorded line of an update serialised as JSON, in parts (a 50 MB update is not
    copied into one more buffer); raises ValueError when it cannot be written (a lone
    surrogate in an agent's string is kept as a JSON escape)."""
    try:
        body = [
            update_json[start : start + BIG_WRITE].encode("utf-8")
            for start in range(0, len(update_json), BIG_WRITE)
        ]
    except UnicodeError:
        body = [json.dumps(json.loads(update_json), separators=(",", ":")).encode("ascii")]
    return [b'{"t":"update","update":', *body, b"}\n"]


class TranscriptCache:
    """Recorded sessions of every agent under ``root``; cheap appends, a small index."""

    def __init__(self, root: Path | None = None, *, library: LibraryFeed | None = None) -> None:
        self.root = root if root is not None else get_paths().data_dir / "transcripts"
        self.library = library
        """Told of every change, to index it (``acp_tui.store.library``); None: not indexed."""
        self.failures = 0
        """How many writes failed (the first one is logged as a warning, the rest at debug)."""
        self.failing: str | None = None
        """Why the last write failed, while writes fail (None: recording works)."""
        self.on_trouble: Callable[[str | None], None] | None = None
        """Told why recording stopped, once, and None once it works again."""
        self._clean_tail: set[Path] = set()
        # A few transcripts stay open (flushed after every line, so an app crash loses
        # nothing): opening the file per update dominated the cost of recording a replay.
        self._open: OrderedDict[Path, BinaryIO] = OrderedDict()
        self._paths: dict[tuple[str, str], Path] = {}
        self._aside: dict[tuple[str, str], Path] = {}
        """Sessions being restored: where their events go meanwhile (see the module doc)."""
        self._background = BackgroundWrites()
        """Big lines, and the lines after them while they are written (in order)."""
        self._titles: dict[str, dict[str, str]] = {}
        """Each agent's local titles, as read (or last set) here."""
        self.marks = SessionMarks(self.agent_dir, self._failed)
        """The sessions created here and never used, and those titled "Fork of …" here."""

    # -- where ---------------------------------------------------------------------------------

    def agent_dir(self, agent_key: str) -> Path:
        return self.root / agent_dir_name(agent_key)

    def index_path(self, agent_key: str) -> Path:
        return self.agent_dir(agent_key) / "index.json"

    def transcript_path(self, agent_key: str, session_id: str) -> Path:
        """The file of a session's recorded events (the aside file while it is restored)."""
        key = (agent_key, session_id)
        if self._aside:
            aside = self._aside.get(key)
            if aside is not None:
                return aside
        return self._main_path(key)

    def _main_path(self, key: tuple[str, str]) -> Path:
        agent_key, session_id = key
        path = self._paths.get(key)
        if path is None:  # hashing and joining per streamed update showed in profiles
            if len(self._paths) > 4096:
                self._paths.clear()
            name = f"{transcript_name(session_id)}.jsonl"
            path = self._paths[key] = self.agent_dir(agent_key) / name
        return path

    # -- recording -----------------------------------------------------------------------------

    def record_update(
        self, agent_key: str, session_id: str, update_wire: dict[str, Any], *, flush: bool = True
    ) -> None:
        """Append one `session/update` (the ``update`` wire object).

        ``flush=False`` batches lines in the file buffer (a replay the agent can repeat); call
        :meth:`flush` when the batch ends.
        """
        self._append(agent_key, session_id, {"t": "update", "update": update_wire}, flush=flush)

    def record_update_json(
        self, agent_key: str, session_id: str, update_json: str, *, flush: bool = True
    ) -> None:
        """Append one `session/update` already serialised as a JSON object (the fast path; a
        big one is encoded and written off the event loop, see ``BackgroundWrites``)."""
        path = self.transcript_path(agent_key, session_id)
        if self.library is not None:
            self.library.touched(agent_key, session_id)
        if len(update_json) > BIG_WRITE:
            self._write_line(
                path, lambda: _update_line(update_json), flush=flush, key=(agent_key, session_id)
            )
            return
        try:
            line = b"".join(_update_line(update_json))
        except (TypeError, ValueError) as exc:
            self._failed(f"could not record to {path}", exc)
            return
        self._write_line(path, line, flush=flush, key=(agent_key, session_id))

    def flush(self, agent_key: str, session_id: str) -> None:
        """Write out what ``record_update(..., flush=False)`` buffered."""
        self._background.settle()
        handle = self._open.get(self.transcript_path(agent_key, session_id))
        if handle is not None:
            try:
                handle.flush()
            except OSError as exc:
                self._failed("could not flush a transcript", exc)

    def flush_soon(self, agent_key: str, session_id: str) -> None:
        """Write out what was buffered, without waiting: on the writer thread, behind any
        queued writes (``flush`` waits for them). A busy disk so never holds the event loop,
        and while the flush waits, the next lines queue behind it."""
        path = self.transcript_path(agent_key, session_id)

        def flush_now() -> Exception | None:
            handle = self._open.get(path)
            try:
                if handle is not None:
                    handle.flush()
            except OSError as exc:
                return exc
            return None

        writes = self._background
        key = (agent_key, session_id)
        if writes.submit(flush_now, lambda outcome: self._report(path, outcome, written=key)):
            return
        self._report(path, flush_now())

    def record_user(self, agent_key: str, session_id: str, blocks_wire: Sequence[Any]) -> None:
        """Append a prompt the client sent, and mark an indexed session as just used (the
        first prompt is kept in the index: the title of a session its agent does not title)."""
        self._append(agent_key, session_id, {"t": "user", "blocks": list(blocks_wire)})
        self.update_info(
            agent_key, session_id, updated_at=utc_now_iso(), first_prompt=prompt_title(blocks_wire)
        )

    def record_turn_end(self, agent_key: str, session_id: str, stop_reason: str | None) -> None:
        """Append the end of a prompt turn (chunks after it are messages of their own)."""
        self._append(agent_key, session_id, {"t": "end", "stopReason": stop_reason})
        self._touched(agent_key, session_id, soon=True)

    def reset(self, agent_key: str, session_id: str) -> None:
        """Drop a session's recorded events (before an agent replays the whole history)."""
        self._background.settle()
        path = self.transcript_path(agent_key, session_id)
        self._close_handle(path)
        self._clean_tail.discard(path)
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            self._failed(f"could not reset {path}", exc)
        self._touched(agent_key, session_id, soon=True)

    # -- restoring -----------------------------------------------------------------------------

    def begin_aside(self, agent_key: str, session_id: str) -> None:
        """Record the session's events in a fresh side file until ``end_aside``/``discard``."""
        self._background.settle()
        key = (agent_key, session_id)
        if key in self._aside:
            self.discard_aside(agent_key, session_id)
        main = self._main_path(key)
        aside = main.with_name(main.name + ".restore")
        self._forget_file(aside)
        self._aside[key] = aside

    def end_aside(self, agent_key: str, session_id: str, *, replaced: bool) -> None:
        """The restore succeeded: the side file replaces the copy (``replaced``: the agent
        replayed the whole history) or is appended to it."""
        self._background.settle()
        aside = self._aside.pop((agent_key, session_id), None)
        if aside is None:
            return
        main = self._main_path((agent_key, session_id))
        self._close_handle(aside)
        self._clean_tail.discard(aside)
        try:
            if replaced:
                if aside.exists():
                    self._close_handle(main)
                    self._clean_tail.discard(main)
                    os.replace(aside, main)
                return
            if aside.exists():
                data = aside.read_bytes()
                if data:
                    self._write_line(main, data, flush=True, key=(agent_key, session_id))
        except OSError as exc:
            self._failed(f"could not keep the restored transcript {aside}", exc)
        finally:
            with contextlib.suppress(OSError):
                aside.unlink(missing_ok=True)
            self._touched(agent_key, session_id, soon=True)

    def discard_aside(self, agent_key: str, session_id: str) -> None:
        """The restore failed: drop what it recorded; the copy stays as it was."""
        self._background.settle()
        aside = self._aside.pop((agent_key, session_id), None)
        if aside is not None:
            self._forget_file(aside)

    def copy_events(self, agent_key: str, source_id: str, target_id: str) -> None:
        """Put the recorded events of ``source_id`` before those of ``target_id``: a fork starts
        with its parent's history, so reopening it later shows that too."""
        self._background.settle()
        source = self._main_path((agent_key, source_id))
        target = self._main_path((agent_key, target_id))
        if source == target:
            return
        self.flush(agent_key, source_id)
        self._close_handle(target)
        try:
            head = source.read_bytes()
            tail = target.read_bytes() if target.exists() else b""
            if head and not head.endswith(b"\n"):
                head += b"\n"  # a torn last line must not swallow the fork's first one
            write_atomic(target, head + tail)
        except OSError as exc:
            self._failed("could not copy a recorded transcript", exc)
        self._touched(agent_key, target_id, soon=True)

    def _forget_file(self, path: Path) -> None:
        self._close_handle(path)
        self._clean_tail.discard(path)
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)

    def _append(
        self, agent_key: str, session_id: str, event: dict[str, Any], *, flush: bool = True
    ) -> None:
        path = self.transcript_path(agent_key, session_id)
        try:
            line = json.dumps(event, separators=(",", ":")).encode("ascii") + b"\n"
        except (TypeError, ValueError) as exc:
            self._failed(f"could not record to {path}", exc)
            return
        self._write_line(path, line, flush=flush, key=(agent_key, session_id))
        self._touched(agent_key, session_id)

    def _touched(self, agent_key: str, session_id: str, *, soon: bool = False) -> None:
        if self.library is not None:
            self.library.touched(agent_key, session_id, soon=soon)

    def _write_line(
        self,
        path: Path,
        line: bytes | Callable[[], list[bytes]],
        *,
        flush: bool,
        key: tuple[str, str],
    ) -> None:
        """Append ``line`` (or what ``line()`` makes, on the writer thread) to the transcript
        of session ``key``: off the event loop when it is big or writes are queued already
        (they stay in order), else now."""
        writes = self._background
        big = not isinstance(line, bytes) or len(line) > BIG_WRITE
        if (big or writes.busy) and writes.submit(
            lambda: self._write_now(path, line, flush=flush),
            lambda outcome: self._report(path, outcome, written=key),
        ):
            return
        self._report(path, self._write_now(path, line, flush=flush))

    def _write_now(
        self, path: Path, line: bytes | Callable[[], list[bytes]], *, flush: bool
    ) -> Exception | None:
        try:
            parts = [line] if isinstance(line, bytes) else line()
        except (TypeError, ValueError) as exc:
            return exc
        try:
            handle = self._handle(path)
            if path not in self._clean_tail:
                # A crash may have torn the last line: start ours on a line of its own.
                size = handle.seek(0, os.SEEK_END)
                if size:
                    handle.seek(size - 1)
                    if handle.read(1) != b"\n":
                        parts.insert(0, b"\n")
                    handle.seek(0, os.SEEK_END)
                self._clean_tail.add(path)
            for part in parts:
                handle.write(part)
            if flush:
                handle.flush()
        except OSError as exc:
            self._close_handle(path)
            self._clean_tail.discard(path)  # the line may be torn: the next one starts afresh
            return exc
        return None

    def _report(self, path: Path, outcome: object, written: tuple[str, str] | None = None) -> None:
        """Take the outcome of a write; ``written``: the session whose transcript the writer
        thread wrote or flushed, which the library indexes again. It may have read the file
        before these lines reached it (when the turn ended, say), and would not look again."""
        if isinstance(outcome, Exception):
            self._failed(f"could not record to {path}", outcome)
            return
        self._recovered()
        if written is not None:
            self._touched(*written)

    def _handle(self, path: Path) -> BinaryIO:
        handle = self._open.get(path)
        if handle is not None:
            self._open.move_to_end(path)
            return handle
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+b")  # noqa: SIM115 - kept open across appends, closed by LRU
        self._open[path] = handle
        while len(self._open) > OPEN_TRANSCRIPTS:
            _, oldest = self._open.popitem(last=False)
            oldest.close()
        return handle

    def _close_handle(self, path: Path) -> None:
        handle = self._open.pop(path, None)
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()

    def close(self) -> None:
        """Close the transcripts kept open (everything written is already flushed), and end
        the writer thread."""
        self._background.close()
        for path in list(self._open):
            self._close_handle(path)

    def _failed(self, what: str, exc: Exception) -> None:
        self.failures += 1
        if self.failures == 1:
            log.warning("%s: %s (the transcript cache carries on without it)", what, exc)
        else:
            log.debug("%s: %s", what, exc)
        if self.failing is None and isinstance(exc, OSError):  # the disk, not one bad value
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.failing = reason
            self._tell(reason)

    def _recovered(self) -> None:
        if self.failing is not None:
            self.failing = None
            self._tell(None)

    def _tell(self, trouble: str | None) -> None:
        if self.on_trouble is not None:
            try:
                self.on_trouble(trouble)
            except Exception:
                log.exception("the transcript cache's trouble listener failed")

    # -- the index -----------------------------------------------------------------------------

    def note_session(
        self,
        agent_key: str,
        session_id: str,
        *,
        cwd: Path | str,
        additional_directories: Sequence[Path | str] = (),
        title: str | None = None,
        updated_at: str | None = None,
        created: bool = False,
    ) -> None:
        """Index a session this client created (``created``) or opened; updatedAt defaults to
        now, a None title keeps the known one."""
        index = read_index(self.index_path(agent_key))
        index[session_id] = merged(
            index.get(session_id),
            session_id,
            cwd=str(cwd),
            additional_directories=tuple(str(d) for d in additional_directories),
            title=title,
            updated_at=updated_at,
            created=created,
        )
        self._save_index(agent_key, index)
        if self.library is not None:
            self.library.noted(agent_key, index[session_id])

    def update_info(
        self,
        agent_key: str,
        session_id: str,
        *,
        title: str | _Unset | None = _UNSET,
        updated_at: str | _Unset | None = _UNSET,
        first_prompt: str | None = None,
    ) -> bool:
        """Apply a title (None clears it) and/or updatedAt (None keeps it) to an indexed session,
        and a first prompt unless it has one.

        Returns whether the session is indexed; the index is rewritten only on a change.
        """
        index = read_index(self.index_path(agent_key))
        known = index.get(session_id)
        if known is None:
            return False
        changes: dict[str, Any] = {}
        if not isinstance(title, _Unset) and title != known.title:
            changes["title"] = title
        if isinstance(updated_at, str) and updated_at != known.updated_at:
            changes["updated_at"] = updated_at
        if first_prompt is not None and known.first_prompt is None:
            changes["first_prompt"] = first_prompt
        if changes:
            index[session_id] = replace(known, **changes)
            self._save_index(agent_key, index)
            if self.library is not None:
                self.library.noted(agent_key, index[session_id])
        return True

    def _save_index(self, agent_key: str, index: dict[str, CachedSession]) -> None:
        path = self.index_path(agent_key)
        try:
            dropped = write_index(path, agent_key, index.values())
        except (OSError, ValueError, RecursionError) as exc:
            self._failed(f"could not write the session index {path}", exc)
            return
        self._recovered()
        for session_id in dropped:
            self._remove_transcript(agent_key, session_id)

    def sessions(self, agent_key: str) -> list[CachedSession]:
        """The indexed sessions of an agent, newest first."""
        return newest_first(read_index(self.index_path(agent_key)).values())

    def session(self, agent_key: str, session_id: str) -> CachedSession | None:
        return read_index(self.index_path(agent_key)).get(session_id)

    # -- local titles ----------------------------------------------------------------------------

    def local_titles(self, agent_key: str) -> dict[str, str]:
        """The titles the user gave this agent's sessions here, by session id (read once)."""
        titles = self._titles.get(agent_key)
        if titles is None:
            from acp_tui.store.library.sources import read_user_data

            titles = self._titles[agent_key] = read_user_data(self.agent_dir(agent_key)).titles
        return titles

    def set_local_title(
        self, agent_key: str, session_id: str, title: str | None, *, fork: bool = False
    ) -> str | None:
        """Rename a session here (it wins over the agent's title wherever it is shown); None
        or blank clears it. Kept beside the transcripts (``library.json``), through the
        library when there is one (it indexes it too). ``fork``: acp-tui gave it (a fork's
        "Fork of …"), not the user (see `fork_titled`). Returns the title as kept (on one line,
        bounded). Raises OSError when it cannot be written without a library."""
        from acp_tui.store.library.sources import TITLE_CHARS, read_user_data, write_user_data

        clean = " ".join(title.split())[:TITLE_CHARS] if title else ""
        self.marks.set(agent_key, session_id, "forkTitled", fork and bool(clean))
        titles = self.local_titles(agent_key)
        if self.library is not None:
            self.library.set_local_title(agent_key, session_id, clean or None)
        else:
            folder = self.agent_dir(agent_key)
            data = read_user_data(folder)
            data.key = data.key or agent_key
            if clean:
                data.titles[session_id] = clean
            else:
                data.titles.pop(session_id, None)
            write_user_data(folder, data)
        if clean:
            titles[session_id] = clean
        else:
            titles.pop(session_id, None)
        return clean or None

    def fork_titled(self, agent_key: str) -> frozenset[str]:
        """The sessions whose local title acp-tui gave them (a fork's), not the user."""
        return self.marks.of(agent_key, "forkTitled")

    # -- sessions created here and never used ----------------------------------------------------

    def unused_sessions(self, agent_key: str) -> frozenset[str]:
        """The sessions acp-tui created (`session/new`) and sent nothing in (yet)."""
        return self.marks.of(agent_key, "unused")

    def set_unused(self, agent_key: str, session_id: str, unused: bool) -> None:
        """Mark a session created here as unused, or (it got a prompt) as used."""
        self.marks.set(agent_key, session_id, "unused", unused)

    def unindex(self, agent_key: str, session_id: str) -> None:
        """Take a session out of the index (its recorded events stay)."""
        index = read_index(self.index_path(agent_key))
        if index.pop(session_id, None) is not None:
            self._save_index(agent_key, index)
        if self.library is not None:
            self.library.forgotten(agent_key, session_id)

    def forget(self, agent_key: str, session_id: str) -> None:
        """Remove a (deleted) session: its index entry, its recorded events, its local title
        and its place in the library."""
        self._titles.get(agent_key, {}).pop(session_id, None)
        self.marks.forget(agent_key, session_id)
        index = read_index(self.index_path(agent_key))
        if index.pop(session_id, None) is not None:
            self._save_index(agent_key, index)
        self._remove_transcript(agent_key, session_id)
        if self.library is not None:
            self.library.forgotten(agent_key, session_id)

    def _remove_transcript(self, agent_key: str, session_id: str) -> None:
        self.discard_aside(agent_key, session_id)
        self._forget_file(self._main_path((agent_key, session_id)))
        self._touched(agent_key, session_id, soon=True)

    # -- reading -------------------------------------------------------------------------------

    def has(self, agent_key: str, session_id: str) -> bool:
        """Whether events of this session were recorded."""
        self._background.settle()
        try:
            return self._main_path((agent_key, session_id)).stat().st_size > 0
        except OSError:
            return False

    def events(self, agent_key: str, session_id: str) -> Iterator[RecordedEvent]:
        """The recorded events, in order, read lazily; torn or foreign lines are skipped."""
        self._background.settle()
        path = self._main_path((agent_key, session_id))
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed by the generator below
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("cannot read the recorded transcript %s: %s", path, exc)
            return
        with handle:
            try:
                for raw in handle:
                    event = parse_line(raw)
                    if event is not None:
                        yield event
            except OSError as exc:
                log.warning("stopped reading the recorded transcript %s: %s", path, exc)

    def replay_into(
        self,
        agent_key: str,
        session_id: str,
        apply_update: Callable[[SessionUpdate], None],
        add_user: Callable[[list[ContentBlock]], None],
        end_turn: Callable[[], None] | None = None,
    ) -> int:
        """Feed the recorded events, parsed with the protocol models, to the callbacks in order.

        Invalid events are skipped. Returns how many updates and prompts were replayed (the
        ends of turns go to ``end_turn`` and are not counted).
        """
        return sum(
            feed_event(event, apply_update, add_user, end_turn)
            for event in self.events(agent_key, session_id)
        )

    def tail(
        self,
        agent_key: str,
        session_id: str,
        *,
        turns: int,
        max_bytes: int,
        from_line: int | None = None,
        numbered: bool = True,
    ) -> Tail | None:
        """The last ``turns`` turns of the session's local copy (or from the turn of line
        ``from_line`` on, see `read_tail`); None when there is none, or it cannot be read."""
        self._background.settle()
        try:
            return read_tail(
                self._main_path((agent_key, session_id)),
                turns=turns,
                max_bytes=max_bytes,
                from_line=from_line,
                numbered=numbered,
            )
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read the recorded transcript of %s: %s", session_id, exc)
            return None


def feed_event(
    event: RecordedEvent,
    apply_update: Callable[[SessionUpdate], None],
    add_user: Callable[[list[ContentBlock]], None],
    end_turn: Callable[[], None] | None = None,
) -> int:
    """Give one recorded event, parsed with the protocol models, to its callback: 1 for an
    update or a prompt, 0 for the end of a turn or an invalid event (skipped)."""
    if isinstance(event, RecordedTurnEnd):
        if end_turn is not None:
            end_turn()
        return 0
    try:
        if isinstance(event, RecordedUpdate):
            update = _adapters()[0].validate_python(event.update)
        else:
            blocks = _adapters()[1].validate_python(event.blocks)
    except (ValidationError, RecursionError) as exc:
        log.debug("skipping an invalid recorded event: %s", exc)
        return 0
    if isinstance(event, RecordedUpdate):
        apply_update(update)
    else:
        add_user(blocks)
    return 1
