"""Provides the v2 `session/update` notification and every update kind of the draft.

Whole messages (``user_message``, ``agent_message``, ``agent_thought``) replace the message with
that ``messageId``; chunks append to it (``messageId`` is required on both). ``state_update``
carries the turn state (``running``, ``requires_action``, ``idle`` with its ``stopReason``).
``tool_call_update`` is an upsert, ``tool_call_content_chunk`` appends to a call's content, and
``plan_update`` replaces the plan. Unknown kinds become ``UnknownSessionUpdate`` with every field.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union
from acp_tui.protocol.updates import Cost, SessionInfoUpdate, UsageUpdate
from acp_tui.protocol.v2.config import ConfigOptionList
from acp_tui.protocol.v2.tools import ToolCallContent, ToolCallUpdate

__all__ = [
    "AgentMessage",
    "AgentMessageChunk",
    "AgentThought",
    "AgentThoughtChunk",
    "AvailableCommand",
    "AvailableCommandsUpdate",
    "ConfigOptionUpdate",
    "Cost",
    "IdleState",
    "PlanEntry",
    "PlanItems",
    "PlanUpdate",
    "RequiresActionState",
    "RunningState",
    "SessionInfoUpdate",
    "SessionNotification",
    "SessionUpdate",
    "StateUpdate",
    "TerminalOutputChunk",
    "TerminalUpdate",
    "ToolCallContentChunk",
    "ToolCallProgress",
    "UnknownPlan",
    "UnknownSessionUpdate",
    "UnknownState",
    "UsageUpdate",
    "UserMessage",
    "UserMessageChunk",
]

# -- messages --------------------------------------------------------------------------------


class _Chunk(TaggedModel):
    __wire_always__ = ("session_update",)
    message_id: str
    content: ContentBlock


class UserMessageChunk(_Chunk):
    """A piece of a user message (``user_message_chunk``)."""

    session_update: Literal["user_message_chunk"] = "user_message_chunk"


class AgentMessageChunk(_Chunk):
    """A piece of the agent's answer (``agent_message_chunk``)."""

    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"


class AgentThoughtChunk(_Chunk):
    """A piece of the agent's reasoning (``agent_thought_chunk``)."""

    session_update: Literal["agent_thought_chunk"] = "agent_thought_chunk"


class _Message(TaggedModel):
    """A whole message: ``content`` omitted = unchanged, ``null`` = cleared, else replaced."""

    __wire_always__ = ("session_update",)
    message_id: str
    content: Lenient[SkipInvalid[ContentBlock]] = None


class UserMessage(_Message):
    """The user's message as the agent recorded it (``user_message``, agent-owned id)."""

    session_update: Literal["user_message"] = "user_message"


class AgentMessage(_Message):
    """A whole agent message (``agent_message``)."""

    session_update: Literal["agent_message"] = "agent_message"


class AgentThought(_Message):
    """A whole thought (``agent_thought``)."""

    session_update: Literal["agent_thought"] = "agent_thought"


# -- turn state ------------------------------------------------------------------------------


class RunningState(TaggedModel):
    """The agent is working on a turn."""

    __wire_always__ = ("session_update", "state")
    session_update: Literal["state_update"] = "state_update"
    state: Literal["running"] = "running"


class RequiresActionState(TaggedModel):
    """The agent waits for the user (a permission request, an elicitation)."""

    __wire_always__ = ("session_update", "state")
    session_update: Literal["state_update"] = "state_update"
    state: Literal["requires_action"] = "requires_action"


class IdleState(TaggedModel):
    """The turn ended (``stop_reason`` is an open string: end_turn, cancelled, ...)."""

    __wire_always__ = ("session_update", "state")
    session_update: Literal["state_update"] = "state_update"
    state: Literal["idle"] = "idle"
    stop_reason: Lenient[str] = None


class UnknownState(WireModel):
    """A state this client does not know; kept, it changes nothing."""

    session_update: Literal["state_update"] = "state_update"
    state: str


StateUpdate = Annotated[
    Annotated[RunningState, Tag("running")]
    | Annotated[RequiresActionState, Tag("requires_action")]
    | Annotated[IdleState, Tag("idle")]
    | Annotated[UnknownState, Tag(UNKNOWN)],
    open_union("state", {"running", "requires_action", "idle"}),
]


# -- tool calls ------------------------------------------------------------------------------


class ToolCallProgress(ToolCallUpdate):
    """Create or patch a tool call (``tool_call_update``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["tool_call_update"] = "tool_call_update"


class ToolCallContentChunk(TaggedModel):
    """One more content item for a tool call (``tool_call_content_chunk``): appended."""

    __wire_always__ = ("session_update",)
    session_update: Literal["tool_call_content_chunk"] = "tool_call_content_chunk"
    tool_call_id: str
    content: ToolCallContent


class TerminalOutput(WireModel):
    """Terminal bytes, base64."""

    data: str


class TerminalExitStatus(WireModel):
    """How a terminal command ended."""

    exit_code: Lenient[int] = None
    signal: Lenient[str] = None


class TerminalUpdate(TaggedModel):
    """An agent-owned, display-only terminal (``terminal_update``; output replaces)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["terminal_update"] = "terminal_update"
    terminal_id: str
    command: Lenient[str] = None
    cwd: Lenient[str] = None
    output: Lenient[TerminalOutput] = None
    exit_status: Lenient[TerminalExitStatus] = None


class TerminalOutputChunk(TaggedModel):
    """More output of an agent-owned terminal (``terminal_output_chunk``, base64 ``data``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["terminal_output_chunk"] = "terminal_output_chunk"
    terminal_id: str
    data: str


# -- plan, commands, config ------------------------------------------------------------------


class PlanEntry(WireModel):
    """One task of the plan; ``priority`` and ``status`` are open strings."""

    content: str
    priority: str
    status: str


class PlanItems(TaggedModel):
    """A plan as a list of entries (``type: "items"``)."""

    __wire_always__ = ("type",)
    type: Literal["items"] = "items"
    plan_id: str
    entries: Annotated[SkipInvalid[PlanEntry], lenient_factory(list)] = Field(default_factory=list)


class UnknownPlan(WireModel):
    """A plan variant this client does not know (file, markdown, custom); kept."""

    type: str
    plan_id: str


PlanContent = Annotated[
    Annotated[PlanItems, Tag("items")] | Annotated[UnknownPlan, Tag(UNKNOWN)],
    open_union("type", {"items"}),
]


class PlanUpdate(TaggedModel):
    """The agent's plan (``plan_update``): replaces the plan with the same ``planId``."""

    __wire_always__ = ("session_update",)
    session_update: Literal["plan_update"] = "plan_update"
    plan: PlanContent


class AvailableCommandInput(WireModel):
    """A command's input spec: ``{"type": "text", "hint": ...}`` or an unknown type (kept)."""

    type: str
    hint: str | None = None


class AvailableCommand(WireModel):
    """A slash command the agent offers."""

    name: str
    description: str
    input: Lenient[AvailableCommandInput] = None


class AvailableCommandsUpdate(TaggedModel):
    """The complete list of commands (``available_commands_update``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["available_commands_update"] = "available_commands_update"
    available_commands: Annotated[SkipInvalid[AvailableCommand], lenient_factory(list)] = Field(
        default_factory=list
    )


class ConfigOptionUpdate(TaggedModel):
    """The complete state of the config options (``config_option_update``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["config_option_update"] = "config_option_update"
    config_options: ConfigOptionList = Field(default_factory=list)


class UnknownSessionUpdate(WireModel):
    """A session update of a kind this client does not know; all its fields are kept."""

    session_update: str


KNOWN_SESSION_UPDATES = frozenset(
    {
        "user_message_chunk",
        "user_message",
        "agent_message_chunk",
        "agent_message",
        "agent_thought_chunk",
        "agent_thought",
        "state_update",
        "tool_call_content_chunk",
        "tool_call_update",
        "terminal_update",
        "terminal_output_chunk",
        "plan_update",
        "available_commands_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    }
)

SessionUpdate = Annotated[
    Annotated[UserMessageChunk, Tag("user_message_chunk")]
    | Annotated[UserMessage, Tag("user_message")]
    | Annotated[AgentMessageChunk, Tag("agent_message_chunk")]
    | Annotated[AgentMessage, Tag("agent_message")]
    | Annotated[AgentThoughtChunk, Tag("agent_thought_chunk")]
    | Annotated[AgentThought, Tag("agent_thought")]
    | Annotated[StateUpdate, Tag("state_update")]
    | Annotated[ToolCallContentChunk, Tag("tool_call_content_chunk")]
    | Annotated[ToolCallProgress, Tag("tool_call_update")]
    | Annotated[TerminalUpdate, Tag("terminal_update")]
    | Annotated[TerminalOutputChunk, Tag("terminal_output_chunk")]
    | Annotated[PlanUpdate, Tag("plan_update")]
    | Annotated[AvailableCommandsUpdate, Tag("available_commands_update")]
    | Annotated[ConfigOptionUpdate, Tag("config_option_update")]
    | Annotated[SessionInfoUpdate, Tag("session_info_update")]
    | Annotated[UsageUpdate, Tag("usage_update")]
    | Annotated[UnknownSessionUpdate, Tag(UNKNOWN)],
    open_union("sessionUpdate", KNOWN_SESSION_UPDATES, attribute="session_update"),
]
"""A v2 session update discriminated on ``sessionUpdate``."""


class SessionNotification(WireModel):
    """The params of v2 `session/update`."""

    session_id: str
    update: SessionUpdate
