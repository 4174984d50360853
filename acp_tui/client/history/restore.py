"""Provides the session-restore policy: reattach a listed session, reopen one after a restart.

One operation whatever the agent and the protocol version (proposal 002 and the v2
``replayFrom`` cursor): *with* replay is v1 `session/load` or v2 `session/resume` with
``replayFrom: {"type": "start"}``; an agent that can only resume gets `session/resume` plus
acp-tui's own copy of the history, and the transcript says so. *Without* replay is
`session/resume` (`session/load` where that is all the agent has).

Real agents replay the history on `session/resume` anyway (fast-agent, pydantic-acp): what
arrived during the request is looked at, and such a replay is shown once, recorded as the
session's new local copy, and neither the local copy nor "earlier messages are not shown" is
added to it. Every restore is recorded aside (see `SessionRecorder.begin_restore`), so a replay
cut short by a crash never replaces the local copy.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import anyio

from acp_tui.client.history.preview import Preview, local_preview
from acp_tui.client.session.entries import MessageEntry, ToolCallEntry
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.updates import SessionInfoUpdate, SessionUpdate

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.history.recorder import SessionRecorder
    from acp_tui.store.transcripts import TranscriptCache

__all__ = [
    "LOCAL_COPY_NOTICE",
    "RESUMED_NOTICE",
    "CacheHistory",
    "LocalHistory",
    "reattach",
    "reopen",
]

log = logging.getLogger(__name__)

LOCAL_COPY_NOTICE = "History shown from acp-tui's local copy; the agent did not replay it."
RESUMED_NOTICE = "Resumed without replay (session/resume): earlier messages are not shown."

Progress = Callable[[int], None]
"""Told the number of updates replayed so far (every few updates, not each one)."""

PROGRESS_EVERY = 256
PROGRESS_SECONDS = 0.1


class LocalHistory(Protocol):
    """The client's own record of an agent's sessions."""

    def sessions(self) -> list[SessionInfo]: ...

    def preview(self, session_id: str, from_line: int | None = None) -> Preview | None:
        """The end of the session's record, at once (see `local_preview`)."""
        ...

    def replay_into(self, session_id: str, transcript: Transcript) -> int:
        """Feed the recorded events to ``transcript``; returns how many there were."""
        ...

    def forget(self, session_id: str) -> None: ...

    def copy(self, source_id: str, target_id: str) -> None:
        """Start the record of ``target_id`` with that of ``source_id`` (a fork's history)."""
        ...


class CacheHistory:
    """LocalHistory over the transcript cache, for one agent."""

    def __init__(self, cache: TranscriptCache, agent_key: str) -> None:
        self.cache = cache
        self.agent_key = agent_key

    def sessions(self) -> list[SessionInfo]:
        return [
            SessionInfo(
                session_id=c.session_id,
                cwd=c.cwd,
                additional_directories=list(c.additional_directories),
                title=c.shown_title,
                updated_at=c.updated_at,
            )
            for c in self.cache.sessions(self.agent_key)
        ]

    def preview(self, session_id: str, from_line: int | None = None) -> Preview | None:
        return local_preview(self.cache, self.agent_key, session_id, from_line=from_line)

    def replay_into(self, session_id: str, transcript: Transcript) -> int:
        return self.cache.replay_into(
            self.agent_key,
            session_id,
            transcript.apply,
            transcript.add_user_message,
            transcript.seal,
        )

    def forget(self, session_id: str) -> None:
        self.cache.forget(self.agent_key, session_id)

    def copy(self, source_id: str, target_id: str) -> None:
        self.cache.copy_events(self.agent_key, source_id, target_id)


def has_history(transcript: Transcript) -> bool:
    """Whether the transcript holds any of the conversation (messages or tool calls)."""
    return any(isinstance(e, MessageEntry | ToolCallEntry) for e in transcript.entries)


async def reattach(
    client: AgentClient,
    recorder: SessionRecorder,
    history: LocalHistory,
    info: SessionInfo,
    *,
    replay: bool,
    progress: Progress | None = None,
    keep: Transcript | None = None,
) -> LiveSession:
    """Open the listed session ``info`` in this client, with or without its history.

    Raises `Unsupported` (nothing sent) when the agent cannot reopen sessions, and the agent's
    errors as they come; the local copy is then untouched. A replay that brings none of the
    history (an agent answering `session/load` of a session it does not know with ``{}``)
    replaces nothing: the local copy stays, and is shown. ``keep`` (the transcript shown until
    now, of a reload or a fork) is shown instead when the agent replays none of the history:
    the caller tells by ``session.transcript is keep``.
    """
    session_id = info.session_id
    cwd = Path(info.cwd)
    dirs = tuple(Path(d) for d in info.additional_directories or [])
    how = client.reattach_method(replay)  # raises Unsupported before anything is sent
    local: Transcript | None = None
    if replay and how == "resume":  # read before the restore records anything new
        # On a thread: ten thousand turns take seconds to parse, and the tab is usable
        # meanwhile (it shows the end of the copy, see `preview`).
        name = client.capabilities.display_name
        local = await anyio.to_thread.run_sync(_local_copy, history, session_id, name)
    recorder.begin_restore(session_id)
    stop_counting = _count_replay(client, session_id, progress) if progress else None
    try:
        session, how = await client.reattach(session_id, cwd, dirs, replay=replay)
    except BaseException:
        recorder.abort_restore(session_id)
        raise
    finally:
        if stop_counting is not None:
            stop_counting()
    # What counts is what came: an empty replay is no history (the local copy stays).
    agent_replayed = has_history(session.transcript)
    recorder.finish_restore(session, replayed=agent_replayed)
    if keep is not None and not agent_replayed:
        keep.adopt_state(session.transcript)
        session.transcript = keep
    elif local is not None and not agent_replayed:
        local.adopt_state(session.transcript)
        session.transcript = local
    elif replay and not agent_replayed:  # load answered with nothing
        name = client.capabilities.display_name
        local = await anyio.to_thread.run_sync(
            functools.partial(_local_copy, history, session_id, name, replayed_nothing=True)
        )
        local.adopt_state(session.transcript)
        session.transcript = local
    elif not replay and not agent_replayed:
        session.transcript.add_notice(RESUMED_NOTICE)
    transcript = session.transcript
    if transcript.title is None and info.title:
        transcript.apply(SessionInfoUpdate(title=info.title))
    return session


def _local_copy(
    history: LocalHistory, session_id: str, agent_name: str, *, replayed_nothing: bool = False
) -> Transcript:
    """The local copy in a transcript, saying where it came from (or that there is none).

    ``replayed_nothing``: the agent was asked to replay the session and sent none of it."""
    transcript = Transcript(session_id)
    try:
        count = history.replay_into(session_id, transcript)
    except Exception:
        log.warning("could not replay the local copy of %s", session_id, exc_info=True)
        transcript, count = Transcript(session_id), 0
    if replayed_nothing:
        nothing = f"{agent_name} replayed none of this session's history"
        if count:
            transcript.add_notice(f"{nothing}; it is shown from acp-tui's local copy.", "warning")
        else:
            transcript.add_notice(f"{nothing}, and acp-tui has no local copy of it.", "warning")
    elif count:
        transcript.add_notice(LOCAL_COPY_NOTICE)
    else:
        transcript.add_notice(
            f"{agent_name} cannot replay this session (it supports session/resume only) and "
            "acp-tui has no local copy of it: the earlier history is not available.",
            "warning",
        )
    return transcript


async def reopen(client: AgentClient, recorder: SessionRecorder, old: LiveSession) -> LiveSession:
    """After the agent restarted: the same session again, keeping what the user sees.

    Resume keeps the old transcript (unless the agent replays, then its replay is shown); an
    agent that can only load replays the history; one that can do neither gets a new session,
    and the transcript says so.
    """
    caps = client.capabilities
    if not caps.can_reattach:
        session = await client.new_session(old.cwd, old.additional_directories)
        recorder.note(session, created=True)
        session.transcript.add_notice(
            f"{caps.display_name} cannot reopen sessions (no session/load or session/resume): "
            "this is a new session.",
            "warning",
        )
        return session
    session_id = old.session_id
    recorder.begin_restore(session_id)
    try:
        session, how = await client.reattach(
            session_id, old.cwd, old.additional_directories, replay=False
        )
    except BaseException:
        recorder.abort_restore(session_id)
        raise
    agent_replayed = how == "load" or has_history(session.transcript)
    recorder.finish_restore(session, replayed=agent_replayed)
    if agent_replayed:
        session.transcript.add_notice("Reconnected to the session (history replayed).")
    else:
        old.transcript.adopt_state(session.transcript)
        session.transcript = old.transcript
        session.transcript.add_notice("Reconnected to the session (resumed).")
    return session


def _count_replay(client: AgentClient, session_id: str, progress: Progress) -> Callable[[], None]:
    """Report the number of updates replayed for ``session_id``; returns the unsubscriber."""
    count = 0
    shown_at = time.monotonic()

    def replayed(replayed_id: str, update: SessionUpdate) -> None:
        nonlocal count, shown_at
        if replayed_id != session_id:
            return
        count += 1
        if count % 16:
            return  # tens of thousands may come: keep this cheap
        now = time.monotonic()
        if count % PROGRESS_EVERY == 0 or now - shown_at >= PROGRESS_SECONDS:
            shown_at = now
            progress(count)

    return client.subscribe(replayed)
