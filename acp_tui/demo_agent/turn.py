"""Provides TurnContext: what one prompt turn can do, and the v1 shapes of what it sends.

Every update goes through ``emit``, which appends it to the session's history before sending it,
so ``session/load`` replays exactly what the client saw. The update builders live here so that a
v2 dialect could swap them without touching the keyword script.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.lowlevel

from acp_tui.demo_agent.options import ClientCaps
from acp_tui.demo_agent.stdio import ExitNow, exit_process
from acp_tui.demo_agent.store import SessionRecord, SessionStore

Update = dict[str, Any]

CONTEXT_SIZE = 200_000
COST_PER_TOKEN = 0.000003
CHUNK_CHARS = 32

_PIECE = re.compile(r"\s*\S+\s*|\s+")


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def split_text(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Cut text into chunks of about ``size`` characters at word boundaries, losing nothing."""
    chunks: list[str] = []
    current = ""
    for piece in _PIECE.findall(text):
        if current and len(current) + len(piece) > size:
            chunks.append(current)
            current = ""
        current += piece
    if current:
        chunks.append(current)
    return chunks


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


@dataclass(slots=True)
class TurnContext:
    """The session, the client's capabilities and the channels one turn talks through."""

    record: SessionRecord
    store: SessionStore
    client: ClientCaps
    emit: Callable[[Update], Awaitable[None]]
    request: Callable[[str, Any], Awaitable[Any]]
    write_raw: Callable[[bytes], Awaitable[None]]
    notify: Callable[[str, Any], Awaitable[None]] | None = None
    """Sends a notification to the client (``elicitation/complete``)."""
    delay: float = 0.0
    reply_chars: int = 0
    send_live: Callable[[Update], Awaitable[None]] | None = None
    """Sends an update without recording it (live events such as notices); None: ``emit``."""
    mcp_servers: tuple[str, ...] = ()
    """The MCP servers the client gave the session, described (for the ``mcp`` keyword)."""
    exit_now: ExitNow = exit_process
    """Ends the agent at once (the ``crash`` keyword)."""

    @property
    def session_id(self) -> str:
        return self.record.session_id

    @property
    def cwd(self) -> str:
        return self.record.cwd

    @property
    def verbose(self) -> bool:
        return self.record.config.get("verbose") is True

    async def notify_client(self, method: str, params: Any) -> None:
        if self.notify is not None:
            await self.notify(method, params)

    async def pause(self) -> None:
        """The gap between two chunks; always a cancellation point."""
        if self.delay > 0:
            await anyio.sleep(self.delay)
        else:
            await anyio.lowlevel.checkpoint()

    # -- messages -------------------------------------------------------------------------

    async def stream(self, pieces: Iterable[str], *, kind: str = "agent_message_chunk") -> None:
        """Send the pieces as chunks of one message (one ``messageId``)."""
        message_id = new_id("thought" if kind == "agent_thought_chunk" else "msg")
        for piece in pieces:
            self.reply_chars += len(piece)
            await self.emit(
                {"sessionUpdate": kind, "messageId": message_id, "content": text_block(piece)}
            )
            await self.pause()

    async def emit_live(self, update: Update) -> None:
        """Send an update that is not session history (never replayed)."""
        await (self.send_live or self.emit)(update)

    async def say(self, text: str) -> None:
        await self.stream(split_text(text))

    async def think(self, text: str) -> None:
        await self.stream(split_text(text), kind="agent_thought_chunk")

    # -- tool calls -----------------------------------------------------------------------

    async def tool_call(
        self,
        title: str,
        kind: str,
        *,
        locations: list[str] | None = None,
        raw_input: Any = None,
        name: str | None = None,
    ) -> str:
        """Announce a pending tool call; returns its id."""
        call_id = new_id("call")
        update: Update = {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": title,
            "kind": kind,
            "status": "pending",
        }
        if locations:
            update["locations"] = [{"path": path} for path in locations]
        if raw_input is not None:
            update["rawInput"] = raw_input
        if name is not None:
            update["name"] = name  # UNSTABLE: the tool's programmatic name
        await self.emit(update)
        return call_id

    async def tool_update(self, call_id: str, **fields: Any) -> None:
        """Send a ``tool_call_update``; keyword names are the camelCase wire names."""
        await self.emit({"sessionUpdate": "tool_call_update", "toolCallId": call_id, **fields})

    # -- session state --------------------------------------------------------------------

    async def plan(self, entries: list[tuple[str, str, str]]) -> None:
        """Send the whole plan: (content, priority, status) per entry."""
        await self.emit(
            {
                "sessionUpdate": "plan",
                "entries": [{"content": c, "priority": p, "status": s} for c, p, s in entries],
            }
        )

    async def session_info(self, *, title: str | None = None, touch: bool = False) -> None:
        """Persist and announce a new title and/or a new ``updatedAt``."""
        update: Update = {"sessionUpdate": "session_info_update"}
        if title is not None:
            self.record.title = title
            update["title"] = title
        if touch:
            self.record.updated_at = self.store.now()
            update["updatedAt"] = self.record.updated_at
        self.store.put(self.record)
        await self.emit(update)

    async def usage(self) -> None:
        used = self.record.tokens
        await self.emit(
            {
                "sessionUpdate": "usage_update",
                "used": used,
                "size": CONTEXT_SIZE,
                "cost": {"amount": round(used * COST_PER_TOKEN, 6), "currency": "USD"},
            }
        )
