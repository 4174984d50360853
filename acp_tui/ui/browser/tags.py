"""Provides session_tags: what the browser's rows say besides the session's own info.

``chat`` for the current tab's session, ``open`` for the other tabs', what a tab in the
background wants the user for, and ``local`` for rows from acp-tui's own history; and
shown_rows: the titles the user gave sessions here, over the agent's (with_local_titles), and
no row for a session acp-tui created and left empty.
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.client.history.session_list import SessionLister
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.protocol.methods import SessionInfo

__all__ = ["ATTENTION_TAGS", "session_tags", "shown_rows", "with_local_titles"]

ATTENTION_TAGS = {"permission": "needs you", "failed": "failed", "finished": "done"}


def session_tags(
    lister: SessionLister,
    ws: Workspace | None,
    agent: AgentRuntime | None,
    rows: Container[str] | None = None,
) -> dict[str, list[str]]:
    """The tags of the loaded rows (or of ``rows``, session ids) that have any (thousands of
    rows may be loaded)."""
    tags: dict[str, list[str]] = {}
    if rows is None:
        rows = lister.rows
        if lister.local:
            tags = {session_id: ["local"] for session_id in rows}
    if ws is None or agent is None:
        return tags
    for slot in ws.board.slots_of(agent):
        shown = slot.session_id
        if shown is None or shown not in rows or not slot.live:
            continue
        mine = ["chat" if slot is ws.current else "open"]
        if slot.attention is not None:
            mine.append(ATTENTION_TAGS[slot.attention])
        tags[shown] = mine + tags.get(shown, [])
    return tags


def shown_rows(
    rows: list[SessionInfo], ws: Workspace | None, agent: AgentRuntime | None
) -> list[SessionInfo]:
    """The rows a browser shows: with their local titles, without the sessions acp-tui
    created and sent nothing in (a tab showing one keeps its row)."""
    if ws is not None and agent is not None:
        hidden = ws.unused.hidden(agent.key, agent)
        if hidden:
            rows = [info for info in rows if info.session_id not in hidden]
    return with_local_titles(rows, ws, agent)


def with_local_titles(
    rows: list[SessionInfo], ws: Workspace | None, agent: AgentRuntime | None
) -> list[SessionInfo]:
    """The rows with the titles the user gave them here (they win over the agent's)."""
    if ws is None or agent is None:
        return rows
    titles = ws.titles.of(agent)
    if not titles:
        return rows
    return [
        info.model_copy(update={"title": titles[info.session_id]})
        if info.session_id in titles
        else info
        for info in rows
    ]
