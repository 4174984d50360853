"""Provides the params/results of the methods the agent calls on the client (permission, fs,
terminal, elicitation)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.jsonrpc import RequestId
from acp_tui.protocol.tools import ToolCallUpdate
from acp_tui.protocol.unions import TaggedModel, lenient_factory


class EnvVariable(WireModel):
    """An environment variable for a terminal or an MCP server."""

    name: str
    value: str


# -- session/request_permission --------------------------------------------------------------

PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


class PermissionOption(WireModel):
    """A choice offered to the user; unknown ``kind`` values are kept as strings."""

    option_id: str
    name: str
    kind: PermissionOptionKind | str


class RequestPermissionRequest(WireModel):
    """The params of `session/request_permission`."""

    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


class SelectedPermissionOutcome(TaggedModel):
    """The user chose ``option_id``."""

    __wire_always__ = ("outcome",)
    outcome: Literal["selected"] = "selected"
    option_id: str


class CancelledPermissionOutcome(TaggedModel):
    """The prompt turn was cancelled before the user chose."""

    __wire_always__ = ("outcome",)
    outcome: Literal["cancelled"] = "cancelled"


RequestPermissionOutcome = Annotated[
    SelectedPermissionOutcome | CancelledPermissionOutcome, Discriminator("outcome")
]


class RequestPermissionResponse(WireModel):
    """The result of `session/request_permission`."""

    outcome: RequestPermissionOutcome


# -- fs/* ------------------------------------------------------------------------------------


class ReadTextFileRequest(WireModel):
    """The params of `fs/read_text_file`; ``line`` is 1-based, ``limit`` counts lines."""

    session_id: str
    path: str
    line: Lenient[int] = None
    limit: Lenient[int] = None


class ReadTextFileResponse(WireModel):
    """The result of `fs/read_text_file`."""

    content: str


class WriteTextFileRequest(WireModel):
    """The params of `fs/write_text_file`."""

    session_id: str
    path: str
    content: str


class WriteTextFileResponse(WireModel):
    """The result of `fs/write_text_file` (``{}``; ``null`` is accepted too)."""


# -- terminal/* ------------------------------------------------------------------------------


class CreateTerminalRequest(WireModel):
    """The params of `terminal/create`."""

    session_id: str
    command: str
    args: Annotated[SkipInvalid[str], lenient_factory(list)] = Field(default_factory=list)
    env: Annotated[SkipInvalid[EnvVariable], lenient_factory(list)] = Field(default_factory=list)
    cwd: Lenient[str] = None
    output_byte_limit: Lenient[int] = None


class CreateTerminalResponse(WireModel):
    """The result of `terminal/create`."""

    terminal_id: str


class _TerminalRef(WireModel):
    session_id: str
    terminal_id: str


class TerminalExitStatus(WireModel):
    """How a terminal command ended: an exit code, or the signal that killed it."""

    exit_code: Lenient[int] = None
    signal: Lenient[str] = None


class TerminalOutputRequest(_TerminalRef):
    """The params of `terminal/output`."""


class TerminalOutputResponse(WireModel):
    """The result of `terminal/output`."""

    output: str
    truncated: bool
    exit_status: Lenient[TerminalExitStatus] = None


class WaitForTerminalExitRequest(_TerminalRef):
    """The params of `terminal/wait_for_exit`."""


class WaitForTerminalExitResponse(TerminalExitStatus):
    """The result of `terminal/wait_for_exit`."""


class KillTerminalRequest(_TerminalRef):
    """The params of `terminal/kill`."""


class KillTerminalResponse(WireModel):
    """The result of `terminal/kill`."""


class ReleaseTerminalRequest(_TerminalRef):
    """The params of `terminal/release`."""


class ReleaseTerminalResponse(WireModel):
    """The result of `terminal/release`."""


# -- elicitation/* ---------------------------------------------------------------------------

ElicitationMode = Literal["form", "url"]
ElicitationAction = Literal["accept", "decline", "cancel"]


class CreateElicitationRequest(WireModel):
    """The params of `elicitation/create`, kept loose: ``mode`` is form, url or a custom one.

    Session-scoped requests carry ``session_id`` (and maybe ``tool_call_id``), request-scoped ones
    ``request_id`` (which may be ``null``; check ``model_fields_set``).
    """

    mode: ElicitationMode | str
    message: str
    session_id: str | None = None
    tool_call_id: Lenient[str] = None
    request_id: RequestId = None
    requested_schema: dict[str, Any] | None = None
    elicitation_id: str | None = None
    url: str | None = None


class CreateElicitationResponse(TaggedModel):
    """The result of `elicitation/create`: accept (with ``content`` for forms), decline, cancel."""

    __wire_always__ = ("action",)
    action: ElicitationAction | str
    content: dict[str, Any] | None = None


class CompleteElicitationNotification(WireModel):
    """The params of `elicitation/complete` (a URL-mode elicitation finished)."""

    elicitation_id: str
