"""Provides SessionRecorder: writes what an AgentClient's sessions receive to a transcript cache.

The client and the store are sibling layers, so the recorder talks to the cache through the
:class:`TranscriptSink` protocol, which ``acp_tui.store.transcripts.TranscriptCache`` satisfies.

The app builds one recorder per connected agent::

    recorder = SessionRecorder(TranscriptCache(), agent_key_for(launch))
    recorder.attach(client)
    recorder.note(session, created=True)      # after session/new (or load/resume/fork)
    recorder.record_prompt(session_id, blocks)  # right before client.prompt(session_id, blocks)
    recorder.record_turn_end(session_id, stop)  # once it returned (or failed)

A restore (`session/load`, or `session/resume` which some agents answer with a replay) is
recorded aside: ``begin_restore`` before the request, then ``finish_restore`` with whether the
agent replayed the history (the replay replaces the recorded events; otherwise what arrived is
appended), or ``abort_restore`` when it failed (the local copy stays as it was).
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.client.agent import preencoded
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.updates import SessionInfoUpdate, SessionUpdate

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.session.live_session import LiveSession

__all__ = ["SessionRecorder", "TranscriptSink", "agent_key_for"]

_PYTHON = re.compile(r"python[0-9.]*(?:\.exe)?", re.IGNORECASE)


class TranscriptSink(Protocol):
    """What the recorder needs of a transcript cache (never raises for disk errors)."""

    def record_update(
        self, agent_key: str, session_id: str, update_wire: dict[str, Any], *, flush: bool = True
    ) -> None: ...

    def record_update_json(
        self, agent_key: str, session_id: str, update_json: str, *, flush: bool = True
    ) -> None: ...

    def flush(self, agent_key: str, session_id: str) -> None: ...

    def flush_soon(self, agent_key: str, session_id: str) -> None: ...

    def record_user(self, agent_key: str, session_id: str, blocks_wire: Sequence[Any]) -> None: ...

    def record_turn_end(self, agent_key: str, session_id: str, stop_reason: str | None) -> None: ...

    def reset(self, agent_key: str, session_id: str) -> None: ...

    def unindex(self, agent_key: str, session_id: str) -> None: ...

    def begin_aside(self, agent_key: str, session_id: str) -> None: ...

    def end_aside(self, agent_key: str, session_id: str, *, replaced: bool) -> None: ...

    def discard_aside(self, agent_key: str, session_id: str) -> None: ...

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
    ) -> None: ...

    def update_info(
        self,
        agent_key: str,
        session_id: str,
        *,
        title: str | None = ...,
        updated_at: str | None = ...,
    ) -> bool: ...

    def unused_sessions(self, agent_key: str) -> frozenset[str]: ...

    def set_unused(self, agent_key: str, session_id: str, unused: bool) -> None: ...


INDEX_TITLE_LIMIT = 1000
"""The most characters of a title kept in the index (the recorded update keeps it whole): an
agent's 20 MB title must not be rewritten with the index on every change."""


INFO_EVERY = 1.0
INFO_BURST = 4
"""At most ``INFO_BURST`` rewrites of the index per ``INFO_EVERY`` seconds for one session's
title or time: an agent may send titles by the thousand, and each rewrite is an fsync. Past
that, the latest waits, written with the first update once it is due, at the end of the
turn, or when the recorder lets go."""


def _clip(title: str | None) -> str | None:
    return title[:INDEX_TITLE_LIMIT] if title is not None else None


def agent_key_for(launch: LaunchSpec) -> str:
    """A stable key for the agent's cache: its argv, without the path of a Python interpreter.

    The key does not depend on where acp-tui keeps its data or which virtualenv runs it, so the
    same agent keeps its cache; a different command or different flags make another agent.
    """
    argv = [str(arg) for arg in launch.command.argv]
    if argv and _PYTHON.fullmatch(Path(argv[0]).name):
        argv[0] = "python"
    return json.dumps(argv, ensure_ascii=False)


class SessionRecorder:
    """Records every `session/update` of the client's live sessions, and the prompts sent."""

    def __init__(self, cache: TranscriptSink, agent_key: str) -> None:
        self.cache = cache
        self.agent_key = agent_key
        self.client: AgentClient | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._unsubscribe_ends: Callable[[], None] | None = None
        self._noted: set[str] = set()
        self._unused: dict[str, LiveSession] = {}
        """New sessions not indexed yet: no prompt was sent in them."""
        self._bulk: set[str] = set()
        """Sessions being restored: their lines are written in batches, flushed at the end."""
        self._unflushed: set[str] = set()
        """Sessions with lines written since the last flush (at the end of each block read)."""
        self._unsubscribe_drained: Callable[[], None] | None = None
        self._info_written: dict[str, deque[float]] = {}
        """When each session's title or time was last written to the index (monotonic)."""
        self._info_waiting: dict[str, dict[str, Any]] = {}
        """Titles and times not written yet (``INFO_BURST``), by session: the fields to write."""

    def attach(self, client: AgentClient) -> None:
        """Start recording the sessions of ``client`` (once; attaching again is a no-op).

        The recorder is served before every other listener, and a listener that fails after
        it cannot stop it: the local copy is complete whatever the views do.
        """
        if self.client is client:
            return
        self.detach()
        self.client = client
        self._unsubscribe = client.subscribe(self.on_update, first=True)
        self._unsubscribe_ends = client.own_turn_ends.subscribe(self.record_turn_end, first=True)
        self._unsubscribe_drained = client.inbox.drained.subscribe(self.flush_written)

    def detach(self) -> None:
        for session_id in list(self._info_waiting):
            self._write_info(session_id)
        if self._unsubscribe_drained is not None:
            self._unsubscribe_drained()
            self._unsubscribe_drained = None
        self.flush_written()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._unsubscribe_ends is not None:
            self._unsubscribe_ends()
            self._unsubscribe_ends = None
        self.client = None

    # -- what the app calls ----------------------------------------------------------------------

    def note(self, session: LiveSession, *, created: bool = False) -> None:
        """Index a session the app opened (``created`` when the agent made it for us: a fork)."""
        self._index(session, created=created)

    def note_new(self, session: LiveSession) -> None:
        """Index a session from `session/new` at its first prompt: one left unused (a launch
        or Ctrl+N and no message) leaves nothing behind in the local list, even after a
        crash, and is marked unused until then (the browsers pass over it; see `unused`)."""
        session_id = session.session_id
        self._unused[session_id] = session
        self.cache.set_unused(self.agent_key, session_id, True)
        if session_id in self._noted:  # an update before the session/new answer indexed it
            self._noted.discard(session_id)
            self.cache.unindex(self.agent_key, session_id)

    def unused(self) -> list[str]:
        """The sessions created here by `session/new` in which nothing was sent."""
        return list(self._unused)

    def used(self, session_id: str) -> None:
        """Something was sent in the session (a prompt), or is meant for it: it is kept, and
        indexed if it was created here."""
        unused = self._unused.pop(session_id, None)
        if unused is not None:
            self._index(unused, created=True)
        if session_id in self.cache.unused_sessions(self.agent_key):
            self.cache.set_unused(self.agent_key, session_id, False)

    def discarded(self, session_id: str) -> None:
        """An unused session was deleted: nothing of it is kept."""
        self._unused.pop(session_id, None)
        self.cache.set_unused(self.agent_key, session_id, False)

    def _index(self, session: LiveSession, *, created: bool = False) -> None:
        self._noted.add(session.session_id)
        self.cache.note_session(
            self.agent_key,
            session.session_id,
            cwd=session.cwd,
            additional_directories=session.additional_directories,
            title=session.title,
            created=created,
        )

    def note_title(self, session_id: str, title: str) -> None:
        """Index a title the client learnt otherwise than by an update (from `session/list`)."""
        self.cache.update_info(self.agent_key, session_id, title=_clip(title))

    def record_prompt(self, session_id: str, blocks: Sequence[ContentBlock]) -> None:
        """Record a prompt; call it right before sending, so it lands before the reply."""
        self.used(session_id)
        self.cache.record_user(self.agent_key, session_id, [block.to_wire() for block in blocks])

    def record_turn_end(self, session_id: str, stop_reason: str | None = None) -> None:
        """Record that a turn ended (a prompt's: call it once ``client.prompt`` returned or
        failed; one the agent started by itself: recorded on its own): the live transcript
        takes later chunks as new messages, and so will a replay of the local copy."""
        if session_id in self._info_waiting:
            self._write_info(session_id)
        self.cache.record_turn_end(self.agent_key, session_id, stop_reason)

    def begin_restore(self, session_id: str) -> None:
        """A restore request is about to be sent: record what arrives aside, in batches."""
        self._bulk.add(session_id)
        self.cache.begin_aside(self.agent_key, session_id)

    def finish_restore(self, session: LiveSession, *, replayed: bool) -> None:
        """The restore succeeded: keep what was recorded aside (``replayed``: it is the whole
        history and replaces the old copy) and index the session."""
        self._bulk.discard(session.session_id)
        self.cache.end_aside(self.agent_key, session.session_id, replaced=replayed)
        self._index(session)

    def abort_restore(self, session_id: str) -> None:
        """The restore failed (or the agent died during the replay): keep the old copy."""
        self._bulk.discard(session_id)
        self.cache.discard_aside(self.agent_key, session_id)

    # -- the listener ----------------------------------------------------------------------------

    def on_update(self, session_id: str, update: SessionUpdate) -> None:
        client = self.client
        session = client.sessions.get(session_id) if client is not None else None
        if session is None:
            return
        # Flushed once per block read (``flush_written``), not once per update: a write call
        # each was most of a flood's cost on a busy disk.
        flush = False
        if session_id not in self._bulk:
            self._unflushed.add(session_id)
        try:
            # Serialised in one step by pydantic: re-encoding every streamed update in Python
            # was most of the cost of recording a long replay.
            wire = preencoded.take(update)
        except ValueError:
            self.cache.record_update(self.agent_key, session_id, update.to_wire(), flush=flush)
        else:
            self.cache.record_update_json(self.agent_key, session_id, wire, flush=flush)
        if session_id not in self._noted and session_id not in self._unused:
            self._index(session)
        if isinstance(update, SessionInfoUpdate):
            self._apply_info(session_id, update)
        elif session_id in self._info_waiting:
            self._write_info(session_id, due=True)

    def flush_written(self) -> None:
        """Write out the lines recorded since the last flush (the inbox applied a block)."""
        unflushed, self._unflushed = self._unflushed, set()
        for session_id in unflushed:
            self.cache.flush_soon(self.agent_key, session_id)

    def _apply_info(self, session_id: str, update: SessionInfoUpdate) -> None:
        """Keep the title and time for the index: written now, or soon (``INFO_BURST``)."""
        fields = update.model_fields_set
        waiting = self._info_waiting.setdefault(session_id, {})
        if "title" in fields:
            waiting["title"] = _clip(update.title)
        if "updated_at" in fields:
            waiting["updated_at"] = update.updated_at
        self._write_info(session_id, due=True)

    def _write_info(self, session_id: str, *, due: bool = False) -> None:
        """Write the session's waiting title and time to the index (``due``: only if it was
        written fewer than ``INFO_BURST`` times in the last ``INFO_EVERY`` seconds)."""
        now = time.monotonic()
        written = self._info_written.setdefault(session_id, deque(maxlen=INFO_BURST))
        if due and len(written) == INFO_BURST and now - written[0] < INFO_EVERY:
            return
        waiting = self._info_waiting.pop(session_id, None)
        if waiting:
            written.append(now)
            self.cache.update_info(self.agent_key, session_id, **waiting)
