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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from acp_tui.client.errors import AgentError
from acp_tui.client.history.list_pages import Listing, Scope, list_all
from acp_tui.client.workspace.opening import describe
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import SessionInfo

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.store.library import Library

__all__ = ["ListingState", "ListingStatus", "list_into_library"]

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
