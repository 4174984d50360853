"""Provides the session a launch continues: ``--continue`` (the last one of the project) and
``--session ID`` (a given one).

The agent's own list is asked where it can list (a few pages at most, so a huge history never
holds the start up); otherwise, and for a session it no longer lists, acp-tui's own record of the
sessions it opened is used. A session given by id that neither knows is still tried, in the
project's folder: the agent has the last word.
"""

from __future__ import annotations

import logging
from collections.abc import Container, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp

__all__ = ["MAX_PAGES", "Lister", "last_of_project", "session_by_id"]

log = logging.getLogger(__name__)

MAX_PAGES = 5
"""Pages of `session/list` read at most while looking for the session to continue."""


class Lister(Protocol):
    async def list_sessions(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> ListSessionsResponse: ...


async def _listed(lister: Lister | None, cwd: Path | None) -> list[SessionInfo]:
    if lister is None:
        return []
    found: list[SessionInfo] = []
    cursor: str | None = None
    for _page in range(MAX_PAGES):
        page = await lister.list_sessions(cwd=cwd, cursor=cursor)
        found += page.sessions
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def _newest(infos: Iterable[SessionInfo]) -> SessionInfo | None:
    floor = datetime.min.replace(tzinfo=UTC)

    def when(info: SessionInfo) -> datetime:
        return parse_timestamp(info.updated_at) or floor

    ranked = sorted(infos, key=when, reverse=True)
    return ranked[0] if ranked else None


async def last_of_project(
    lister: Lister | None,
    local: Sequence[SessionInfo],
    project: Path,
    unused: Container[str] = (),
) -> SessionInfo | None:
    """The most recently updated session whose folder is ``project``: the agent's list where
    it has one (``lister``), else acp-tui's record (``local``). A session acp-tui created and
    sent nothing in (``unused``) is passed over: it has nothing to continue."""
    here = str(project)

    def wanted(info: SessionInfo) -> bool:
        return info.cwd == here and info.session_id not in unused

    listed = [info for info in await _listed(lister, project) if wanted(info)]
    if listed:
        return _newest(listed)
    return _newest(info for info in local if wanted(info))


async def session_by_id(
    lister: Lister | None, local: Sequence[SessionInfo], session_id: str, project: Path
) -> SessionInfo:
    """What is known of session ``session_id``; a bare entry in ``project`` when nothing is."""
    for info in local:
        if info.session_id == session_id:
            return info
    for info in await _listed(lister, None):
        if info.session_id == session_id:
            return info
    return SessionInfo(session_id=session_id, cwd=str(project))
