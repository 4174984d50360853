"""Provides the rows of the every-agent view: a session, or a search hit, as plain Content.

Everything shown comes from agents or from what was said, so every piece is sanitised (markup
and escape sequences shown literally) and bounded; a snippet's matches are highlighted by
their offsets, never by markup.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from textual.content import Content

from acp_tui.client.history.session_text import relative_time
from acp_tui.client.workspace.every_agent import ListingStatus
from acp_tui.store.library import LibraryRow, SearchHit, Snippet, agent_label
from acp_tui.ui.browser.row_text import short_path
from acp_tui.ui.plain_text import LABEL_LIMIT, NAME_LIMIT, sanitize

__all__ = [
    "agent_name",
    "hit_content",
    "listed_age",
    "match_content",
    "row_content",
    "snippet_content",
]


def agent_name(row: LibraryRow, names: Mapping[str, str]) -> str:
    return names.get(row.agent_key) or row.agent_name or agent_label(row.agent_key)


def listed_age(epoch: float | None, now: float) -> str:
    """``listed 5m ago``, or ``not listed`` for a session known only from acp-tui's record."""
    if epoch is None:
        return "local copy only"
    seconds = max(0.0, now - epoch)
    if seconds < 60:
        return "listed just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"listed {int(seconds // size)}{unit} ago"
    return "listed"


def row_content(
    row: LibraryRow,
    names: Mapping[str, str],
    statuses: Mapping[str, ListingStatus],
    now: float | None = None,
) -> Content:
    """Title, agent and, while its agent has not been listed in this view, when it last was;
    then the time, the cwd and the extra roots."""
    title = sanitize(row.title or "(untitled)", LABEL_LIMIT)
    name = agent_name(row, names)
    tag = f"[{sanitize(name, NAME_LIMIT)}]"
    first = Content.assemble("  ", (title, "bold"), "  ", (tag, "$accent"))
    status = statuses.get(row.agent_key)
    if status is None or status.state != "done" or row.listed_at is None:
        age = listed_age(row.listed_at, time.time() if now is None else now)
        first = Content.assemble(first, "  ", (age, "$text-muted italic"))
    details = Content.assemble(
        "  ",
        (relative_time(row.updated_at), "$text-muted"),
        ("  ·  ", "$text-muted"),
        (sanitize(short_path(row.cwd), LABEL_LIMIT), "$text-muted"),
    )
    lines = [first, details]
    if row.additional_directories:
        extra = ", ".join(sanitize(short_path(d), LABEL_LIMIT) for d in row.additional_directories)
        lines.append(Content.assemble("  ", (f"+ {extra}", "$text-muted")))
    return Content("\n").join(lines)


def snippet_content(snippet: Snippet) -> Content:
    """The snippet, its matches highlighted (each piece sanitised on its own)."""
    text, pieces, at = snippet.text, [], 0
    for start, end in snippet.spans:
        pieces.append((sanitize(text[at:start], LABEL_LIMIT), "$text-muted"))
        pieces.append((sanitize(text[start:end], LABEL_LIMIT), "bold $warning"))
        at = end
    pieces.append((sanitize(text[at:], LABEL_LIMIT), "$text-muted"))
    return Content.assemble(*pieces)


def match_content(hit: SearchHit) -> Content:
    """Where a search hit matched (``reply``, ``title``...) and the snippet, highlighted."""
    label = hit.kind or hit.field
    return Content.assemble(
        (f"{sanitize(label, NAME_LIMIT)}: ", "$accent"), snippet_content(hit.snippet)
    )


def hit_content(
    hit: SearchHit, names: Mapping[str, str], statuses: Mapping[str, ListingStatus]
) -> Content:
    """A search hit: its session's row, then where it matched and the snippet."""
    line = Content.assemble("  ", match_content(hit))
    return Content("\n").join([row_content(hit.row, names, statuses), line])
