"""Provides the tool-call wire types: kinds, statuses, content, locations, calls and updates."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel, lenient
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
"""What kind of tool is called (helps choosing an icon); unknown values degrade to a default."""

ToolCallStatus = Literal["pending", "in_progress", "completed", "failed"]
"""Execution status of a tool call; unknown values degrade to a default."""


class ContentToolCallContent(TaggedModel):
    """A content block produced by the tool (``type: "content"``, `$defs/Content`)."""

    __wire_always__ = ("type",)
    type: Literal["content"] = "content"
    content: ContentBlock


class DiffToolCallContent(TaggedModel):
    """A file modification (``type: "diff"``); ``old_text`` None means a new file."""

    __wire_always__ = ("type",)
    type: Literal["diff"] = "diff"
    path: str
    old_text: Lenient[str] = None
    new_text: str


class TerminalToolCallContent(TaggedModel):
    """The live output of a client terminal (``type: "terminal"``)."""

    __wire_always__ = ("type",)
    type: Literal["terminal"] = "terminal"
    terminal_id: str


class UnknownToolCallContent(WireModel):
    """Tool-call content of a type this client does not know; all its fields are kept."""

    type: str


KNOWN_TOOL_CALL_CONTENT_TYPES = frozenset({"content", "diff", "terminal"})

ToolCallContent = Annotated[
    Annotated[ContentToolCallContent, Tag("content")]
    | Annotated[DiffToolCallContent, Tag("diff")]
    | Annotated[TerminalToolCallContent, Tag("terminal")]
    | Annotated[UnknownToolCallContent, Tag(UNKNOWN)],
    open_union("type", KNOWN_TOOL_CALL_CONTENT_TYPES),
]
"""Tool-call content discriminated on ``type``; unknown types become ``UnknownToolCallContent``."""


class ToolCallLocation(WireModel):
    """A file location the tool works on (for follow-along); ``line`` is 1-based."""

    path: str
    line: Lenient[int] = None


class ToolCall(TaggedModel):
    """The fields of a new tool call (`$defs/ToolCall`)."""

    tool_call_id: str
    title: str
    kind: Annotated[ToolKind, lenient("other")] = "other"
    status: Annotated[ToolCallStatus, lenient("pending")] = "pending"
    content: Annotated[SkipInvalid[ToolCallContent], lenient_factory(list)] = Field(
        default_factory=list
    )
    locations: Annotated[SkipInvalid[ToolCallLocation], lenient_factory(list)] = Field(
        default_factory=list
    )
    raw_input: Any = None
    raw_output: Any = None
    name: Lenient[str] = None
    """UNSTABLE: the programmatic name of the tool."""


class ToolCallUpdate(TaggedModel):
    """A patch to a tool call (`$defs/ToolCallUpdate`): only ``tool_call_id`` is required.

    Fields left unset (see ``model_fields_set``) are unchanged; arrays replace the old ones.
    """

    tool_call_id: str
    title: Lenient[str] = None
    kind: Lenient[ToolKind] = None
    status: Lenient[ToolCallStatus] = None
    content: Lenient[SkipInvalid[ToolCallContent]] = None
    locations: Lenient[SkipInvalid[ToolCallLocation]] = None
    raw_input: Any = None
    raw_output: Any = None
    name: Lenient[str] = None
    """UNSTABLE: the programmatic name of the tool (null clears it)."""
