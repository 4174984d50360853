"""Provides the params/results of the v2 methods, and the v2 method tables.

Changes from v1: `auth/login`/`auth/logout` replace `authenticate`/`logout`; `session/load`,
`session/set_mode` and the client's `fs/*`/`terminal/*` are gone; `session/resume` takes
``replayFrom`` (``{"type": "start"}`` replays the history before answering, omitted or ``null``
does not); `session/prompt` answers ``{}`` when the turn is accepted (its end is a
``state_update`` idle); `session/set_config_option` tags select values ``type: "id"``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.client_methods import (
    CompleteElicitationNotification,
    CreateElicitationRequest,
    CreateElicitationResponse,
    EnvVariable,
)
from acp_tui.protocol.methods import (
    CancelNotification,
    CancelRequestNotification,
    CloseSessionRequest,
    CloseSessionResponse,
    DeleteSessionRequest,
    DeleteSessionResponse,
    HttpHeader,
    ListSessionsRequest,
    ListSessionsResponse,
    MethodTable,
    PromptRequest,
    SessionInfo,
)
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union
from acp_tui.protocol.v2.config import ConfigOptionList
from acp_tui.protocol.v2.initialize import InitializeRequest, InitializeResponse
from acp_tui.protocol.v2.tools import RequestPermissionRequest, RequestPermissionResponse
from acp_tui.protocol.v2.updates import SessionNotification

__all__ = [
    "AGENT_METHODS",
    "CLIENT_METHODS",
    "CancelNotification",
    "CloseSessionRequest",
    "CloseSessionResponse",
    "DeleteSessionRequest",
    "DeleteSessionResponse",
    "ForkSessionRequest",
    "ForkSessionResponse",
    "ListSessionsRequest",
    "ListSessionsResponse",
    "LoginRequest",
    "LoginResponse",
    "LogoutRequest",
    "LogoutResponse",
    "McpServer",
    "McpServerHttp",
    "McpServerStdio",
    "NewSessionRequest",
    "NewSessionResponse",
    "PromptRequest",
    "PromptResponse",
    "ReplayFrom",
    "ReplayFromStart",
    "ResumeSessionRequest",
    "ResumeSessionResponse",
    "SessionInfo",
    "SetSessionConfigOptionRequest",
    "SetSessionConfigOptionResponse",
    "UnknownMcpServer",
    "UnknownReplayFrom",
]

AUTH_LOGIN = "auth/login"
AUTH_LOGOUT = "auth/logout"

# -- auth ------------------------------------------------------------------------------------


class LoginRequest(WireModel):
    """The params of `auth/login` (agent-type methods only)."""

    method_id: str


class LoginResponse(WireModel):
    """The result of `auth/login`."""


class LogoutRequest(WireModel):
    """The params of `auth/logout` (exists whenever ``authMethods`` is non-empty)."""


class LogoutResponse(WireModel):
    """The result of `auth/logout`."""


# -- MCP servers (always typed in v2; SSE is gone) ------------------------------------------


class McpServerStdio(TaggedModel):
    """An MCP server the agent launches (``type: "stdio"``)."""

    __wire_always__ = ("type",)
    type: Literal["stdio"] = "stdio"
    name: str
    command: str
    args: list[str] | None = None
    env: list[EnvVariable] | None = None


class McpServerHttp(TaggedModel):
    """An MCP server reached over HTTP (needs ``session.mcp.http``)."""

    __wire_always__ = ("type",)
    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader] | None = None


class UnknownMcpServer(WireModel):
    """An MCP transport this client does not know; kept."""

    type: str


McpServer = Annotated[
    Annotated[McpServerStdio, Tag("stdio")]
    | Annotated[McpServerHttp, Tag("http")]
    | Annotated[UnknownMcpServer, Tag(UNKNOWN)],
    open_union("type", {"stdio", "http"}),
]
McpServerList = Annotated[SkipInvalid[McpServer], lenient_factory(list)]

# -- session setup ---------------------------------------------------------------------------


class NewSessionRequest(WireModel):
    """The params of `session/new` (``mcp_servers`` optional in v2)."""

    cwd: str
    additional_directories: Lenient[SkipInvalid[str]] = None
    mcp_servers: Lenient[McpServerList] = None


class NewSessionResponse(WireModel):
    """The result of `session/new` (no ``modes`` in v2)."""

    session_id: str
    config_options: Lenient[ConfigOptionList] = None


class ReplayFromStart(TaggedModel):
    """Replay the whole conversation before answering (what v1 `session/load` did)."""

    __wire_always__ = ("type",)
    type: Literal["start"] = "start"


class UnknownReplayFrom(WireModel):
    """A replay cursor this client does not know (future or ``_custom``); kept."""

    type: str


ReplayFrom = Annotated[
    Annotated[ReplayFromStart, Tag("start")] | Annotated[UnknownReplayFrom, Tag(UNKNOWN)],
    open_union("type", {"start"}),
]


class ResumeSessionRequest(WireModel):
    """The params of `session/resume`; set ``replay_from`` to replay (omitted = no replay)."""

    session_id: str
    cwd: str
    additional_directories: Lenient[SkipInvalid[str]] = None
    mcp_servers: Lenient[McpServerList] = None
    replay_from: Lenient[ReplayFrom] = None


class ResumeSessionResponse(WireModel):
    """The result of `session/resume`, after any replay."""

    config_options: Lenient[ConfigOptionList] = None


class ForkSessionRequest(WireModel):
    """The params of the UNSTABLE `session/fork` (``session.fork``)."""

    session_id: str
    cwd: str
    additional_directories: Lenient[SkipInvalid[str]] = None
    mcp_servers: Lenient[McpServerList] = None


class ForkSessionResponse(WireModel):
    """The result of the UNSTABLE `session/fork`: the new session."""

    session_id: str
    config_options: Lenient[ConfigOptionList] = None


# -- config options --------------------------------------------------------------------------


class SetSessionConfigOptionRequest(TaggedModel):
    """The params of `session/set_config_option`: ``type`` is ``id`` (select) or ``boolean``."""

    __wire_always__ = ("type",)
    session_id: str
    config_id: str
    type: str
    value: bool | str

    @classmethod
    def select(cls, session_id: str, config_id: str, value: str) -> SetSessionConfigOptionRequest:
        return cls(session_id=session_id, config_id=config_id, type="id", value=value)

    @classmethod
    def boolean(cls, session_id: str, config_id: str, value: bool) -> SetSessionConfigOptionRequest:
        return cls(session_id=session_id, config_id=config_id, type="boolean", value=value)


class SetSessionConfigOptionResponse(WireModel):
    """The result of `session/set_config_option`: the complete list of options."""

    config_options: ConfigOptionList = Field(default_factory=list)


# -- prompt ----------------------------------------------------------------------------------


class PromptResponse(WireModel):
    """The result of v2 `session/prompt`: ``{}`` = accepted (the turn ends with idle)."""


# -- method tables ---------------------------------------------------------------------------

AGENT_METHODS: MethodTable = {
    "initialize": (InitializeRequest, InitializeResponse),
    AUTH_LOGIN: (LoginRequest, LoginResponse),
    AUTH_LOGOUT: (LogoutRequest, LogoutResponse),
    "session/new": (NewSessionRequest, NewSessionResponse),
    "session/list": (ListSessionsRequest, ListSessionsResponse),
    "session/resume": (ResumeSessionRequest, ResumeSessionResponse),
    "session/close": (CloseSessionRequest, CloseSessionResponse),
    "session/delete": (DeleteSessionRequest, DeleteSessionResponse),
    "session/fork": (ForkSessionRequest, ForkSessionResponse),
    "session/set_config_option": (SetSessionConfigOptionRequest, SetSessionConfigOptionResponse),
    "session/prompt": (PromptRequest, PromptResponse),
    "session/cancel": (CancelNotification, None),
    "$/cancel_request": (CancelRequestNotification, None),
}
"""v2 methods the agent implements (the client calls them)."""

CLIENT_METHODS: MethodTable = {
    "session/update": (SessionNotification, None),
    "session/request_permission": (RequestPermissionRequest, RequestPermissionResponse),
    "elicitation/create": (CreateElicitationRequest, CreateElicitationResponse),
    "elicitation/complete": (CompleteElicitationNotification, None),
    "$/cancel_request": (CancelRequestNotification, None),
}
"""v2 methods the client implements (the agent calls them)."""
