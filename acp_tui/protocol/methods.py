"""Provides the params/results of every ACP v1 method, and the method tables.

``AGENT_METHODS`` lists what the client calls on the agent, ``CLIENT_METHODS`` what the agent calls
on the client: method name -> (params model, result model or ``None`` for notifications). Parse a
result with ``AGENT_METHODS[method][1].from_wire(result)`` (``null`` counts as ``{}``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.capabilities import InitializeRequest, InitializeResponse
from acp_tui.protocol.client_methods import (
    CompleteElicitationNotification,
    CreateElicitationRequest,
    CreateElicitationResponse,
    CreateTerminalRequest,
    CreateTerminalResponse,
    EnvVariable,
    KillTerminalRequest,
    KillTerminalResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    ReleaseTerminalResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    TerminalOutputRequest,
    TerminalOutputResponse,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
)
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.jsonrpc import RequestId
from acp_tui.protocol.session_config import ConfigOptionList, SessionConfigOption, SessionModeState
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union
from acp_tui.protocol.updates import SessionNotification

# -- method names ----------------------------------------------------------------------------

INITIALIZE = "initialize"
AUTHENTICATE = "authenticate"
LOGOUT = "logout"
SESSION_NEW = "session/new"
SESSION_LOAD = "session/load"
SESSION_LIST = "session/list"
SESSION_RESUME = "session/resume"
SESSION_CLOSE = "session/close"
SESSION_DELETE = "session/delete"
SESSION_FORK = "session/fork"
SESSION_SET_MODE = "session/set_mode"
SESSION_SET_CONFIG_OPTION = "session/set_config_option"
SESSION_PROMPT = "session/prompt"
SESSION_CANCEL = "session/cancel"
CANCEL_REQUEST = "$/cancel_request"
SESSION_UPDATE = "session/update"
SESSION_REQUEST_PERMISSION = "session/request_permission"
FS_READ_TEXT_FILE = "fs/read_text_file"
FS_WRITE_TEXT_FILE = "fs/write_text_file"
TERMINAL_CREATE = "terminal/create"
TERMINAL_OUTPUT = "terminal/output"
TERMINAL_WAIT_FOR_EXIT = "terminal/wait_for_exit"
TERMINAL_KILL = "terminal/kill"
TERMINAL_RELEASE = "terminal/release"
ELICITATION_CREATE = "elicitation/create"
ELICITATION_COMPLETE = "elicitation/complete"

# -- authentication --------------------------------------------------------------------------


class AuthenticateRequest(WireModel):
    """The params of `authenticate` (never for terminal auth methods)."""

    method_id: str


class AuthenticateResponse(WireModel):
    """The result of `authenticate`."""


class LogoutRequest(WireModel):
    """The params of `logout` (gated by ``agentCapabilities.auth.logout``)."""


class LogoutResponse(WireModel):
    """The result of `logout`."""


# -- MCP servers -----------------------------------------------------------------------------


class HttpHeader(WireModel):
    """An HTTP header sent to an MCP server."""

    name: str
    value: str


class McpServerStdio(TaggedModel):
    """An MCP server the agent launches (no ``type`` on the wire)."""

    __wire_always__ = ("args", "env")
    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)


class McpServerHttp(TaggedModel):
    """An MCP server reached over HTTP (needs ``mcpCapabilities.http``)."""

    __wire_always__ = ("type", "headers")
    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


class McpServerSse(TaggedModel):
    """An MCP server reached over SSE (deprecated; needs ``mcpCapabilities.sse``)."""

    __wire_always__ = ("type", "headers")
    type: Literal["sse"] = "sse"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


McpServer = Annotated[
    Annotated[McpServerHttp, Tag("http")]
    | Annotated[McpServerSse, Tag("sse")]
    | Annotated[McpServerStdio, Tag(UNKNOWN)],
    open_union("type", {"http", "sse"}),
]
"""An MCP server configuration: ``http``, ``sse``, or stdio when ``type`` is absent."""

McpServerList = Annotated[SkipInvalid[McpServer], lenient_factory(list)]

# -- session setup ---------------------------------------------------------------------------


class NewSessionRequest(TaggedModel):
    """The params of `session/new` (``mcp_servers`` is always sent)."""

    __wire_always__ = ("mcp_servers",)
    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Lenient[SkipInvalid[str]] = None


class _SessionSetupResult(WireModel):
    modes: Lenient[SessionModeState] = None
    config_options: Lenient[SkipInvalid[SessionConfigOption]] = None


class NewSessionResponse(_SessionSetupResult):
    """The result of `session/new`."""

    session_id: str


class LoadSessionRequest(TaggedModel):
    """The params of `session/load` (gated by ``agentCapabilities.loadSession``)."""

    __wire_always__ = ("mcp_servers",)
    session_id: str
    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Lenient[SkipInvalid[str]] = None


class LoadSessionResponse(_SessionSetupResult):
    """The result of `session/load`, after the replay (``null`` and ``{}`` both accepted)."""


class ResumeSessionRequest(WireModel):
    """The params of `session/resume` (no replay)."""

    session_id: str
    cwd: str
    mcp_servers: Lenient[SkipInvalid[McpServer]] = None
    additional_directories: Lenient[SkipInvalid[str]] = None


class ResumeSessionResponse(_SessionSetupResult):
    """The result of `session/resume`."""


class ForkSessionRequest(WireModel):
    """The params of the UNSTABLE `session/fork` (gated by ``sessionCapabilities.fork``)."""

    session_id: str
    cwd: str
    mcp_servers: Lenient[SkipInvalid[McpServer]] = None
    additional_directories: Lenient[SkipInvalid[str]] = None


class ForkSessionResponse(_SessionSetupResult):
    """The result of the UNSTABLE `session/fork`: the new session."""

    session_id: str


# -- session list / close / delete -----------------------------------------------------------


class ListSessionsRequest(WireModel):
    """The params of `session/list`; ``{}`` asks for the first page."""

    cwd: str | None = None
    cursor: str | None = None
    additional_directories: list[str] | None = None


class SessionInfo(WireModel):
    """A session as listed by `session/list`."""

    session_id: str
    cwd: str
    additional_directories: Lenient[SkipInvalid[str]] = None
    title: Lenient[str] = None
    updated_at: Lenient[str] = None


class ListSessionsResponse(WireModel):
    """The result of `session/list`; no ``next_cursor`` means the last page."""

    sessions: Annotated[SkipInvalid[SessionInfo], lenient_factory(list)] = Field(
        default_factory=list
    )
    next_cursor: Lenient[str] = None


class CloseSessionRequest(WireModel):
    """The params of `session/close`."""

    session_id: str


class CloseSessionResponse(WireModel):
    """The result of `session/close`."""


class DeleteSessionRequest(WireModel):
    """The params of `session/delete`."""

    session_id: str


class DeleteSessionResponse(WireModel):
    """The result of `session/delete`."""


# -- modes and config options ----------------------------------------------------------------


class SetSessionModeRequest(WireModel):
    """The params of `session/set_mode` (deprecated)."""

    session_id: str
    mode_id: str


class SetSessionModeResponse(WireModel):
    """The result of `session/set_mode`."""


class SetSessionConfigOptionRequest(WireModel):
    """The params of `session/set_config_option`: a select value id, or ``type: "boolean"``."""

    session_id: str
    config_id: str
    type: str | None = None
    value: bool | str

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        if isinstance(self.value, bool) and self.type is None:
            self.type = "boolean"

    @classmethod
    def select(cls, session_id: str, config_id: str, value: str) -> SetSessionConfigOptionRequest:
        """Choose the select value ``value``."""
        return cls(session_id=session_id, config_id=config_id, value=value)

    @classmethod
    def boolean(cls, session_id: str, config_id: str, value: bool) -> SetSessionConfigOptionRequest:
        """Switch a boolean option."""
        return cls(session_id=session_id, config_id=config_id, type="boolean", value=value)


class SetSessionConfigOptionResponse(WireModel):
    """The result of `session/set_config_option`: the complete list of options."""

    config_options: ConfigOptionList = Field(default_factory=list)


# -- prompt turn -----------------------------------------------------------------------------

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]


class PromptRequest(WireModel):
    """The params of `session/prompt`."""

    session_id: str
    prompt: list[ContentBlock]


class PromptResponse(WireModel):
    """The result of `session/prompt`; unknown stop reasons are kept as strings."""

    stop_reason: StopReason | str


class CancelNotification(WireModel):
    """The params of the `session/cancel` notification."""

    session_id: str


class CancelRequestNotification(WireModel):
    """The params of the `$/cancel_request` notification (either direction)."""

    request_id: RequestId


# -- method tables ---------------------------------------------------------------------------

MethodTable = dict[str, tuple[type[WireModel], type[WireModel] | None]]

AGENT_METHODS: MethodTable = {
    INITIALIZE: (InitializeRequest, InitializeResponse),
    AUTHENTICATE: (AuthenticateRequest, AuthenticateResponse),
    LOGOUT: (LogoutRequest, LogoutResponse),
    SESSION_NEW: (NewSessionRequest, NewSessionResponse),
    SESSION_LOAD: (LoadSessionRequest, LoadSessionResponse),
    SESSION_LIST: (ListSessionsRequest, ListSessionsResponse),
    SESSION_RESUME: (ResumeSessionRequest, ResumeSessionResponse),
    SESSION_CLOSE: (CloseSessionRequest, CloseSessionResponse),
    SESSION_DELETE: (DeleteSessionRequest, DeleteSessionResponse),
    SESSION_FORK: (ForkSessionRequest, ForkSessionResponse),
    SESSION_SET_MODE: (SetSessionModeRequest, SetSessionModeResponse),
    SESSION_SET_CONFIG_OPTION: (SetSessionConfigOptionRequest, SetSessionConfigOptionResponse),
    SESSION_PROMPT: (PromptRequest, PromptResponse),
    SESSION_CANCEL: (CancelNotification, None),
    CANCEL_REQUEST: (CancelRequestNotification, None),
}
"""Methods the agent implements (the client calls them)."""

CLIENT_METHODS: MethodTable = {
    SESSION_UPDATE: (SessionNotification, None),
    SESSION_REQUEST_PERMISSION: (RequestPermissionRequest, RequestPermissionResponse),
    FS_READ_TEXT_FILE: (ReadTextFileRequest, ReadTextFileResponse),
    FS_WRITE_TEXT_FILE: (WriteTextFileRequest, WriteTextFileResponse),
    TERMINAL_CREATE: (CreateTerminalRequest, CreateTerminalResponse),
    TERMINAL_OUTPUT: (TerminalOutputRequest, TerminalOutputResponse),
    TERMINAL_WAIT_FOR_EXIT: (WaitForTerminalExitRequest, WaitForTerminalExitResponse),
    TERMINAL_KILL: (KillTerminalRequest, KillTerminalResponse),
    TERMINAL_RELEASE: (ReleaseTerminalRequest, ReleaseTerminalResponse),
    ELICITATION_CREATE: (CreateElicitationRequest, CreateElicitationResponse),
    ELICITATION_COMPLETE: (CompleteElicitationNotification, None),
    CANCEL_REQUEST: (CancelRequestNotification, None),
}
"""Methods the client implements (the agent calls them)."""
