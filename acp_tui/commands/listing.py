"""Provides the pieces of `acp-tui sessions` that need no agent: durations and tables (the
paging and its scope, ``list_all``, are the client's: `acp_tui.client.history.list_pages`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from datetime import datetime, timedelta

from acp_tui.client.history.list_pages import Listing, Scope, list_all
from acp_tui.client.safe_text import one_line, sanitize
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp

__all__ = [
    "Listing",
    "Scope",
    "list_all",
    "newest_first",
    "parse_duration",
    "plural",
    "printable",
    "relative_time",
    "table",
    "warn",
]

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
