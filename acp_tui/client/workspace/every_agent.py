"""Provides list_into_library: one agent's sessions, every page, merged into the history library.

The merged browser and `acp-tui sessions list --all-agents` show every configured agent's
sessions from the library at once, then list each agent in turn, one at a time, so that new
sessions appear and gone ones leave. Each agent's turn goes through a `ListingStatus`
(``listing``, then ``N new`` or ``failed: reason``), reported as it changes. A listing that went
through every page of every directory also tells the library which sessions are gone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from acp_tui.client.errors import AgentError
from acp_tui.client.history.list_pages import Listing, Scope, list_all
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.workspace.opening import describe
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import SessionInfo

if TYPE_CHECKING:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.store.library import Library, LibraryRow

__all__ = [
    "ListingState",
    "ListingStatus",
    "list_every_agent",
    "list_into_library",
    "open_library_row",
    "row_info",
]

ListingState = Literal["waiting", "listing", "done", "failed"]


@dataclass(frozen=True, slots=True)
class ListingStatus:
    """Where one agent's listing is."""

    name: str
    """The configured agent's name."""
    agent_key: str
    state: ListingState = "waiting"
    listed: int = 0
    """Sessions the agent listed so far."""
    new: int = 0
    """Of those, the ones the library did not know."""
    reason: str | None = None
    """Why it failed (``failed``), or why the list may be incomplete (``done``)."""

    def describe(self) -> str:
        """``listing…``, ``3 new``, ``failed: reason`` (plain text: it may quote the agent)."""
        if self.state == "waiting":
            return "waiting"
        if self.state == "listing":
            return f"listing… ({self.listed})" if self.listed else "listing…"
        if self.state == "failed":
            return f"failed: {self.reason}"
        text = f"{self.new} new" if self.new else "up to date"
        return f"{text} (incomplete: {self.reason})" if self.reason else text


async def list_into_library(
    ws: Workspace,
    agent: AgentRuntime,
    library: Library | None,
    scope: Scope,
    *,
    name: str,
    report: Callable[[ListingStatus], object] = lambda _status: None,
) -> tuple[ListingStatus, Listing | None]:
    """List ``agent`` (started if it was not) in ``scope``, every page into ``library``; its
    final status, and what it listed (None when it failed). Never raises for the agent's
    troubles: they are the status's reason."""
    status = ListingStatus(name, agent.key, "listing")
    report(status)
    started = time.time()
    pending: list[asyncio.Future[int]] = []

    def page(sessions: Sequence[SessionInfo]) -> None:
        nonlocal status
        if library is not None:
            future = library.record_page(agent.key, sessions, agent_name=name, listed_at=started)
            pending.append(asyncio.wrap_future(future))
        status = replace(status, listed=status.listed + len(sessions))
        report(status)

    try:
        await agent.wait_ready()
        why = ws.sessions.why_unavailable(agent, "list", None)
        if why is not None:
            raise AgentError(why)
        listing = await list_all(ws.sessions.listing(agent), scope, page)
    except (AgentError, RpcError, OSError) as exc:
        status = replace(status, state="failed", reason=describe(exc) or type(exc).__name__)
        report(status)
        await asyncio.gather(*pending, return_exceptions=True)
        return status, None
    new = 0
    for outcome in await asyncio.gather(*pending, return_exceptions=True):
        if isinstance(outcome, int):
            new += outcome
    if library is not None and listing.incomplete is None and scope.additional_directories is None:
        cwd = str(scope.cwd) if scope.cwd is not None else None
        finished = library.finish_listing(agent.key, started, cwd=cwd)
        await asyncio.gather(asyncio.wrap_future(finished), return_exceptions=True)
    status = replace(status, state="done", new=new, reason=listing.incomplete)
    report(status)
    return status, listing


async def list_every_agent(
    ws: Workspace,
    launches: Mapping[str, LaunchSpec],
    library: Library | None,
    scope: Scope,
    report: Callable[[ListingStatus], object] = lambda _status: None,
) -> list[ListingStatus]:
    """List each agent of ``launches`` (by name) in turn, one at a time, into ``library``:
    a running agent is used as it is, any other is started for its listing and stopped after
    (unless a tab took it meanwhile). Every agent is reported ``waiting`` first."""
    keys = {name: agent_key_for(launch) for name, launch in launches.items()}
    for name, key in keys.items():
        report(ListingStatus(name, key))
    done: list[ListingStatus] = []
    for name, launch in launches.items():
        running = ws.agents.get(keys[name])
        started_here = running is None or running.stopping
        agent = ws.agent_for(launch)
        try:
            status, _ = await list_into_library(ws, agent, library, scope, name=name, report=report)
        finally:
            if started_here:
                ws.release(agent)
        done.append(status)
    return done


def row_info(row: LibraryRow) -> SessionInfo:
    """A library row as the agent lists it (its own title: local titles are applied apart)."""
    return SessionInfo(
        session_id=row.session_id,
        cwd=row.cwd,
        additional_directories=list(row.additional_directories) or None,
        title=row.agent_title or row.first_prompt,
        updated_at=row.updated_at,
    )


def open_library_row(
    ws: Workspace,
    launches: Mapping[str, LaunchSpec],
    row: LibraryRow,
    at_line: int | None = None,
) -> SessionSlot:
    """Open a library row in a tab: its agent's running runtime, else the agent started for
    it; the session restored as the browser restores one (replayed, or resumed with the local
    copy; ``at_line``: the line of its local copy to show first). ``launches`` are by agent
    key; LookupError (with the reason) for an agent that is no longer configured."""
    launch = launches.get(row.agent_key)
    if launch is None:
        name = row.agent_name or "its agent"
        raise LookupError(f"{name} is not configured any more: its sessions cannot be opened")
    return ws.open_listed(ws.agent_for(launch), row_info(row), replay=True, at_line=at_line)
