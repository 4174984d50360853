"""Provides the protocol dialects: how each ACP version spells what SessionCalls does.

``base`` has the Dialect every version implements, v1 and ``dialect_for``; ``v2`` the v2 draft's;
``events`` the neutral events v1 cannot express.
"""

from __future__ import annotations

from acp_tui.client.dialects.base import (
    Call,
    Dialect,
    PermissionRequestView,
    Reattach,
    Setup,
    V1Dialect,
    dialect_for,
)

__all__ = [
    "Call",
    "Dialect",
    "PermissionRequestView",
    "Reattach",
    "Setup",
    "V1Dialect",
    "dialect_for",
]
