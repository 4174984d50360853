"""Provides the pieces of `acp-tui sessions` that need no agent: paging, filters, durations, tables.

Agents deviate from the spec in `session/list` (cursors ignored or repeated, filters ignored,
``updatedAt`` without a timezone), so every page is de-duplicated and every filter re-applied
here on the returned ``SessionInfo``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from acp_tui.client.agent.rules import session_matches
from acp_tui.client.history.session_list import ListingClient
from acp_tui.client.safe_text import one_line, sanitize
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp

MAX_PAGES = 10_000
"""Stop paging `session/list` after this many pages, whatever the agent says."""

_DURATION = re.compile(r"([1-9][0-9]{0,5})([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> timedelta:
    """``30d``, ``12h``, ``90m`` or ``2w`` as a timedelta; ValueError for anything else."""
    match = _DURATION.fullmatch(text)
    if match is None:
        raise ValueError(
            f"invalid duration {text!r}: expected a positive number and a unit, "
            "m (minutes), h (hours), d (days) or w (weeks), e.g. 30d"
        )
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


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


async def list_all(client: ListingClient, scope: Scope) -> Listing:
    """All pages of `session/list` in ``scope``, de-duplicated by id and filtered client-side."""
    seen_ids: set[str] = set()
    seen_cursors: set[str] = set()
    found: list[SessionInfo] = []
    cursor: str | None = None
    incomplete: str | None = f"the agent was still paging after {MAX_PAGES} pages"
    for _ in range(MAX_PAGES):
        page = await client.list_sessions(
            cwd=scope.cwd, cursor=cursor, additional_directories=scope.additional_directories
        )
        for info in page.sessions:
            if info.session_id not in seen_ids:
                seen_ids.add(info.session_id)
                found.append(info)
        cursor = page.next_cursor
        if not cursor:
            incomplete = None
            break
        if cursor in seen_cursors:
            incomplete = "the agent repeated a session/list cursor"
            break
        seen_cursors.add(cursor)
    return Listing([info for info in found if scope.matches(info)], incomplete)


def printable(text: str) -> str:
    """Agent text made safe for a terminal, on one line: controls shown, not sent."""
    return one_line(text)


def relative_time(value: str | None, now: datetime) -> str:
    """``updatedAt`` as ``5m ago``, ``3h ago``, ``2d ago`` or a date; ``-`` when unknown."""
    when = parse_timestamp(value)
    if when is None:
        return "-" if not value else "?"
    seconds = (now - when).total_seconds()
    if seconds < -60:
        return when.strftime("%Y-%m-%d")
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 14 * 86400:
        return f"{int(seconds // 86400)}d ago"
    return when.strftime("%Y-%m-%d")


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def newest_first(sessions: Sequence[SessionInfo]) -> list[SessionInfo]:
    def key(info: SessionInfo) -> float:
        when = parse_timestamp(info.updated_at)
        return when.timestamp() if when is not None else float("-inf")

    return sorted(sessions, key=key, reverse=True)


def table(sessions: Sequence[SessionInfo], now: datetime) -> str:
    """A readable table: updated, title, id, cwd, extra roots; newest first."""
    header = ("UPDATED", "TITLE", "ID", "CWD", "EXTRA ROOTS")
    rows = [
        (
            relative_time(info.updated_at, now),
            _shorten(printable(info.title) if info.title else "(untitled)", 40),
            printable(info.session_id),
            printable(info.cwd),
            printable(", ".join(info.additional_directories or [])),
        )
        for info in newest_first(sessions)
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def warn(message: str) -> None:
    """A warning on stderr; ``message`` may quote the agent, so it is sanitised."""
    print(f"acp-tui: warning: {sanitize(message)}", file=sys.stderr)
