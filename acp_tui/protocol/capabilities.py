"""Provides `initialize`: implementation info, client/agent capabilities and auth methods.

Object-marker capabilities (``CapabilityMarker``): present as ``{}`` means supported, omitted or
``null`` means unsupported; test them with ``is not None``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel, lenient
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union

PROTOCOL_VERSION = 1
"""The ACP protocol version this client speaks."""


class CapabilityMarker(WireModel):
    """An object-marker capability: its presence (``{}``) advertises support."""


class Implementation(WireModel):
    """Name and version of a client or agent implementation."""

    name: str
    title: Lenient[str] = None
    version: str


# -- client capabilities ---------------------------------------------------------------------


class FileSystemCapabilities(WireModel):
    """Which `fs/*` methods the client implements."""

    read_text_file: Annotated[bool, lenient(False)] = False
    write_text_file: Annotated[bool, lenient(False)] = False


class SessionConfigOptionsCapabilities(WireModel):
    """Which extra config option types the client can show."""

    boolean: Lenient[CapabilityMarker] = None


class ClientSessionCapabilities(WireModel):
    """Session-related client capabilities."""

    config_options: Lenient[SessionConfigOptionsCapabilities] = None


class AuthCapabilities(WireModel):
    """Authentication-related client capabilities."""

    terminal: Annotated[bool, lenient(False)] = False


class ElicitationCapabilities(WireModel):
    """Which elicitation modes the client supports (``{}`` alone advertises nothing)."""

    form: Lenient[CapabilityMarker] = None
    url: Lenient[CapabilityMarker] = None


class ClientCapabilities(WireModel):
    """What the client supports (`initialize.params.clientCapabilities`)."""

    fs: Annotated[FileSystemCapabilities, lenient_factory(FileSystemCapabilities)] = Field(
        default_factory=FileSystemCapabilities
    )
    terminal: Annotated[bool, lenient(False)] = False
    session: Lenient[ClientSessionCapabilities] = None
    auth: Annotated[AuthCapabilities, lenient_factory(AuthCapabilities)] = Field(
        default_factory=AuthCapabilities
    )
    elicitation: Lenient[ElicitationCapabilities] = None


# -- agent capabilities ----------------------------------------------------------------------


class PromptCapabilities(WireModel):
    """Which content kinds the agent accepts in prompts (text and resource links always)."""

    image: Annotated[bool, lenient(False)] = False
    audio: Annotated[bool, lenient(False)] = False
    embedded_context: Annotated[bool, lenient(False)] = False


class McpCapabilities(WireModel):
    """Which MCP transports the agent accepts besides stdio."""

    http: Annotated[bool, lenient(False)] = False
    sse: Annotated[bool, lenient(False)] = False


class SessionCapabilities(WireModel):
    """Optional session methods the agent supports (object markers; ``fork`` is unstable)."""

    list: Lenient[CapabilityMarker] = None
    resume: Lenient[CapabilityMarker] = None
    close: Lenient[CapabilityMarker] = None
    delete: Lenient[CapabilityMarker] = None
    additional_directories: Lenient[CapabilityMarker] = None
    fork: Lenient[CapabilityMarker] = None


class AgentAuthCapabilities(WireModel):
    """Authentication-related agent capabilities."""

    logout: Lenient[CapabilityMarker] = None


class AgentCapabilities(WireModel):
    """What the agent supports (`initialize.result.agentCapabilities`)."""

    load_session: Annotated[bool, lenient(False)] = False
    prompt_capabilities: Annotated[PromptCapabilities, lenient_factory(PromptCapabilities)] = Field(
        default_factory=PromptCapabilities
    )
    mcp_capabilities: Annotated[McpCapabilities, lenient_factory(McpCapabilities)] = Field(
        default_factory=McpCapabilities
    )
    session_capabilities: Annotated[SessionCapabilities, lenient_factory(SessionCapabilities)] = (
        Field(default_factory=SessionCapabilities)
    )
    auth: Annotated[AgentAuthCapabilities, lenient_factory(AgentAuthCapabilities)] = Field(
        default_factory=AgentAuthCapabilities
    )


# -- auth methods ----------------------------------------------------------------------------


class AuthMethodAgent(WireModel):
    """Authentication handled by the agent via `authenticate` (the default when ``type`` is absent).

    Methods of unknown types degrade to this class; their ``type`` and other fields are kept.
    """

    id: str
    name: str
    description: Lenient[str] = None
    type: str | None = None


class AuthMethodTerminal(TaggedModel):
    """Interactive login: run the agent's own command with ``args``/``env`` in a terminal."""

    __wire_always__ = ("type",)
    type: Literal["terminal"] = "terminal"
    id: str
    name: str
    description: Lenient[str] = None
    args: Annotated[SkipInvalid[str], lenient_factory(list)] = Field(default_factory=list)
    env: Annotated[dict[str, str], lenient_factory(dict)] = Field(default_factory=dict)


class AuthEnvVar(WireModel):
    """One environment variable an ``env_var`` login sets (UNSTABLE in the schema)."""

    name: str
    label: Lenient[str] = None
    secret: Annotated[bool, lenient(True)] = True
    """A secret (an API key): asked with a masked input. Defaults to true."""
    optional: Annotated[bool, lenient(False)] = False


class AuthMethodEnvVar(TaggedModel):
    """A login by environment variables (UNSTABLE): the user gives the values, the client
    starts the agent with them set and calls `authenticate` with this method (codex's
    ``openai-api-key``). ``var_name`` is the older draft's single variable."""

    __wire_always__ = ("type",)
    type: Literal["env_var"] = "env_var"
    id: str
    name: str
    description: Lenient[str] = None
    vars: Annotated[SkipInvalid[AuthEnvVar], lenient_factory(list)] = Field(default_factory=list)
    link: Lenient[str] = None
    var_name: Lenient[str] = None


AuthMethod = Annotated[
    Annotated[AuthMethodTerminal, Tag("terminal")]
    | Annotated[AuthMethodEnvVar, Tag("env_var")]
    | Annotated[AuthMethodAgent, Tag(UNKNOWN)],
    open_union("type", {"terminal", "env_var"}),
]
"""An auth method: ``type: "terminal"``, ``"env_var"``, or else the agent type (absent,
``agent`` or unknown)."""


# -- initialize ------------------------------------------------------------------------------


class InitializeRequest(TaggedModel):
    """The params of `initialize` (``protocol_version`` is always sent)."""

    __wire_always__ = ("protocol_version",)
    protocol_version: int = PROTOCOL_VERSION
    client_capabilities: Annotated[ClientCapabilities, lenient_factory(ClientCapabilities)] = Field(
        default_factory=ClientCapabilities
    )
    client_info: Lenient[Implementation] = None


class InitializeResponse(WireModel):
    """The result of `initialize`."""

    protocol_version: int
    agent_capabilities: Annotated[AgentCapabilities, lenient_factory(AgentCapabilities)] = Field(
        default_factory=AgentCapabilities
    )
    auth_methods: Annotated[SkipInvalid[AuthMethod], lenient_factory(list)] = Field(
        default_factory=list
    )
    agent_info: Lenient[Implementation] = None
