"""Provides LocalTitles, the part of the Workspace that keeps the titles the user gives sessions.

A session renamed here (``ws.titles.rename``) shows that title in the browser, its tab and its
header, over the agent's, until it is cleared. The titles are kept by the transcript cache
beside the transcripts (through the history library when it runs), so they survive restarts
and index rebuilds. Each slot carries its session's local title (set when the session is
shown), and a `SessionRenamed` tells every view.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp_tui.client.workspace.events import SessionRenamed, SessionShown

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

    def rename(self, agent: AgentRuntime, session_id: str, title: str | None) -> str | None:
        """Give a session a local title (None or blank: back to the agent's); the title as
        kept. Raises OSError when it cannot be kept."""
        kept = self.cache.set_local_title(agent.key, session_id, title)
        for slot in self.board.slots_of(agent):
            if slot.session_id == session_id:
                slot.local_title = kept
        self.board.emit(SessionRenamed(agent, session_id, kept))
        return kept
