"""Provides UnusedSessions, the part of the Workspace that leaves no empty session behind.

Every launch opens a session (`session/new`), and so do Ctrl+N, ``/new`` and ``/clear``. One
in which nothing was sent is not worth keeping: on the way out the Workspace deletes it
(`session/delete`) where the agent can, and its local record with it. Where the agent cannot
(or the delete fails, or acp-tui stops before it could), the session stays marked unused in the
store (`SessionRecorder.note_new`), and the session browsers and ``--continue`` pass over it
(``hidden``) until something is sent in it.

Only sessions created here by `session/new` are deleted, never one loaded, resumed or forked,
and never one in which anything was sent: a prompt (an agent's slash command is one), or meant
to be: prompts still queued in its tab, or a ``!`` command's output waiting to go with the next
prompt. Changing its mode or model sends no message: such a session is still empty.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio

from acp_tui.client.errors import AgentError
from acp_tui.protocol.jsonrpc import RpcError

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.store.transcripts import TranscriptCache

__all__ = ["DISCARD_WITHIN", "UnusedSessions"]

log = logging.getLogger(__name__)

DISCARD_WITHIN = 3.0
"""How long leaving the Workspace waits for the agents to delete the unused sessions."""


class UnusedSessions:
    """The sessions created here and never used (``ws.unused``); it receives the ``board``
    and the ``cache`` (where they are marked)."""

    def __init__(self, board: Board, cache: TranscriptCache) -> None:
        self.board = board
        self.cache = cache

    def hidden(self, agent_key: str, agent: AgentRuntime | None = None) -> frozenset[str]:
        """The sessions of the agent the browsers and ``--continue`` pass over: created here
        and never used, except one open in a tab (the tab shows it, so does its row)."""
        try:
            unused = self.cache.unused_sessions(agent_key)
        except Exception:
            log.warning("cannot read the unused sessions", exc_info=True)
            return frozenset()
        if not unused or agent is None:
            return unused
        shown = {slot.session_id for slot in self.board.slots_of(agent) if slot.live}
        return unused - shown

    def meant(self, agent: AgentRuntime, session_id: str) -> bool:
        """Whether something waits to be sent in the session (queued, or a ``!`` output)."""
        slot = self.board.slot_showing(agent, session_id)
        return slot is not None and bool(
            slot.queue or slot.queue.sending is not None or slot.context
        )

    async def discard(self, agents: list[AgentRuntime], within: float = DISCARD_WITHIN) -> None:
        """Delete the agents' unused sessions where they can (boundedly); the rest stay
        marked, and hidden."""
        with anyio.move_on_after(within):
            for agent in agents:
                await self._discard(agent)

    async def _discard(self, agent: AgentRuntime) -> None:
        recorder, client = agent.recorder, agent.client
        for session_id in recorder.unused():
            if self.meant(agent, session_id):
                recorder.used(session_id)
                continue
            if client is None or not client.capabilities.can_delete or agent.stopping:
                continue
            try:
                await client.delete_session(session_id)
            except (AgentError, RpcError) as exc:
                log.info("could not delete the unused session %s: %s", session_id, exc)
                continue
            recorder.discarded(session_id)
            try:
                agent.history.forget(session_id)
            except Exception:
                log.warning("could not forget %s locally", session_id, exc_info=True)
