"""Provides the plain text of listed sessions for people: titles, ages, id prefixes, and the
extra-roots filter as typed. Shared by the session browser, the Workspace and the command line;
no Textual here.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp

__all__ = [
    "ID_PREFIX",
    "age_text",
    "display_title",
    "distinct_prefix",
    "parse_roots",
    "relative_time",
]

ID_PREFIX = 8
"""The fewest characters of a session id shown where ids tell sessions apart."""


def distinct_prefix(session_ids: Iterable[str], minimum: int = ID_PREFIX) -> int:
    """How many leading characters tell these ids apart (at least ``minimum``): agents that
    start their ids with a date or a fixed word need more than the first few."""
    ordered = sorted(set(session_ids))
    length = minimum
    for before, after in pairwise(ordered):
        shared = min(len(before), len(after))
        common = next((i for i in range(shared) if before[i] != after[i]), shared)
        length = max(length, common + 1)
    return length


def display_title(info: SessionInfo) -> str:
    """The title, or a readable fallback for an untitled session."""
    title = (info.title or "").strip()
    return title or f"{info.session_id[:8]} (untitled)"


def relative_time(value: str | None, now: datetime | None = None) -> str:
    """``updatedAt`` as "5 min ago"; "—" when missing, the raw text when unreadable."""
    if not value:
        return "—"
    when = parse_timestamp(value)
    if when is None:
        return value[:20]
    return age_text(when, now or datetime.now(UTC))


def age_text(when: datetime, now: datetime) -> str:
    """How long before ``now`` ``when`` was, as :func:`relative_time` says it."""
    seconds = (now - when).total_seconds()
    if seconds < 45:
        return "just now"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = round(seconds / 3600)
    if hours < 24:
        return f"{hours} h ago"
    days = round(seconds / 86400)
    if days < 30:
        return "yesterday" if days == 1 else f"{days} days ago"
    return when.strftime("%Y-%m-%d")


def parse_roots(text: str) -> tuple[Path, ...] | None:
    """The extra-roots filter as typed: comma or newline separated absolute paths.

    Empty means no filter (None); ``none`` means exactly no extra roots. A relative path raises
    ValueError (the protocol takes absolute paths only).
    """
    stripped = text.strip()
    if not stripped:
        return None
    if stripped.casefold() == "none":
        return ()
    roots: list[Path] = []
    for part in stripped.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        path = Path(part).expanduser()
        if not path.is_absolute():
            raise ValueError(f"not an absolute path: {part}")
        if path not in roots:
            roots.append(path)
    return tuple(roots)
