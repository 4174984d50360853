"""Provides v2 `initialize`: one ``capabilities`` object per side, required ``info``, auth methods.

Every support marker is an object (``{}`` = supported, omitted or ``null`` = not): test them with
``is not None``. ``capabilities.session`` present means the baseline session methods exist
(new, list, resume, close, prompt, cancel, update); the other session markers are optional.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.capabilities import AuthEnvVar, CapabilityMarker, Implementation
from acp_tui.protocol.client_methods import EnvVariable
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union

PROTOCOL_VERSION = 2
"""The draft protocol version these models describe."""

__all__ = [
    "PROTOCOL_VERSION",
    "AgentAuthCapabilities",
    "AgentCapabilities",
    "AuthCapabilities",
    "AuthMethod",
    "AuthMethodAgent",
    "AuthMethodEnvVar",
    "AuthMethodTerminal",
    "CapabilityMarker",
    "ClientCapabilities",
    "ElicitationCapabilities",
    "Implementation",
    "InitializeRequest",
    "InitializeResponse",
    "McpCapabilities",
    "PromptCapabilities",
    "SessionCapabilities",
    "UnknownAuthMethod",
]


# -- client capabilities ---------------------------------------------------------------------


class AuthCapabilities(WireModel):
    """Authentication-related client capabilities (``terminal``: can run terminal logins)."""

    terminal: Lenient[CapabilityMarker] = None


class ElicitationCapabilities(WireModel):
    """Which elicitation modes the client supports."""

    form: Lenient[CapabilityMarker] = None
    url: Lenient[CapabilityMarker] = None


class ClientCapabilities(WireModel):
    """What the client supports; v2 has no ``fs`` or ``terminal`` (use MCP servers instead)."""

    auth: Lenient[AuthCapabilities] = None
    elicitation: Lenient[ElicitationCapabilities] = None


# -- agent capabilities ----------------------------------------------------------------------


class PromptCapabilities(WireModel):
    """Prompt content beyond the baseline text and resource links."""

    image: Lenient[CapabilityMarker] = None
    audio: Lenient[CapabilityMarker] = None
    embedded_context: Lenient[CapabilityMarker] = None


class McpCapabilities(WireModel):
    """MCP server transports the agent accepts on session lifecycle requests."""

    stdio: Lenient[CapabilityMarker] = None
    http: Lenient[CapabilityMarker] = None


class SessionCapabilities(WireModel):
    """The optional session features; the object's presence means the baseline methods."""

    prompt: Lenient[PromptCapabilities] = None
    mcp: Lenient[McpCapabilities] = None
    delete: Lenient[CapabilityMarker] = None
    additional_directories: Lenient[CapabilityMarker] = None
    fork: Lenient[CapabilityMarker] = None
    """UNSTABLE (schema.unstable.json): `session/fork`."""


class AgentAuthCapabilities(WireModel):
    """Auth extensions; it does NOT advertise auth/login or auth/logout (``authMethods`` does)."""


class AgentCapabilities(WireModel):
    """What the agent supports (`initialize.result.capabilities`)."""

    session: Lenient[SessionCapabilities] = None
    auth: Lenient[AgentAuthCapabilities] = None


# -- auth methods ----------------------------------------------------------------------------


class _AuthMethodFields(TaggedModel):
    __wire_always__ = ("type",)
    method_id: str
    name: str
    description: Lenient[str] = None


class AuthMethodAgent(_AuthMethodFields):
    """Authentication the agent handles itself, through `auth/login`."""

    type: Literal["agent"] = "agent"


class AuthMethodTerminal(_AuthMethodFields):
    """Interactive login: run the agent's own command with ``args``/``env`` in a terminal."""

    type: Literal["terminal"] = "terminal"
    args: Annotated[SkipInvalid[str], lenient_factory(list)] = Field(default_factory=list)
    env: Annotated[SkipInvalid[EnvVariable], lenient_factory(list)] = Field(default_factory=list)


class AuthMethodEnvVar(_AuthMethodFields):
    """A login by environment variables (UNSTABLE): the client starts the agent with them set,
    then calls `auth/login` with this method."""

    type: Literal["env_var"] = "env_var"
    vars: Annotated[SkipInvalid[AuthEnvVar], lenient_factory(list)] = Field(default_factory=list)
    link: Lenient[str] = None


class UnknownAuthMethod(_AuthMethodFields):
    """An auth method of a type this client does not know (kept, never used to log in)."""

    type: str


AuthMethod = Annotated[
    Annotated[AuthMethodAgent, Tag("agent")]
    | Annotated[AuthMethodTerminal, Tag("terminal")]
    | Annotated[AuthMethodEnvVar, Tag("env_var")]
    | Annotated[UnknownAuthMethod, Tag(UNKNOWN)],
    open_union("type", {"agent", "terminal", "env_var"}),
]
"""An auth method discriminated on the required ``type``."""


# -- initialize ------------------------------------------------------------------------------


class InitializeRequest(TaggedModel):
    """The params of v2 `initialize` (``info`` is required)."""

    __wire_always__ = ("protocol_version",)
    protocol_version: int = PROTOCOL_VERSION
    info: Implementation
    capabilities: Annotated[ClientCapabilities, lenient_factory(ClientCapabilities)] = Field(
        default_factory=ClientCapabilities
    )


class InitializeResponse(WireModel):
    """The result of v2 `initialize`."""

    protocol_version: int
    info: Implementation
    capabilities: Annotated[AgentCapabilities, lenient_factory(AgentCapabilities)] = Field(
        default_factory=AgentCapabilities
    )
    auth_methods: Annotated[SkipInvalid[AuthMethod], lenient_factory(list)] = Field(
        default_factory=list
    )
