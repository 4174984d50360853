"""Provides the text of the chat pane's status line: agent, protocol, cwd, extra roots, then
the turn state.

While a turn runs it counts the turn's time (`acp_tui.ui.turn_status`); while a session opens,
how long the agent has been waited for and that Esc stops waiting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.ui.plain_text import NAME_LIMIT, sanitize
from acp_tui.ui.turn_status import turn_progress

if TYPE_CHECKING:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace

__all__ = ["STATE_LABELS", "agent_status", "status_text", "waited"]

STATE_LABELS = {"idle": "ready", "running": "working…", "requires_action": "waiting for you"}


def agent_status(slot: SessionSlot | None) -> str:
    """What the agent or the slot is doing, while the session is not simply open."""
    if slot is None:
        return "starting the agent…"
    logging_in = slot.agent.login_cancel is not None
    if logging_in or slot.state in ("starting", "agent_down") or not slot.status:
        return slot.agent.status
    return slot.status


def status_text(launch: LaunchSpec, slot: SessionSlot | None, ws: Workspace | None) -> str:
    """Agent, protocol, cwd, extra roots, then the turn state (or the agent's state).

    Sanitised plain text (agent and session titles come from the agent): shown as
    ``Content``, never parsed as markup.
    """
    if slot is None:
        name = launch.display_name or launch.command.name
        version, cwd = launch.protocol_version, launch.cwd
        roots = launch.additional_directories
    else:
        name, version = slot.agent.display_name, slot.agent.protocol_version
        cwd, roots = slot.cwd, slot.additional_directories
    parts = [sanitize(name, NAME_LIMIT), f"ACP v{version}", sanitize(str(cwd))]
    if roots:
        parts.append("+ " + ", ".join(sanitize(p.name or str(p), NAME_LIMIT) for p in roots))
    ready = slot is not None and slot.state == "ready" and slot.agent.alive
    if slot is not None and ready and slot.agent.login_cancel is None:
        state = slot.transcript.state
        parts.append(STATE_LABELS.get(state, sanitize(state)) + turn_progress(slot.transcript))
    else:
        parts.append(sanitize(agent_status(slot), NAME_LIMIT) + waited(slot, ws))
    if slot is not None and slot.title:
        parts.append(sanitize(slot.title, NAME_LIMIT))
    return "  ·  ".join(parts)


def waited(slot: SessionSlot | None, ws: Workspace | None) -> str:
    """How long the slot has waited for the agent's answer, while its session opens."""
    waiting = ws.opening.waiting(slot) if slot is not None and ws is not None else None
    if waiting is None:
        return ""
    return f" · {waiting.method}: waited {waiting.seconds()} s (Esc cancels)"
