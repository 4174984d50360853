"""Provides LocalTitles, the part of the Workspace that keeps the titles the user gives sessions.

A session renamed here (``ws.titles.rename``) shows that title in the browser, its tab and its
header, over the agent's, until it is cleared. The titles are kept by the transcript cache
beside the transcripts (through the history library when it runs), so they survive restarts
and index rebuilds. Each slot carries its session's local title (set when the session is
shown), and a `SessionRenamed` tells every view.

A fork is titled "Fork of …" the same way (``ws.titles.forked``), so that it keeps that title
after ``--continue`` or reopened from a browser, where the agent may replay the source's
title with its history. That title is acp-tui's stand-in, not the user's: once the agent gives
the fork a title of its own (a `session_info_update` while the fork is open in a tab, other
than the source's title), the agent's wins, as it names what the fork has become. A title
the user gives always wins, and is never replaced.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp_tui.client.workspace.events import SessionInfoChanged, SessionRenamed, SessionShown

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.store.transcripts import TranscriptCache

__all__ = ["LocalTitles"]

log = logging.getLogger(__name__)


class LocalTitles:
    """The local titles (``ws.titles``); it receives the ``board`` and the ``cache``."""

    def __init__(self, board: Board, cache: TranscriptCache) -> None:
        self.board = board
        self.cache = cache
        board.on(SessionShown, self.session_shown)
        board.on(SessionInfoChanged, self.info_changed)

    def of(self, agent: AgentRuntime) -> dict[str, str]:
        """The titles the user gave ``agent``'s sessions here, by session id."""
        try:
            return self.cache.local_titles(agent.key)
        except Exception:
            log.warning("cannot read the local titles", exc_info=True)
            return {}

    def session_shown(self, event: SessionShown) -> None:
        slot = event.slot
        sid = slot.session_id
        slot.local_title = self.of(slot.agent).get(sid) if sid is not None else None

    def forked(self, agent: AgentRuntime, session_id: str, title: str) -> str | None:
        """Title a fork opened here (``Fork of …``) until the user or the agent names it; the
        title as kept, None when it could not be kept."""
        try:
            return self.rename(agent, session_id, title, fork=True)
        except OSError:
            log.warning("cannot keep the title of the fork %s", session_id, exc_info=True)
            return None

    def info_changed(self, event: SessionInfoChanged) -> None:
        """The agent titled a session: a fork open in a tab takes the agent's own title over
        its "Fork of …" (not the source's title again, nor a replay while it opens)."""
        agent, session_id, title = event.agent, event.session_id, event.title
        if "title" not in event.given or not title or not title.strip():
            return
        slot = self.board.slot_showing(agent, session_id)
        if slot is None or not slot.live or slot.local_title is None:
            return
        if session_id not in self.cache.fork_titled(agent.key):
            return
        given = " ".join(title.split())
        if slot.local_title in (given, f"Fork of {given}"):
            return
        try:
            self.rename(agent, session_id, None)
        except OSError:
            log.warning("cannot clear the title of the fork %s", session_id, exc_info=True)

    def rename(
        self, agent: AgentRuntime, session_id: str, title: str | None, *, fork: bool = False
    ) -> str | None:
        """Give a session a local title (None or blank: back to the agent's; ``fork``: a
        fork's, see `forked`); the title as kept. Raises OSError when it cannot be kept."""
        kept = self.cache.set_local_title(agent.key, session_id, title, fork=fork)
        for slot in self.board.slots_of(agent):
            if slot.session_id == session_id:
                slot.local_title = kept
        self.board.emit(SessionRenamed(agent, session_id, kept))
        return kept
