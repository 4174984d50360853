"""Provides the `session/update` notification and every kind of session update it carries.

Parse a notification's params with ``SessionNotification.from_wire(params)``; its ``update`` is
one of the classes of the ``SessionUpdate`` union (``UnknownSessionUpdate`` for kinds this client
does not know, with every field kept).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AliasChoices, Field, Tag, model_validator

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel, lenient
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.session_config import (
    ConfigOptionList,
    SessionConfigBoolean,
    SessionConfigOption,
    SessionConfigOptionCategory,
    SessionConfigSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    UnknownSessionConfigOption,
)
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    DiffToolCallContent,
    TerminalToolCallContent,
    ToolCall,
    ToolCallContent,
    ToolCallLocation,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    UnknownToolCallContent,
)
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union

__all__ = [
    "AgentMessageChunk",
    "AgentThoughtChunk",
    "AvailableCommand",
    "AvailableCommandInput",
    "AvailableCommandsUpdate",
    "ConfigOptionUpdate",
    "ContentChunk",
    "ContentToolCallContent",
    "Cost",
    "CurrentModeUpdate",
    "DiffToolCallContent",
    "PlanEntry",
    "PlanEntryPriority",
    "PlanEntryStatus",
    "PlanUpdate",
    "SessionConfigBoolean",
    "SessionConfigOption",
    "SessionConfigOptionCategory",
    "SessionConfigSelect",
    "SessionConfigSelectGroup",
    "SessionConfigSelectOption",
    "SessionInfoUpdate",
    "SessionMode",
    "SessionModeState",
    "SessionNotice",
    "SessionNotification",
    "SessionUpdate",
    "TerminalToolCallContent",
    "ToolCall",
    "ToolCallContent",
    "ToolCallLocation",
    "ToolCallProgress",
    "ToolCallStart",
    "ToolCallStatus",
    "ToolCallUpdate",
    "ToolKind",
    "UnknownSessionConfigOption",
    "UnknownSessionUpdate",
    "UnknownToolCallContent",
    "UsageUpdate",
    "UserMessageChunk",
    "update_classes",
]


class ContentChunk(TaggedModel):
    """A streamed piece of a message; chunks with the same ``message_id`` form one message."""

    content: ContentBlock
    message_id: Lenient[str] = None


class UserMessageChunk(ContentChunk):
    """A chunk of a user message (``user_message_chunk``), e.g. during `session/load` replay."""

    __wire_always__ = ("session_update",)
    session_update: Literal["user_message_chunk"] = "user_message_chunk"


class AgentMessageChunk(ContentChunk):
    """A chunk of the agent's answer (``agent_message_chunk``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"


class AgentThoughtChunk(ContentChunk):
    """A chunk of the agent's reasoning (``agent_thought_chunk``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["agent_thought_chunk"] = "agent_thought_chunk"


class ToolCallStart(ToolCall):
    """A new tool call (``tool_call``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["tool_call"] = "tool_call"


class ToolCallProgress(ToolCallUpdate):
    """A patch to a tool call (``tool_call_update``); may arrive for an id never announced."""

    __wire_always__ = ("session_update",)
    session_update: Literal["tool_call_update"] = "tool_call_update"


PlanEntryPriority = Literal["high", "medium", "low"]
PlanEntryStatus = Literal["pending", "in_progress", "completed"]


class PlanEntry(WireModel):
    """One task of the agent's plan."""

    content: str
    priority: PlanEntryPriority
    status: PlanEntryStatus


class PlanUpdate(TaggedModel):
    """The agent's complete plan (``plan``); replaces the previous one."""

    __wire_always__ = ("session_update",)
    session_update: Literal["plan"] = "plan"
    entries: Annotated[SkipInvalid[PlanEntry], lenient_factory(list)] = Field(default_factory=list)


class AvailableCommandInput(WireModel):
    """Free-text input of a command, with a hint shown while it is not typed yet."""

    hint: str


class AvailableCommand(WireModel):
    """A slash command the agent offers."""

    name: str
    description: str
    input: Lenient[AvailableCommandInput] = None


class AvailableCommandsUpdate(TaggedModel):
    """The complete list of available commands (``available_commands_update``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["available_commands_update"] = "available_commands_update"
    available_commands: Annotated[SkipInvalid[AvailableCommand], lenient_factory(list)] = Field(
        default_factory=list
    )


class CurrentModeUpdate(TaggedModel):
    """The agent switched mode (``current_mode_update``); also accepts the ``modeId`` quirk."""

    __wire_always__ = ("session_update",)
    session_update: Literal["current_mode_update"] = "current_mode_update"
    current_mode_id: str = Field(
        validation_alias=AliasChoices("currentModeId", "current_mode_id", "modeId")
    )


class ConfigOptionUpdate(TaggedModel):
    """The complete state of the config options (``config_option_update``)."""

    __wire_always__ = ("session_update",)
    session_update: Literal["config_option_update"] = "config_option_update"
    config_options: ConfigOptionList = Field(default_factory=list)


class SessionInfoUpdate(TaggedModel):
    """Changed session metadata (``session_info_update``).

    Three states per field: unset (not in ``model_fields_set``) = unchanged, ``None`` = cleared,
    a string = new value. A malformed value counts as unset.
    """

    __wire_always__ = ("session_update",)
    session_update: Literal["session_info_update"] = "session_info_update"
    title: str | None = None
    updated_at: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_malformed(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        bad = [
            key
            for key in ("title", "updatedAt", "updated_at")
            if key in data and data[key] is not None and not isinstance(data[key], str)
        ]
        return {k: v for k, v in data.items() if k not in bad} if bad else data


class Cost(WireModel):
    """A cumulative session cost."""

    amount: float
    currency: str


class UsageUpdate(TaggedModel):
    """Context window usage (``usage_update``): ``used`` of ``size`` tokens, optional cost."""

    __wire_always__ = ("session_update",)
    session_update: Literal["usage_update"] = "usage_update"
    used: int
    size: int
    cost: Lenient[Cost] = None


class SessionNotice(WireModel):
    """UNSTABLE ``notice``: advisory information for the user, not session history.

    Read from an ``UnknownSessionUpdate`` (both versions leave the kind out of their unions, so
    it stays an unknown kind on the wire models); ``severity`` is ``info``, ``warning``,
    ``error`` or anything else (``other``, ``_custom``).
    """

    severity: Annotated[str, lenient("info")] = "info"
    title: str = Field(min_length=1)
    description: Lenient[str] = None


class UnknownSessionUpdate(WireModel):
    """A session update of a kind this client does not know; all its fields are kept."""

    session_update: str


KNOWN_SESSION_UPDATES = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    }
)

SessionUpdate = Annotated[
    Annotated[UserMessageChunk, Tag("user_message_chunk")]
    | Annotated[AgentMessageChunk, Tag("agent_message_chunk")]
    | Annotated[AgentThoughtChunk, Tag("agent_thought_chunk")]
    | Annotated[ToolCallStart, Tag("tool_call")]
    | Annotated[ToolCallProgress, Tag("tool_call_update")]
    | Annotated[PlanUpdate, Tag("plan")]
    | Annotated[AvailableCommandsUpdate, Tag("available_commands_update")]
    | Annotated[CurrentModeUpdate, Tag("current_mode_update")]
    | Annotated[ConfigOptionUpdate, Tag("config_option_update")]
    | Annotated[SessionInfoUpdate, Tag("session_info_update")]
    | Annotated[UsageUpdate, Tag("usage_update")]
    | Annotated[UnknownSessionUpdate, Tag(UNKNOWN)],
    open_union("sessionUpdate", KNOWN_SESSION_UPDATES, attribute="session_update"),
]
"""A session update discriminated on ``sessionUpdate``; unknown kinds become
``UnknownSessionUpdate``."""


def update_classes() -> list[type[WireModel]]:
    """The model of each kind of ``SessionUpdate``, ``UnknownSessionUpdate`` included."""
    union = get_args(SessionUpdate)[0]
    return [get_args(member)[0] for member in get_args(union)]


class SessionNotification(WireModel):
    """The params of `session/update`."""

    session_id: str
    update: SessionUpdate
