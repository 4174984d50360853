"""Provides what the transcript says of a `session/update` it skipped.

A malformed update is skipped, as ever (and logged); its session's transcript now also says, in
passing, what kind of update it was: "The agent sent a tool call without an id: skipped." So
does a plan some of whose entries could not be read (the others are shown). `UpdateDropped`
carries it to the transcript, in order with the other updates, during a turn or a replay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from acp_tui.client.agent.dialects.events import Event, UpdateDropped
from acp_tui.client.safe_text import sanitize
from acp_tui.protocol.updates import PlanUpdate

__all__ = ["malformed", "skipped_entries"]

CHUNKS = frozenset({"agent_message_chunk", "user_message_chunk", "agent_thought_chunk"})
TOOL_UPDATES = frozenset({"tool_call_update", "tool_call_content_chunk"})
PLANS = frozenset({"plan", "plan_update"})
KIND_LIMIT = 60


def malformed(params: Any, exc: ValidationError) -> tuple[str, UpdateDropped] | None:
    """The session and the note of an update that does not fit the protocol; None when it
    names no session (it cannot be placed: the log says it)."""
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    if not isinstance(session_id, str):
        return None
    update = params.get("update")
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    if not isinstance(kind, str):
        return session_id, UpdateDropped("an update without a kind")
    missing = {str(e["loc"][-1]) for e in exc.errors() if e["type"] == "missing" and e["loc"]}
    if kind in CHUNKS and "messageId" in missing:
        what = "a message chunk without a messageId"
    elif kind == "tool_call" and "toolCallId" in missing:
        what = "a tool call without an id"
    elif kind in TOOL_UPDATES and "toolCallId" in missing:
        what = "a tool call update without an id"
    elif kind in PLANS and "planId" in missing:
        what = "a plan without an id"
    else:
        what = f"a {sanitize(kind)[:KIND_LIMIT]} update it could not read"
    return session_id, UpdateDropped(what)


def skipped_entries(params: Any, events: Sequence[Event]) -> UpdateDropped | None:
    """A plan whose unreadable entries were left out (the others are shown): the note."""
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict) or update.get("sessionUpdate") not in PLANS:
        return None
    plan = update.get("plan", update)
    sent = plan.get("entries") if isinstance(plan, dict) else None
    kept = sum(len(e.entries) for e in events if isinstance(e, PlanUpdate))
    if not isinstance(sent, list) or len(sent) <= kept:
        return None
    return UpdateDropped(
        "a plan entry it could not read"
        if len(sent) - kept == 1
        else f"{len(sent) - kept} plan entries it could not read"
    )
