"""Provides ListedSessions, the part of the Workspace that acts on the agent's listed sessions.

Gating (`acp_tui.client.workspace.gating`) with the reason shown, close and delete with progress,
the client's own record of the sessions for agents that cannot list, and what the agent says
of its sessions' titles (`SessionInfoChanged`): a session browser takes its rows from these and
from `SessionsChanged`. When a slot's session is closed or deleted, the slot keeps its transcript
and says so; queued prompts go back to the draft (the prompt queue sees the slot closed) and the
next message opens a new session there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.history.session_text import display_title
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.workspace.events import (
    ActionProgress,
    AgentChanged,
    SessionInfoChanged,
    SessionRenamed,
    SessionsChanged,
    SessionShown,
)
from acp_tui.client.workspace.gating import why_unavailable
from acp_tui.client.workspace.opening import describe
from acp_tui.client.workspace.slots import OpenExisting, OpenNew, SessionSlot
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo
from acp_tui.protocol.updates import SessionInfoUpdate, SessionUpdate

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.login import Authenticated
    from acp_tui.store.transcripts import TranscriptCache

__all__ = ["GONE_NEXT", "ListedSessions", "LoggedInListing"]

log = logging.getLogger(__name__)

GONE_NEXT = "Your next message starts a new session."


class LoggedInListing:
    """`session/list` through the Workspace: a login the agent asks for is run first."""

    def __init__(self, authenticated: Authenticated, agent: AgentRuntime) -> None:
        self.authenticated = authenticated
        self.agent = agent

    async def list_sessions(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> ListSessionsResponse:
        client = self.agent.client
        if client is None:
            raise AgentError("the agent is not running")
        return await self.authenticated(
            self.agent,
            lambda: client.list_sessions(
                cwd=cwd, cursor=cursor, additional_directories=additional_directories
            ),
        )

    async def list_sessions_raw(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> Any:
        client = self.agent.client
        if client is None:
            raise AgentError("the agent is not running")
        return await self.authenticated(
            self.agent,
            lambda: client.list_sessions_raw(
                cwd=cwd, cursor=cursor, additional_directories=additional_directories
            ),
        )


class ListedSessions:
    """What the session browser and `acp-tui sessions` do to sessions (``ws.sessions``).

    It receives the ``board``, ``authenticated`` (the agent may ask for a login first),
    ``reopen`` (`Opening.open`: a reloaded session opens again in its slot) and ``titles``
    (the transcript cache, which keeps the local titles).
    """

    def __init__(
        self,
        board: Board,
        authenticated: Authenticated,
        reopen: Callable[[SessionSlot], None],
        titles: TranscriptCache,
    ) -> None:
        self.board = board
        self.authenticated = authenticated
        self.reopen = reopen
        self.titles = titles
        board.on(SessionShown, self.session_shown)
        self._watched: dict[AgentRuntime, tuple[AgentClient, Callable[[], None]]] = {}
        """The connection of each agent whose session updates are followed."""
        board.on(AgentChanged, self.agent_changed)

    def agent_changed(self, event: AgentChanged) -> None:
        """Follow what a (re)connected agent says of its sessions' titles."""
        agent = event.agent
        client = agent.client
        watched = self._watched.get(agent)
        if client is None or (watched is not None and watched[0] is client):
            return
        if watched is not None:
            watched[1]()
        self._watched[agent] = (
            client,
            client.subscribe(lambda session_id, update: self.updated(agent, session_id, update)),
        )

    def updated(self, agent: AgentRuntime, session_id: str, update: SessionUpdate) -> None:
        """A `session_info_update` of any of the agent's sessions: said once, for every view of
        that session (its tab, its row in a browser)."""
        if isinstance(update, SessionInfoUpdate):
            given = frozenset(update.model_fields_set & {"title", "updated_at"})
            info = SessionInfoChanged(agent, session_id, update.title, update.updated_at, given)
            self.board.emit(info)

    # -- local titles ----------------------------------------------------------------------------

    def local_titles(self, agent: AgentRuntime) -> dict[str, str]:
        """The titles the user gave ``agent``'s sessions here, by session id."""
        try:
            return self.titles.local_titles(agent.key)
        except Exception:
            log.warning("cannot read the local titles", exc_info=True)
            return {}

    def session_shown(self, event: SessionShown) -> None:
        slot = event.slot
        sid = slot.session_id
        slot.local_title = self.local_titles(slot.agent).get(sid) if sid is not None else None

    def rename(self, agent: AgentRuntime, session_id: str, title: str | None) -> str | None:
        """Give a session a local title (None or blank: back to the agent's); the title as
        kept. Raises OSError when it cannot be kept."""
        kept = self.titles.set_local_title(agent.key, session_id, title)
        for slot in self.board.slots_of(agent):
            if slot.session_id == session_id:
                slot.local_title = kept
        self.board.emit(SessionRenamed(agent, session_id, kept))
        return kept

    def listing(self, agent: AgentRuntime) -> LoggedInListing:
        """`session/list` of ``agent`` for a lister, logging in first when the agent asks."""
        return LoggedInListing(self.authenticated, agent)

    def open_ids(self, agent: AgentRuntime) -> set[str]:
        """The sessions of ``agent`` open in this client."""
        client = agent.client
        if client is None:
            return set()
        return {sid for sid, live in client.sessions.items() if not live.closed}

    def why_unavailable(
        self, agent: AgentRuntime, action: str, info: SessionInfo | None
    ) -> str | None:
        """None when ``action`` can run on ``info`` now, else the reason to show."""
        return why_unavailable(action, info, agent.capabilities, open_ids=self.open_ids(agent))

    def local_session_infos(self, agent: AgentRuntime) -> list[SessionInfo]:
        """This client's sessions with ``agent``: the open ones, then the recorded ones.

        An untitled session is titled by its first prompt (the local history keeps it), and
        an open one has the time of its last prompt when the agent gave none."""
        try:
            recorded = {info.session_id: info for info in agent.history.sessions()}
        except Exception:
            log.warning("could not read the local session history", exc_info=True)
            recorded = {}
        infos: dict[str, SessionInfo] = {}
        client = agent.client
        if client is not None:
            for live in reversed(list(client.sessions.values())):
                if not live.closed:
                    known = recorded.get(live.session_id)
                    infos[live.session_id] = SessionInfo(
                        session_id=live.session_id,
                        cwd=str(live.cwd),
                        additional_directories=[str(d) for d in live.additional_directories],
                        title=live.title or (known.title if known else None),
                        updated_at=live.transcript.updated_at
                        or (known.updated_at if known else None),
                    )
        for info in recorded.values():
            infos.setdefault(info.session_id, info)
        return list(infos.values())

    async def close_listed(self, agent: AgentRuntime, info: SessionInfo) -> bool:
        """`session/close` of a session open in this client; its slot keeps the transcript."""
        label = display_title(info)
        client = agent.client
        reason = self.why_unavailable(agent, "close", info)
        if reason is not None or client is None:
            self.board.emit(ActionProgress(agent, f"Cannot close {label}: {reason}", "warning"))
            return False
        try:
            await client.close_session(info.session_id)
        except AgentExited:
            return False
        except (AgentError, RpcError) as exc:
            self.board.emit(
                ActionProgress(agent, f"Could not close {label}: {describe(exc)}", "error")
            )
            return False
        self._session_gone(agent, info.session_id, "This session was closed (session/close).")
        self.board.emit(ActionProgress(agent, f"Closed {label}"))
        return True

    async def reload(self, slot: SessionSlot) -> None:
        """Open a slot's session again with the agent's replay: closed first (`session/close`
        where advertised, else only here), then restored into the same slot."""
        agent, session = slot.agent, slot.session
        client = agent.client
        if session is None or client is None:
            return
        info = SessionInfo(
            session_id=session.session_id,
            cwd=str(slot.cwd),
            additional_directories=[str(d) for d in slot.additional_directories],
            title=slot.title,
        )
        caps = client.capabilities
        try:
            if caps.can_close:
                await client.close_session(session.session_id)
            else:
                await client.let_go(session.session_id)
        except (AgentError, RpcError) as exc:
            self.board.emit(
                ActionProgress(agent, f"Could not close it first: {describe(exc)}", "error")
            )
            return
        slot.placeholder = Transcript(session.session_id)
        slot.session = None
        slot.intent = OpenExisting(info, replay=True)
        self.reopen(slot)

    async def delete_listed(
        self, agent: AgentRuntime, infos: list[SessionInfo], *, keep_local: bool = False
    ) -> list[tuple[SessionInfo, BaseException]]:
        """Delete one by one with progress; returns the sessions that failed, with why.

        Each deleted session leaves the local history (unless ``keep_local``: its local copy
        stays, searchable, no longer listed) and any slot showing it (its queued prompts go
        back to the draft), and a `SessionsChanged` says so.
        """
        client = agent.client
        if client is None or not infos:
            return []
        total = len(infos)
        failures: list[tuple[SessionInfo, BaseException]] = []
        for done, info in enumerate(infos):
            text = f"Deleting {done + 1}/{total}…"
            self.board.emit(ActionProgress(agent, text, done=done, total=total))
            try:
                await self.authenticated(agent, partial(client.delete_session, info.session_id))
            except AgentExited as exc:
                self.board.emit(ActionProgress(agent, "The agent exited.", "error"))
                failures.extend((rest, exc) for rest in infos[done:])
                return failures
            except (AgentError, RpcError) as exc:
                failures.append((info, exc))
                continue
            try:
                if not keep_local:
                    agent.history.forget(info.session_id)
            except Exception:
                log.warning("could not forget %s locally", info.session_id, exc_info=True)
            self._session_gone(agent, info.session_id, "This session is gone: it was deleted.")
            self.board.emit(SessionsChanged(agent, removed=(info.session_id,)))
        deleted = total - len(failures)
        if failures:
            why = "; ".join(f"{display_title(i)}: {describe(e)}" for i, e in failures)
            text = f"Deleted {deleted} of {total}; failed: {why}"
            self.board.emit(ActionProgress(agent, text, "error"))
        else:
            self.board.emit(ActionProgress(agent, f"Deleted {deleted} session(s)."))
        return failures

    def _session_gone(self, agent: AgentRuntime, session_id: str, what: str) -> None:
        """A slot's session was closed or deleted: its transcript stays on screen and says
        so, queued prompts go back to the draft, and the next message opens a new session
        there."""
        for slot in self.board.slots_of(agent):
            session = slot.session
            if session is None or session.session_id != session_id or slot.state == "closed":
                continue
            session.transcript.add_notice(f"{what} {GONE_NEXT}")
            slot.placeholder = session.transcript  # still shown until the next session opens
            slot.session = None
            slot.intent = OpenNew(slot.cwd, slot.additional_directories)
            self.board.set_state(slot, "closed", "closed")
