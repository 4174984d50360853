"""Provides v2 tool calls: content (the v2 diff of file changes), the upsert, permission requests.

``ToolCallUpdate`` is the only tool-call message in v2: the first one for an id creates the call.
Its fields have three states: omitted (not in ``model_fields_set``) = unchanged, ``null`` =
cleared, a value = replaced. Kinds, statuses, operations and outcomes are open strings.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.tools import ContentToolCallContent, TerminalToolCallContent, ToolCallLocation
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, open_union

__all__ = [
    "APPROVAL_KINDS",
    "CancelledPermissionOutcome",
    "CommandPermissionSubject",
    "ContentToolCallContent",
    "Diff",
    "DiffChange",
    "DiffPatch",
    "PermissionOption",
    "RequestPermissionOutcome",
    "RequestPermissionRequest",
    "RequestPermissionResponse",
    "RequestPermissionSubject",
    "SelectedPermissionOutcome",
    "TerminalToolCallContent",
    "ToolCallContent",
    "ToolCallLocation",
    "ToolCallPermissionSubject",
    "ToolCallUpdate",
    "UnknownPermissionOutcome",
    "UnknownPermissionSubject",
    "UnknownToolCallContent",
    "is_approval",
]

# -- content ---------------------------------------------------------------------------------


class DiffChange(WireModel):
    """One file change: ``add|delete|modify`` (``path``) or ``move|copy`` (``old_path``, ``path``).

    ``operation`` and ``file_type`` are open strings (unknown values are kept).
    """

    operation: str
    path: str
    old_path: Lenient[str] = None
    file_type: Lenient[str] = None
    mime_type: Lenient[str] = None


class DiffPatch(WireModel):
    """The change as text, e.g. ``format: "git_patch"`` (absolute paths)."""

    format: str
    text: str


class Diff(TaggedModel):
    """File changes (``type: "diff"``): a list of changes and an optional patch."""

    __wire_always__ = ("type",)
    type: Literal["diff"] = "diff"
    changes: SkipInvalid[DiffChange]
    patch: Lenient[DiffPatch] = None


class UnknownToolCallContent(WireModel):
    """Tool-call content of a type this client does not know; all its fields are kept."""

    type: str


ToolCallContent = Annotated[
    Annotated[ContentToolCallContent, Tag("content")]
    | Annotated[Diff, Tag("diff")]
    | Annotated[TerminalToolCallContent, Tag("terminal")]
    | Annotated[UnknownToolCallContent, Tag(UNKNOWN)],
    open_union("type", {"content", "diff", "terminal"}),
]
"""v2 tool-call content discriminated on ``type``."""


class ToolCallUpdate(TaggedModel):
    """Create or patch a tool call (three-state fields; ``kind``/``status`` are open strings)."""

    tool_call_id: str
    title: Lenient[str] = None
    kind: Lenient[str] = None
    status: Lenient[str] = None
    content: Lenient[SkipInvalid[ToolCallContent]] = None
    locations: Lenient[SkipInvalid[ToolCallLocation]] = None
    raw_input: Any = None
    raw_output: Any = None
    name: Lenient[str] = None
    """UNSTABLE: the programmatic name of the tool (null clears it)."""


# -- session/request_permission --------------------------------------------------------------

APPROVAL_KINDS = frozenset({"allow_once", "allow_always"})
"""The only option kinds that mean approval; any other (unknown, custom) kind never does."""


def is_approval(kind: str | None) -> bool:
    """Whether an option kind approves: only the known ``allow_*`` kinds do."""
    return kind in APPROVAL_KINDS


class PermissionOption(WireModel):
    """A choice offered to the user; ``kind`` is open (unknown kinds are never approval)."""

    option_id: str
    name: str
    kind: str


class ToolCallPermissionSubject(TaggedModel):
    """The permission is about a tool call."""

    __wire_always__ = ("type",)
    type: Literal["tool_call"] = "tool_call"
    tool_call: ToolCallUpdate


class CommandPermissionSubject(TaggedModel):
    """The permission is about running a shell command."""

    __wire_always__ = ("type",)
    type: Literal["command"] = "command"
    command: str
    cwd: str
    tool_call_id: Lenient[str] = None
    terminal_id: Lenient[str] = None


class UnknownPermissionSubject(WireModel):
    """A subject of a type this client does not know; all its fields are kept."""

    type: str


RequestPermissionSubject = Annotated[
    Annotated[ToolCallPermissionSubject, Tag("tool_call")]
    | Annotated[CommandPermissionSubject, Tag("command")]
    | Annotated[UnknownPermissionSubject, Tag(UNKNOWN)],
    open_union("type", {"tool_call", "command"}),
]


class RequestPermissionRequest(WireModel):
    """The params of v2 `session/request_permission`: a question, maybe a subject, options."""

    session_id: str
    title: str
    description: Lenient[str] = None
    subject: RequestPermissionSubject | None = None
    options: list[PermissionOption] = Field(min_length=1)


class SelectedPermissionOutcome(TaggedModel):
    """The user chose ``option_id``."""

    __wire_always__ = ("outcome",)
    outcome: Literal["selected"] = "selected"
    option_id: str


class CancelledPermissionOutcome(TaggedModel):
    """The turn was cancelled before the user chose."""

    __wire_always__ = ("outcome",)
    outcome: Literal["cancelled"] = "cancelled"


class UnknownPermissionOutcome(WireModel):
    """An outcome this client does not know: kept, and never to be taken as approval."""

    outcome: str


RequestPermissionOutcome = Annotated[
    Annotated[SelectedPermissionOutcome, Tag("selected")]
    | Annotated[CancelledPermissionOutcome, Tag("cancelled")]
    | Annotated[UnknownPermissionOutcome, Tag(UNKNOWN)],
    open_union("outcome", {"selected", "cancelled"}),
]


class RequestPermissionResponse(WireModel):
    """The result of `session/request_permission` (same shape as v1)."""

    outcome: RequestPermissionOutcome
