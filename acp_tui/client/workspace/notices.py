"""Provides Notices, the part of the Workspace that says the agents' notices in passing.

A ``notice`` update ("indexing finished", "rate limit close") is shown as a toast in the tab of
its session (the transcript keeps it too, a bounded share of a flood: `session.notices`). An
agent may send one right after its answer to `session/new`,
`session/load` or `session/resume`, before the tab shows the session (the answer is read, and
the lines behind it, before the call that waited for it goes on): such a notice is kept until
the tab shows the session (`SessionShown`), then said like one that arrives mid-turn. What an
agent sends while a restore of the session still waits for its answer is its replay, the
session's past: its notices are not said again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from acp_tui.client.session.entries import AgentNotice, agent_notice
from acp_tui.client.workspace.events import AgentChanged, Notice, SessionShown
from acp_tui.protocol.updates import SessionUpdate

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.slots import SessionSlot

__all__ = ["Notices", "read_notice"]

RESTORES = frozenset({"session/load", "session/resume"})
"""The requests whose answer follows a replay of the session's history (v2 has resume only)."""
KEPT_SESSIONS = 16
KEPT_NOTICES = 16
"""Bounds of the notices kept for sessions no tab shows yet (an agent may send any number)."""


def read_notice(update: SessionUpdate) -> AgentNotice | None:
    """The notice ``update`` carries, read (and sanitised) as a transcript reads it; None for
    any other update or a malformed notice."""
    if getattr(update, "session_update", None) != "notice":
        return None
    return agent_notice(update)  # (not a scratch transcript: that would log it again)


def notice_text(notice: AgentNotice) -> str:
    return f"{notice.title}\n{notice.description}" if notice.description else notice.title


class Notices:
    """The agents' notices, said in the tab of their session (``ws.notices``).

    It receives the ``board`` only: it follows each agent's connection (`AgentChanged`) and
    the sessions the tabs show (`SessionShown`).
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self._followed: dict[AgentRuntime, tuple[AgentClient, Callable[[], None]]] = {}
        self._kept: dict[AgentRuntime, dict[str, list[AgentNotice]]] = {}
        """Notices of sessions no tab showed yet, by agent and session, oldest first."""
        board.on(AgentChanged, self.agent_changed)
        board.on(SessionShown, self.session_shown)

    def agent_changed(self, event: AgentChanged) -> None:
        """Follow the updates of a (re)connected agent; what a gone connection left is
        dropped (its sessions are reopened, and whatever they say then is new)."""
        agent = event.agent
        client = agent.client
        followed = self._followed.get(agent)
        if client is None or (followed is not None and followed[0] is client):
            return
        if followed is not None:
            followed[1]()
        self._kept.pop(agent, None)
        unsubscribe = client.subscribe(
            lambda session_id, update: self.updated(agent, client, session_id, update)
        )
        self._followed[agent] = (client, unsubscribe)

    def updated(
        self, agent: AgentRuntime, client: AgentClient, session_id: str, update: SessionUpdate
    ) -> None:
        """A notice: said in the tab showing its session, or kept until one does."""
        notice = read_notice(update)
        if notice is None:
            return
        slot = self.showing(agent, client, session_id)
        if slot is not None:
            self.board.emit(Notice(notice_text(notice), notice.level, slot))
            return
        if session_id in client.sessions and client.connection.awaiting(RESTORES):
            return  # part of the replay of a session being restored: its past
        kept = self._kept.setdefault(agent, {})
        notices = kept.setdefault(session_id, [])
        if len(notices) < KEPT_NOTICES:
            notices.append(notice)
        while len(kept) > KEPT_SESSIONS:
            del kept[next(iter(kept))]

    def showing(
        self, agent: AgentRuntime, client: AgentClient, session_id: str
    ) -> SessionSlot | None:
        """The tab showing the session the client has open under ``session_id``: not one
        still showing an older one (a session being restored, or reloaded, in it)."""
        live = client.sessions.get(session_id)
        if live is None:
            return None
        for slot in self.board.slots_of(agent):
            if slot.session is live:
                return slot
        return None

    def session_shown(self, event: SessionShown) -> None:
        """A tab shows its session now: the notices that came before are said there."""
        slot = event.slot
        session = slot.session
        kept = self._kept.get(slot.agent)
        if session is None or not kept:
            return
        for notice in kept.pop(session.session_id, ()):
            self.board.emit(Notice(notice_text(notice), notice.level, slot))
