"""Provides the protocol dialects: how each ACP version spells what SessionCalls does.

``base`` has the Dialect every version implements and the shared shapes it answers in, ``events``
the neutral events v1 cannot express, ``v1`` and ``v2`` the dialects. ``dialect_for(version)``
picks one.
"""

from __future__ import annotations

from acp_tui.client.agent.dialects.base import Call, Dialect, PermissionRequestView, Reattach, Setup
from acp_tui.client.agent.dialects.v1 import V1Dialect
from acp_tui.client.agent.dialects.v2 import V2Dialect
from acp_tui.protocol.capabilities import ClientCapabilities

__all__ = [
    "Call",
    "Dialect",
    "PermissionRequestView",
    "Reattach",
    "Setup",
    "V1Dialect",
    "V2Dialect",
    "dialect_for",
]


def dialect_for(version: int, client_capabilities: ClientCapabilities | None = None) -> Dialect:
    """The dialect of a protocol version this client speaks."""
    if version == 2:
        return V2Dialect()
    return V1Dialect(client_capabilities)
