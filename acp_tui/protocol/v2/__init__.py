"""Provides the ACP v2 DRAFT wire protocol (schema-v2.0.0-alpha.3): pydantic models of its messages.

v2 is opt-in (``--protocol 2``) and still changing; v1 in ``acp_tui.protocol`` stays the default.
Models live in ``initialize`` (`initialize`, capabilities, auth methods), ``config`` (config
options keyed by ``configId``), ``tools`` (tool-call content with the v2 diff, tool-call updates,
permission requests), ``updates`` (`session/update` kinds) and ``methods`` (every other method plus
the ``AGENT_METHODS``/``CLIENT_METHODS`` tables). Shapes identical to v1 (content blocks, session
info, usage) are the v1 models. Every enum and tagged union is open: unknown values are kept.
"""

from acp_tui.protocol.v2.initialize import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    ClientCapabilities,
    InitializeRequest,
    InitializeResponse,
)
from acp_tui.protocol.v2.methods import AGENT_METHODS, CLIENT_METHODS
from acp_tui.protocol.v2.updates import SessionNotification, SessionUpdate, UnknownSessionUpdate

__all__ = [
    "AGENT_METHODS",
    "CLIENT_METHODS",
    "PROTOCOL_VERSION",
    "AgentCapabilities",
    "ClientCapabilities",
    "InitializeRequest",
    "InitializeResponse",
    "SessionNotification",
    "SessionUpdate",
    "UnknownSessionUpdate",
]
