"""Provides list_all: every page of an agent's `session/list` in a scope, de-duplicated.

Agents deviate from the spec in `session/list` (cursors ignored or repeated, filters ignored,
``updatedAt`` without a timezone), so every page is de-duplicated and every filter re-applied
here on the returned ``SessionInfo``. The headless commands and the every-agent listing that
feeds the history library share it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.agent.rules import session_matches
from acp_tui.client.history.session_list import ListingClient
from acp_tui.protocol.methods import SessionInfo

__all__ = ["MAX_PAGES", "Listing", "Scope", "list_all"]

MAX_PAGES = 10_000
"""Stop paging `session/list` after this many pages, whatever the agent says."""


@dataclass(frozen=True, slots=True)
class Scope:
    """Which sessions a command is about: a cwd (None for all) and maybe exact extra roots."""

    cwd: Path | None
    additional_directories: tuple[Path, ...] | None = None

    def matches(self, info: SessionInfo) -> bool:
        return session_matches(
            info, cwd=self.cwd, additional_directories=self.additional_directories
        )


@dataclass(slots=True)
class Listing:
    """Every session the agent listed in a scope, and why the list may be incomplete."""

    sessions: list[SessionInfo]
    incomplete: str | None = None


async def list_all(
    client: ListingClient,
    scope: Scope,
    on_page: Callable[[Sequence[SessionInfo]], object] | None = None,
) -> Listing:
    """All pages of `session/list` in ``scope``, de-duplicated by id and filtered client-side;
    ``on_page`` sees each page's new sessions as they came (before the client-side filter:
    they are all the agent's sessions)."""
    seen_ids: set[str] = set()
    seen_cursors: set[str] = set()
    found: list[SessionInfo] = []
    cursor: str | None = None
    incomplete: str | None = f"the agent was still paging after {MAX_PAGES} pages"
    for _ in range(MAX_PAGES):
        page = await client.list_sessions(
            cwd=scope.cwd, cursor=cursor, additional_directories=scope.additional_directories
        )
        fresh = [info for info in page.sessions if info.session_id not in seen_ids]
        seen_ids.update(info.session_id for info in fresh)
        found.extend(fresh)
        if on_page is not None and fresh:
            on_page(fresh)
        cursor = page.next_cursor
        if not cursor:
            incomplete = None
            break
        if cursor in seen_cursors:
            incomplete = "the agent repeated a session/list cursor"
            break
        seen_cursors.add(cursor)
    return Listing([info for info in found if scope.matches(info)], incomplete)
