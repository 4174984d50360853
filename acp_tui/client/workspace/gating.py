"""Provides why_unavailable: whether an action on a listed session can run, and if not, why.

The session browser, the command palette and the headless `acp-tui sessions` commands ask the
same question and show the same reasons, so the answer is written once, here. Nothing is
attempted behind the user's back: an action the agent does not advertise is refused before
anything is sent.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Literal

from acp_tui.client.agent.capabilities import Capabilities
from acp_tui.protocol.methods import SessionInfo

__all__ = ["SESSION_ACTIONS", "SessionAction", "why_unavailable"]

SessionAction = Literal["replay", "resume", "fork", "close", "delete"]
SESSION_ACTIONS: tuple[SessionAction, ...] = ("replay", "resume", "fork", "close", "delete")


def why_unavailable(
    action: str,
    info: SessionInfo | None,
    capabilities: Capabilities | None,
    *,
    open_ids: Container[str] = (),
) -> str | None:
    """None when ``action`` can run on ``info``, else the reason to show.

    ``list`` needs no ``info``. ``capabilities`` None means the agent is not running;
    ``open_ids`` are the sessions open in this client (only those can be closed).
    """
    caps = capabilities
    if caps is None:
        return "the agent is not running"
    if action == "list":
        return caps.why_not("list")
    if info is None:
        return "select a session first"
    if action == "replay" and not caps.can_reattach:
        return f"{caps.display_name} does not support session/load or session/resume"
    reason = {
        "resume": caps.why_not("resume"),
        "fork": caps.why_not("fork"),
        "close": caps.why_not("close"),
        "delete": caps.why_not("delete"),
    }.get(action)
    if reason is not None:
        return reason
    if action in ("replay", "resume", "fork") and info.additional_directories:
        extra = caps.why_not("additional_directories")
        if extra is not None:
            return f"this session has extra roots and {extra}"
    if action == "close" and info.session_id not in open_ids:
        return "only sessions open in acp-tui can be closed"
    return None
