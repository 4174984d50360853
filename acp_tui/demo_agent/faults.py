"""Provides Faults: the demo agent misbehaving on purpose (``--fault``), as real agents do.

Each fault is a few lines around the ordinary method dispatch (see ``FAULT_HELP`` in
``acp_tui.demo_agent.options`` for what each one does), so the rest of the agent stays honest.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

if TYPE_CHECKING:
    from acp_tui.demo_agent.server import DemoAgent

log = logging.getLogger(__name__)

ERROR_DATA = "CODEX_API_KEY is not set"
ERROR_DETAILS = {
    "message": "stream disconnected before completion",
    "details": "error sending request for url (https://api.invalid/v1/responses)\n"
    "caused by: connection reset by peer",
}
FAILING = frozenset({"session/prompt", "session/list", "session/delete"})
SLOW_LIST_SECONDS = 1.0
LATE_CHUNK_SECONDS = 0.2
LATE_CHUNK_TEXT = "A late chunk, sent after the turn ended."
AFTER_CLOSE_UPDATES = 100


class Faults:
    """What ``--fault`` changes in the dispatch of ``agent``; nothing without it."""

    def __init__(self, agent: DemoAgent) -> None:
        self.agent = agent
        self.fault = agent.options.fault
        if self.fault == "late-chunk":
            agent.outgoing = _without_message_id
        elif self.fault == "no-titles":
            agent.outgoing = _without_session_info

    async def before(self, method: str) -> None:
        """Before ``method`` is served: fail it, or make it slow."""
        if self.fault in ("error-data", "error-details") and method in FAILING:
            data: Any = ERROR_DATA if self.fault == "error-data" else ERROR_DETAILS
            log.warning("fault %s: %s fails", self.fault, method)
            raise RpcError(ErrorCode.INTERNAL_ERROR, "Internal error", data)
        if self.fault == "slow-list" and method == "session/list":
            await anyio.sleep(SLOW_LIST_SECONDS)

    def after(self, method: str, params: Any) -> None:
        """``method`` was served (its answer is about to be written): what follows it."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str):
            return
        if self.fault == "late-chunk" and method == "session/prompt":
            self.agent.task_group.start_soon(self._late_chunk, session_id)
        elif self.fault == "updates-after-close" and method == "session/close":
            self.agent.task_group.start_soon(self._updates_after_close, session_id)

    async def _late_chunk(self, session_id: str) -> None:
        await anyio.sleep(LATE_CHUNK_SECONDS)
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": LATE_CHUNK_TEXT},
        }
        await self.agent.send_update(session_id, update, record=False)

    async def _updates_after_close(self, session_id: str) -> None:
        await anyio.sleep(0.1)  # after the answer to session/close
        for number in range(1, AFTER_CLOSE_UPDATES + 1):
            text = f"Update {number} for the closed session {session_id}. "
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            }
            await self.agent.send_update(session_id, update, record=False)


def _without_message_id(update: dict[str, Any]) -> dict[str, Any]:
    """The update as agents that send no ``messageId`` write it."""
    return {key: value for key, value in update.items() if key != "messageId"}


def _without_session_info(update: dict[str, Any]) -> dict[str, Any] | None:
    """No `session_info_update` at all: the agent never titles its sessions."""
    return None if update.get("sessionUpdate") == "session_info_update" else update
