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


INDEX_TITLE_LIMIT = 1000
"""The most characters of a title kept in the index (the recorded update keeps it whole): an
agent's 20 MB title must not be rewritten with the index on every change."""


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

    def detach(self) -> None:
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
        crash."""
        session_id = session.session_id
        self._unused[session_id] = session
        if session_id in self._noted:  # an update before the session/new answer indexed it
            self._noted.discard(session_id)
            self.cache.unindex(self.agent_key, session_id)

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
        unused = self._unused.pop(session_id, None)
        if unused is not None:
            self._index(unused, created=True)
        self.cache.record_user(self.agent_key, session_id, [block.to_wire() for block in blocks])

    def record_turn_end(self, session_id: str, stop_reason: str | None = None) -> None:
        """Record that a turn ended (a prompt's: call it once ``client.prompt`` returned or
        failed; one the agent started by itself: recorded on its own): the live transcript
        takes later chunks as new messages, and so will a replay of the local copy."""
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
        flush = session_id not in self._bulk
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

    def _apply_info(self, session_id: str, update: SessionInfoUpdate) -> None:
        fields = update.model_fields_set
        if "title" in fields and "updated_at" in fields:
            self.cache.update_info(
                self.agent_key, session_id, title=_clip(update.title), updated_at=update.updated_at
            )
        elif "title" in fields:
            self.cache.update_info(self.agent_key, session_id, title=_clip(update.title))
        elif "updated_at" in fields:
            self.cache.update_info(self.agent_key, session_id, updated_at=update.updated_at)
