"""Provides the ACP v1 wire protocol: JSON-RPC plumbing and pydantic models of every message.

Models live in ``content`` (content blocks), ``tools`` (tool calls), ``session_config`` (modes and
config options), ``updates`` (`session/update`), ``capabilities`` (`initialize`), ``methods`` (every
agent method plus the ``AGENT_METHODS``/``CLIENT_METHODS`` tables) and ``client_methods`` (methods
the agent calls on the client). Parse with ``Model.from_wire(data)``, send with ``model.to_wire()``.
"""

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel, lenient
from acp_tui.protocol.capabilities import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    AuthMethod,
    AuthMethodAgent,
    AuthMethodTerminal,
    ClientCapabilities,
    Implementation,
    InitializeRequest,
    InitializeResponse,
)
from acp_tui.protocol.content import (
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    UnknownContent,
)
from acp_tui.protocol.methods import AGENT_METHODS, CLIENT_METHODS
from acp_tui.protocol.session_config import SessionConfigOption, SessionModeState
from acp_tui.protocol.updates import SessionNotification, SessionUpdate, UnknownSessionUpdate

__all__ = [
    "AGENT_METHODS",
    "CLIENT_METHODS",
    "PROTOCOL_VERSION",
    "AgentCapabilities",
    "AuthMethod",
    "AuthMethodAgent",
    "AuthMethodTerminal",
    "ClientCapabilities",
    "ContentBlock",
    "EmbeddedResource",
    "ImageContent",
    "Implementation",
    "InitializeRequest",
    "InitializeResponse",
    "Lenient",
    "ResourceLink",
    "SessionConfigOption",
    "SessionModeState",
    "SessionNotification",
    "SessionUpdate",
    "SkipInvalid",
    "TextContent",
    "UnknownContent",
    "UnknownSessionUpdate",
    "WireModel",
    "lenient",
]
