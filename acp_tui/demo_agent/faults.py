"""Provides Faults: the demo agent misbehaving on purpose (``--fault``), as real agents do.

Each fault is a few lines around the ordinary method dispatch (see ``FAULT_HELP`` in
``acp_tui.demo_agent.options`` for what each one does), so the rest of the agent stays honest.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from anyio.abc import ByteSendStream

from acp_tui.protocol.connection import incoming_request_id
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from acp_tui.demo_agent.options import AgentOptions
    from acp_tui.demo_agent.stdio import Output
    from acp_tui.demo_agent.store import SessionStore

log = logging.getLogger(__name__)

ERROR_DATA = "CODEX_API_KEY is not set"
ERROR_DETAILS = {
    "message": "stream disconnected before completion",
    "details": "error sending request for url (https://api.invalid/v1/responses)\n"
    "caused by: connection reset by peer",
}
FAILING = frozenset({"session/prompt", "session/list", "session/delete"})
SESSION_SETUP = frozenset({"session/new", "session/load", "session/resume", "session/fork"})
SLOW_LIST_SECONDS = 3.0
"""Long enough for a test to act while the list is pending, on a loaded machine too (1 s was
sometimes over before the browser had shown that it waited)."""
LATE_CHUNK_SECONDS = 0.2
LATE_CHUNK_TEXT = "A late chunk, sent after the turn ended."
AFTER_CLOSE_UPDATES = 100
OPENING_METHODS = frozenset({"session/new", "session/load", "session/resume"})
NOTICE_AFTER_OPEN: dict[str, Any] = {
    "sessionUpdate": "notice",
    "severity": "warning",
    "title": "Quota nearly used",
    "description": "Sent right after the session opened.",
}


class FaultyAgent(Protocol):
    """What the faults use of the DemoAgent (a protocol: the server imports this module)."""

    options: AgentOptions
    protocol_version: int
    output: Output
    store: SessionStore

    @property
    def task_group(self) -> TaskGroup: ...

    async def send_update(
        self, session_id: str, update: dict[str, Any], *, record: bool
    ) -> None: ...


class Faults:
    """What ``--fault`` changes in the dispatch of ``agent``; nothing without it."""

    def __init__(self, agent: FaultyAgent) -> None:
        self.agent = agent
        self.faulty = agent.options.faulty
        self._last_reply: dict[str, str] = {}
        """The messageId of each session's last agent_message_chunk (late-chunk, v2)."""

    def rewrite(self, update: dict[str, Any]) -> dict[str, Any] | None:
        """An update about to be sent (in the dialect's shape) as the faults want it; None
        drops it."""
        if self.faulty("no-titles") and update.get("sessionUpdate") == "session_info_update":
            return None  # the agent never titles its sessions
        if self.faulty("late-chunk") and self.agent.protocol_version == 1:
            return _without_message_id(update)
        return update

    async def before(self, method: str) -> None:
        """Before ``method`` is served: fail it, or make it slow."""
        if (self.faulty("error-data") or self.faulty("error-details")) and method in FAILING:
            data: Any = ERROR_DATA if self.faulty("error-data") else ERROR_DETAILS
            log.warning("fault error-data/details: %s fails", method)
            raise RpcError(ErrorCode.INTERNAL_ERROR, "Internal error", data)
        if self.faulty("slow-list") and method == "session/list":
            await anyio.sleep(SLOW_LIST_SECONDS)
        hangs = (self.faulty("hang-session") and method in SESSION_SETUP) or (
            self.faulty("hang-list") and method == "session/list"
        )
        if hangs:
            log.warning("fault hang-session/hang-list: not answering %s", method)
            await anyio.sleep_forever()  # until the client cancels the request (-32800)

    def after(self, method: str, params: Any, result: Any = None) -> None:
        """``method`` was served (its answer is about to be written): what follows it."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if session_id is None and isinstance(result, dict):
            session_id = result.get("sessionId")  # session/new: the id is in the answer
        if not isinstance(session_id, str):
            return
        if self.faulty("notice-after-open") and method in OPENING_METHODS:
            self._notice_after_answer(session_id)
        v1 = self.agent.protocol_version == 1
        if self.faulty("late-chunk") and method == "session/prompt" and v1:
            self.agent.task_group.start_soon(self._late_chunk, session_id, None)
        elif self.faulty("updates-after-close") and method == "session/close":
            self.agent.task_group.start_soon(self._updates_after_close, session_id)
        if self.faulty("close-deletes") and method == "session/close":
            self.agent.store.delete(session_id)  # pydantic-acp: closing forgets the session

    def replay(self, session_id: str, *, active: bool) -> dict[str, Any] | None:
        """A load (v2: resume with ``replayFrom``) about to replay ``session_id``: refused, or
        answered with nothing (``{}``, no replay, the session not opened); None goes on."""
        if self.faulty("load-refuses-active") and active:
            raise RpcError(ErrorCode.INVALID_REQUEST, f"Session {session_id} is already active")
        if self.faulty("load-empty"):
            return {}
        if self.faulty("close-deletes") and self.agent.store.get(session_id) is None:
            return {}  # pydantic-acp: a session it does not know loads as nothing
        return None

    def sent(self, session_id: str, update: dict[str, Any]) -> None:
        """``update`` was sent: in v2 a turn ends with ``state_update idle``, not an answer."""
        if not self.faulty("late-chunk"):
            return
        kind, message_id = update.get("sessionUpdate"), update.get("messageId")
        if kind == "agent_message_chunk" and isinstance(message_id, str):
            self._last_reply[session_id] = message_id
        elif kind == "state_update" and update.get("state") == "idle":
            last = self._last_reply.pop(session_id, None)
            self.agent.task_group.start_soon(self._late_chunk, session_id, last)

    def session_id(self, fresh: str) -> str:
        """The id of a new session: ``fresh``, or with dated-ids the date and minute first."""
        if not self.faulty("dated-ids"):
            return fresh
        return f"{time.strftime('%Y-%m-%d-%H%M')}-{fresh}"

    def _notice_after_answer(self, session_id: str) -> None:
        """A notice written right behind the answer to this request, before anything else."""
        request_id = json.dumps(incoming_request_id.get(), separators=(",", ":"))
        written = self.agent.output.after(f'"id":{request_id},"result"'.encode())

        async def send() -> None:
            with anyio.move_on_after(5):
                await written.wait()
            await self.agent.send_update(session_id, NOTICE_AFTER_OPEN, record=False)

        self.agent.task_group.start_soon(send)

    async def _late_chunk(self, session_id: str, message_id: str | None) -> None:
        await anyio.sleep(LATE_CHUNK_SECONDS)
        update: dict[str, Any] = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": LATE_CHUNK_TEXT},
        }
        if message_id is not None:
            update["messageId"] = message_id
        await self.agent.send_update(session_id, update, record=False)

    async def _updates_after_close(self, session_id: str) -> None:
        await anyio.sleep(0.1)  # after the answer to session/close
        for number in range(1, AFTER_CLOSE_UPDATES + 1):
            text = f"Update {number} for the closed session {session_id}. "
            update = {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "after-close",  # required in v2
                "content": {"type": "text", "text": text},
            }
            await self.agent.send_update(session_id, update, record=False)


def _without_message_id(update: dict[str, Any]) -> dict[str, Any]:
    """The update as agents that send no ``messageId`` write it."""
    return {key: value for key, value in update.items() if key != "messageId"}


_REPLY_ID = re.compile(rb'^(\{"jsonrpc":"2\.0","id":)(\d+)(,"(?:result|error)":)')


class StringIds(ByteSendStream):
    """``string-ids``: the agent's output with every reply's id written as a string ("2" for
    request 2), as some broken agents do; the answer to ``initialize`` is left alone, so the
    connection starts and the first session call waits for an answer that never matches."""

    def __init__(self, output: ByteSendStream) -> None:
        self.output = output

    async def send(self, item: bytes) -> None:
        lines = item.split(b"\n")
        for index, line in enumerate(lines):
            if b'"protocolVersion"' not in line:
                lines[index] = _REPLY_ID.sub(rb'\1"\2"\3', line, count=1)
        await self.output.send(b"\n".join(lines))

    async def aclose(self) -> None:
        await self.output.aclose()
