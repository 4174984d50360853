"""Provides the neutral events: what a `session/update` becomes besides the shared updates.

v1 updates are the shared shapes themselves; v2 also has a whole-message replace, an appended
tool-call content item, a turn-state change and agent-owned terminals, which v1 cannot express.
`apply_event` applies any of them to a transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from acp_tui.protocol import updates as v1u
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.tools import ToolCallContent

__all__ = [
    "AgentTerminalChanged",
    "Event",
    "MessageReplaced",
    "ToolContentAppended",
    "TurnStateChanged",
    "UpdateDropped",
    "apply_event",
]


@dataclass(frozen=True, slots=True)
class TurnStateChanged:
    """The agent reports its turn state (v2 ``state_update``); unknown states change nothing."""

    state: str
    stop_reason: str | None = None


@dataclass(frozen=True, slots=True)
class MessageReplaced:
    """A whole message (v2): ``blocks`` None means its content was omitted (unchanged)."""

    role: Literal["user", "agent", "thought"]
    message_id: str
    blocks: tuple[ContentBlock, ...] | None


@dataclass(frozen=True, slots=True)
class ToolContentAppended:
    """One more content item for a tool call (v2 ``tool_call_content_chunk``)."""

    tool_call_id: str
    item: ToolCallContent


@dataclass(frozen=True, slots=True)
class AgentTerminalChanged:
    """An agent-owned, display-only terminal (v2 ``terminal_update``/``terminal_output_chunk``).

    ``output`` is more of its output, or all of it when ``replace``; ``exited`` None leaves its
    exit as it was, else says whether it has ended (with ``exit_code`` and ``signal``).
    """

    terminal_id: str
    output: bytes = b""
    replace: bool = False
    exited: bool | None = None
    exit_code: int | None = None
    signal: str | None = None


@dataclass(frozen=True, slots=True)
class UpdateDropped:
    """An update that could not be read was skipped: ``what`` it was ("a tool call without an
    id"), for a quiet note in the transcript (`acp_tui.client.agent.dropped`)."""

    what: str


Event = (
    v1u.SessionUpdate
    | TurnStateChanged
    | MessageReplaced
    | ToolContentAppended
    | AgentTerminalChanged
    | UpdateDropped
)
"""What a `session/update` becomes: a shared (v1-shaped) update or a neutral event."""


def apply_event(transcript: Any, event: Event) -> list[v1u.SessionUpdate]:
    """Apply ``event`` to ``transcript``; returns the v1 updates that describe the result.

    The returned updates are what listeners (the transcript recorder) get, so a cached transcript
    replays with the v1 machinery: appended chunks for the new part of a replaced message, the
    whole content of a tool call after an appended item. Turn states are the caller's job.
    """
    if isinstance(event, TurnStateChanged):
        return []
    if isinstance(event, UpdateDropped):  # said, never recorded
        transcript.note_dropped(event.what)
        return []
    if isinstance(event, MessageReplaced):
        before = transcript.replace_message(event.role, event.message_id, event.blocks)
        blocks = list(event.blocks or ())
        if before is not None and _wire(blocks[: len(before)]) == _wire(before):
            blocks = blocks[len(before) :]
        chunk = _CHUNKS[event.role]
        chunks: list[v1u.SessionUpdate] = []
        for block in blocks:
            chunks.append(chunk(content=block, message_id=event.message_id))
        return chunks
    if isinstance(event, AgentTerminalChanged):
        # Display only, and not recorded: a local copy shows the tool call without its output.
        if event.output or event.replace:
            transcript.agent_terminal_output(event.terminal_id, event.output, replace=event.replace)
        if event.exited is not None:
            transcript.agent_terminal_exit(
                event.terminal_id, event.exited, event.exit_code, event.signal
            )
        return []
    if isinstance(event, ToolContentAppended):
        entry = transcript.append_tool_content(event.tool_call_id, [event.item])
        whole = v1u.ToolCallProgress.model_construct(
            tool_call_id=event.tool_call_id, content=list(entry.content)
        )
        return [whole]
    transcript.apply(event)
    return [event]


def _wire(blocks: Sequence[ContentBlock]) -> list[Any]:
    return [block.to_wire() for block in blocks]


_CHUNKS: dict[
    str, type[v1u.UserMessageChunk] | type[v1u.AgentMessageChunk] | type[v1u.AgentThoughtChunk]
] = {
    "user": v1u.UserMessageChunk,
    "agent": v1u.AgentMessageChunk,
    "thought": v1u.AgentThoughtChunk,
}
