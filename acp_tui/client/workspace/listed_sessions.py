"""Provides ListedSessions, the Workspace's actions on the agent's listed sessions.

Gating (`acp_tui.client.workspace.gating`) with the reason shown, close and delete with progress,
and the client's own record of the sessions for agents that cannot list. When a slot's session is
closed or deleted, the slot keeps its transcript and says so; queued prompts go back to the draft
and the next message opens a new session there.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.history import continuing
from acp_tui.client.history.session_text import display_title
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.workspace.gating import why_unavailable
from acp_tui.client.workspace.opening import describe
from acp_tui.client.workspace.slots import (
    ActionProgress,
    OpenExisting,
    OpenNew,
    SessionsChanged,
    SessionSlot,
    SlotState,
)
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import WorkspaceEvent

__all__ = ["GONE_NEXT", "ListedSessions"]

log = logging.getLogger(__name__)

T = TypeVar("T")

GONE_NEXT = "Your next message starts a new session."
NOTHING_TO_CONTINUE = "No earlier session in this folder to continue: this one is new."


class LoggedInListing:
    """`session/list` through the Workspace: a login the agent asks for is run first."""

    def __init__(self, ws: ListedSessions, agent: AgentRuntime) -> None:
        self.ws = ws
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
        return await self.ws.authenticated(
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
        return await self.ws.authenticated(
            self.agent,
            lambda: client.list_sessions_raw(
                cwd=cwd, cursor=cursor, additional_directories=additional_directories
            ),
        )


class ListedSessions:
    """Mixin of Workspace: what the session browser and `acp-tui sessions` do to sessions."""

    if TYPE_CHECKING:  # provided by Workspace

        def emit(self, event: WorkspaceEvent) -> None: ...

        def slots_of(self, agent: AgentRuntime) -> list[SessionSlot]: ...

        def _set_state(self, slot: SessionSlot, state: SlotState, status: str = "") -> None: ...

        def return_queue(self, slot: SessionSlot, why: str) -> None: ...

        def _start_opening(self, slot: SessionSlot) -> None: ...

        async def authenticated(
            self, agent: AgentRuntime, call: Callable[[], Awaitable[T]]
        ) -> T: ...

        def open_new(
            self,
            agent: AgentRuntime,
            cwd: Path | None = None,
            additional_directories: tuple[Path, ...] = (),
            *,
            focus: bool = True,
            notice: str | None = None,
        ) -> SessionSlot: ...

        def open_listed(
            self, agent: AgentRuntime, info: SessionInfo, *, replay: bool, focus: bool = True
        ) -> SessionSlot: ...

    async def open_continued(
        self, agent: AgentRuntime, project: Path, session_id: str | None = None
    ) -> SessionSlot:
        """Open the session a launch continues, with its history: ``session_id``, else the
        project's most recent one (``--continue``). With none to continue, or an agent that
        cannot start, a new session is opened instead (the failure shows there)."""
        try:
            await agent.wait_ready()
            caps = agent.capabilities
            lister = self.listing(agent) if caps is not None and caps.can_list else None
            local = self.local_session_infos(agent)
            if session_id is not None:
                info = await continuing.session_by_id(lister, local, session_id, project)
            else:
                found = await continuing.last_of_project(lister, local, project)
                if found is None:
                    return self.open_new(agent, project, notice=NOTHING_TO_CONTINUE)
                info = found
        except Exception as exc:  # the agent failed to start, or its list failed: a new session
            log.info("could not find the session to continue: %s", exc)
            return self.open_new(agent, project)
        return self.open_listed(agent, info, replay=True)

    def listing(self, agent: AgentRuntime) -> LoggedInListing:
        """`session/list` of ``agent`` for a lister, logging in first when the agent asks."""
        return LoggedInListing(self, agent)

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
            self.emit(ActionProgress(agent, f"Cannot close {label}: {reason}", "warning"))
            return False
        try:
            await client.close_session(info.session_id)
        except AgentExited:
            return False
        except (AgentError, RpcError) as exc:
            self.emit(ActionProgress(agent, f"Could not close {label}: {describe(exc)}", "error"))
            return False
        self._session_gone(agent, info.session_id, "This session was closed (session/close).")
        self.emit(ActionProgress(agent, f"Closed {label}"))
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
            self.emit(ActionProgress(agent, f"Could not close it first: {describe(exc)}", "error"))
            return
        slot.placeholder = Transcript(session.session_id)
        slot.session = None
        slot.intent = OpenExisting(info, replay=True)
        self._start_opening(slot)

    async def delete_listed(
        self, agent: AgentRuntime, infos: list[SessionInfo]
    ) -> list[tuple[SessionInfo, BaseException]]:
        """Delete one by one with progress; returns the sessions that failed, with why.

        Each deleted session leaves the local history and any slot showing it (its queued
        prompts go back to the draft), and a `SessionsChanged` says so.
        """
        client = agent.client
        if client is None or not infos:
            return []
        total = len(infos)
        failures: list[tuple[SessionInfo, BaseException]] = []
        for done, info in enumerate(infos):
            text = f"Deleting {done + 1}/{total}…"
            self.emit(ActionProgress(agent, text, done=done, total=total))
            try:
                await self.authenticated(agent, partial(client.delete_session, info.session_id))
            except AgentExited as exc:
                self.emit(ActionProgress(agent, "The agent exited.", "error"))
                failures.extend((rest, exc) for rest in infos[done:])
                return failures
            except (AgentError, RpcError) as exc:
                failures.append((info, exc))
                continue
            try:
                agent.history.forget(info.session_id)
            except Exception:
                log.warning("could not forget %s locally", info.session_id, exc_info=True)
            self._session_gone(agent, info.session_id, "This session is gone: it was deleted.")
            self.emit(SessionsChanged(agent, removed=(info.session_id,)))
        deleted = total - len(failures)
        if failures:
            why = "; ".join(f"{display_title(i)}: {describe(e)}" for i, e in failures)
            text = f"Deleted {deleted} of {total}; failed: {why}"
            self.emit(ActionProgress(agent, text, "error"))
        else:
            self.emit(ActionProgress(agent, f"Deleted {deleted} session(s)."))
        return failures

    def _session_gone(self, agent: AgentRuntime, session_id: str, what: str) -> None:
        """A slot's session was closed or deleted: its transcript stays on screen and says
        so, queued prompts go back to the draft, and the next message opens a new session
        there."""
        for slot in self.slots_of(agent):
            session = slot.session
            if session is None or session.session_id != session_id or slot.state == "closed":
                continue
            session.transcript.add_notice(f"{what} {GONE_NEXT}")
            slot.placeholder = session.transcript  # still shown until the next session opens
            slot.session = None
            slot.intent = OpenNew(slot.cwd, slot.additional_directories)
            slot.sending = None
            self._set_state(slot, "closed", "closed")
            self.return_queue(slot, "its session is gone")
