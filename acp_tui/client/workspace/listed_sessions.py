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
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.history.session_text import display_title
from acp_tui.client.workspace.events import (
    ActionProgress,
    AgentChanged,
    SessionInfoChanged,
    SessionsChanged,
    TurnChanged,
)
from acp_tui.client.workspace.gating import why_unavailable
from acp_tui.client.workspace.opening import describe
from acp_tui.client.workspace.slots import OpenNew, SessionSlot
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo
from acp_tui.protocol.updates import SessionInfoUpdate, SessionUpdate

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.login import Authenticated

__all__ = ["GONE_NEXT", "ListedSessions", "LoggedInListing"]

log = logging.getLogger(__name__)

GONE_NEXT = "Your next message starts a new session."

TITLE_PAGES = 3
"""How many pages of `session/list` a tab without a title looks through for its session."""

Titled = Callable[["AgentRuntime", Any], None]
"""Told each page of `session/list` an agent answered (raw or validated): the titles in it
name the tabs the agent gave no title."""


class LoggedInListing:
    """`session/list` through the Workspace: a login the agent asks for is run first."""

    def __init__(
        self, authenticated: Authenticated, agent: AgentRuntime, listed: Titled | None = None
    ) -> None:
        self.authenticated = authenticated
        self.agent = agent
        self.listed = listed

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
        page = await self.authenticated(
            self.agent,
            lambda: client.list_sessions(
                cwd=cwd, cursor=cursor, additional_directories=additional_directories
            ),
        )
        if self.listed is not None:
            self.listed(self.agent, page.sessions)
        return page

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
        raw = await self.authenticated(
            self.agent,
            lambda: client.list_sessions_raw(
                cwd=cwd, cursor=cursor, additional_directories=additional_directories
            ),
        )
        if self.listed is not None and isinstance(raw, dict):
            self.listed(self.agent, raw.get("sessions"))
        return raw


class ListedSessions:
    """What the session browser and `acp-tui sessions` do to sessions (``ws.sessions``).

    It receives the ``board``, ``authenticated`` (the agent may ask for a login first) and
    ``reload`` (`Opening.reload`: the agent replays a tab's session in place).
    """

    def __init__(
        self,
        board: Board,
        authenticated: Authenticated,
        reload: Callable[[SessionSlot], Awaitable[bool]],
    ) -> None:
        self.board = board
        self.authenticated = authenticated
        self._reload = reload
        self._watched: dict[AgentRuntime, tuple[AgentClient, Callable[[], None]]] = {}
        """The connection of each agent whose session updates are followed."""
        self._looking: set[int] = set()
        """The slots whose title is being looked for in `session/list` (see `turn_changed`)."""
        board.on(AgentChanged, self.agent_changed)
        board.on(TurnChanged, self.turn_changed)

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

    def listing(self, agent: AgentRuntime) -> LoggedInListing:
        """`session/list` of ``agent`` for a lister, logging in first when the agent asks;
        the titles listed name the tabs the agent left untitled (`titles_listed`)."""
        return LoggedInListing(self.authenticated, agent, self.titles_listed)

    # -- titles from session/list --------------------------------------------------------

    def turn_changed(self, event: TurnChanged) -> None:
        """A turn ended in a tab whose session has no title: many agents never send
        `session_info_update` but list their sessions titled (by the first prompt, or a
        summary), so the tab looks for its title there (a few pages, once at a time)."""
        slot = event.slot
        session, agent = slot.session, slot.agent
        caps = agent.capabilities
        if session is None or session.title is not None or not slot.prompted:
            return
        if session.transcript.state != "idle" or caps is None or not caps.can_list:
            return
        if slot.id in self._looking:
            return
        self._looking.add(slot.id)
        self.board.spawn(lambda: self._look_up_title(slot), f"title of slot {slot.id}")

    async def _look_up_title(self, slot: SessionSlot) -> None:
        """Page through `session/list` of the slot's cwd until its session is found.

        The pages are read as they came (`titles_listed` takes raw rows): only a title and an
        id are wanted of each row, and validating a page of 100,000 sessions after every turn
        cost 0.4 s of CPU and 60 MB more at its peak."""
        agent, session = slot.agent, slot.session
        client = agent.client
        try:
            cursor: str | None = None
            for _page in range(TITLE_PAGES):
                if client is None or session is None or session.title is not None:
                    return
                page = await client.list_sessions_raw(cwd=session.cwd, cursor=cursor)
                rows = page.get("sessions") if isinstance(page, dict) else None
                if not isinstance(rows, list):
                    log.info("no title for %s: session/list sent no list", slot.session_id)
                    return
                self.titles_listed(agent, rows)
                wanted = session.session_id
                if any(isinstance(row, dict) and row.get("sessionId") == wanted for row in rows):
                    return
                cursor = page.get("nextCursor")
                if not isinstance(cursor, str) or not cursor:
                    return
        except (AgentError, RpcError) as exc:  # a title is not worth a login or an error
            log.info("could not look up the title of %s: %s", slot.session_id, exc)
        finally:
            self._looking.discard(slot.id)

    def titles_listed(self, agent: AgentRuntime, sessions: Any) -> None:
        """Give the titles in a page of `session/list` (validated, or raw) to the tabs of
        ``agent`` whose session the agent never titled: said like a `session_info_update`
        (`SessionInfoChanged`), and kept in the local history's index."""
        if not isinstance(sessions, list):
            return
        untitled = {
            slot.session.session_id: slot.session
            for slot in self.board.slots_of(agent)
            if slot.session is not None and slot.session.title is None
        }
        if not untitled:
            return
        for item in sessions:
            session_id: object
            title: object
            if isinstance(item, SessionInfo):
                session_id, title = item.session_id, item.title
            elif isinstance(item, dict):
                session_id, title = item.get("sessionId"), item.get("title")
            else:
                continue
            if not isinstance(title, str) or not title.strip():
                continue
            session = untitled.pop(session_id, None) if isinstance(session_id, str) else None
            if session is None:
                continue
            session.transcript.apply(SessionInfoUpdate(title=title))
            agent.recorder.note_title(session.session_id, title)
            given = frozenset({"title"})
            self.board.emit(SessionInfoChanged(agent, session.session_id, title, None, given))

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

    async def reload(self, slot: SessionSlot) -> bool:
        """Have the agent replay a tab's session there (`Opening.reload`); True when it did,
        else the tab keeps its session and says why."""
        return await self._reload(slot)

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
