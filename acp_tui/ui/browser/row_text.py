"""Provides what the session browser's rows and header say, as plain text or Content.

A session row: its title (cut to two lines of the narrow browser), its tags, its relative time,
for local history the start of its id, its cwd and extra roots, and for a search hit the line
that matched (see `acp_tui.ui.library.rows.snippet_content`). The state row under the rows
(loading, an error, empty, more, the end, or what a search found) and the header (where the
sessions come from, the filters, what a search found). Everything from the agent is sanitised.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content

from acp_tui.client.history.session_list import SessionLister
from acp_tui.client.history.session_text import display_title, relative_time
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.plain_text import LABEL_LIMIT, sanitize

__all__ = [
    "TITLE_CHARS",
    "RowState",
    "cut_title",
    "header_text",
    "row_content",
    "row_state",
    "search_state",
    "short_path",
    "state_content",
]


@dataclass(frozen=True, slots=True)
class RowState:
    """What the state row under the sessions says."""

    kind: str  # "loading", "error", "end", "empty", "more" or "" for none
    text: str = ""


TITLE_CHARS = 72
"""The most characters of a row's title and tags: two lines of the narrow browser."""


def cut_title(title: str, chars: int) -> str:
    """``title`` in at most ``chars`` characters (sanitised), ending with "…" when cut."""
    text = " ".join(sanitize(title, LABEL_LIMIT).split())
    if len(text) <= chars:
        return text
    return text[: max(chars - 1, 8)].rstrip() + "…"


def short_path(path: str) -> str:
    home = os.path.expanduser("~")  # as Path.home(), in a microsecond instead of 60
    if path == home or path.startswith(home + "/"):
        return "~" + path[len(home) :]
    return path


def row_content(
    info: SessionInfo,
    marked: bool,
    tags: Sequence[str],
    age: str | None = None,
    id_chars: int = 0,
    extra: Content | None = None,
) -> Content:
    """A session's two or three lines (``age``: its relative time, when already known;
    ``id_chars``: how much of the id to show, none when 0), and ``extra`` under them (what a
    search matched)."""
    room = TITLE_CHARS - sum(len(tag) + 3 for tag in tags)
    title = Content.assemble(
        ("● " if marked else "  ", "$warning"), (cut_title(display_title(info), room), "bold")
    )
    for tag in tags:
        title = Content.assemble(title, " ", (f"[{tag}]", "$accent"))
    details = Content.assemble(
        "  ", (relative_time(info.updated_at) if age is None else age, "$text-muted")
    )
    if id_chars:  # before the cwd: a long path wraps, not the id
        session_id = info.session_id
        shown = session_id if len(session_id) <= id_chars else session_id[:id_chars] + "…"
        details = Content.assemble(
            details, ("  ·  id ", "$text-muted"), (sanitize(shown, LABEL_LIMIT), "$text-muted")
        )
    details = Content.assemble(
        details,
        ("  ·  ", "$text-muted"),
        (sanitize(short_path(info.cwd), LABEL_LIMIT), "$text-muted"),
    )
    lines = [title, details]
    roots = info.additional_directories or []
    if roots:
        shown = ", ".join(sanitize(short_path(r), LABEL_LIMIT) for r in roots)
        lines.append(Content.assemble("  ", (f"+ {shown}", "$text-muted")))
    if extra is not None:
        lines.append(Content.assemble("  ", extra))
    return Content("\n").join(lines)


def state_content(state: RowState) -> Content:
    style = {"error": "$error", "loading": "$accent"}.get(state.kind, "$text-muted")
    return Content.assemble(("  " + sanitize(state.text), style))


def row_state(lister: SessionLister, visible: Sequence[SessionInfo], *, busy: bool) -> RowState:
    """The state row: an error (with what Enter does), "Loading…", empty, more or the end."""
    if lister.error is not None:
        again = "Enter or l: reload from the start" if lister.cursor_expired else "Enter: retry"
        return RowState("error", f"⚠ {lister.error} ({again})")
    if lister.waiting:
        return RowState("loading", "Waiting for the agent…")
    if lister.loading or busy:
        return RowState("loading", "Loading…")
    if lister.text and not visible:
        return RowState("empty", "No loaded session matches the search")
    if not lister.rows:
        where = f"in {lister.cwd}" if lister.cwd is not None else "at all"
        return RowState("empty", f"No sessions {where}")
    if not lister.exhausted:
        return RowState("more", "More below…")
    return RowState("end", f"{len(lister.rows)} session(s)")


def search_state(found: int | None, more: bool) -> RowState:
    """The state row of a search through every session: under way, nothing, or how many."""
    if found is None:
        return RowState("loading", "Searching every session…")
    if not found:
        return RowState("empty", "No session matches the search")
    if more:
        return RowState("end", f"The first {found} sessions found: type more to narrow")
    return RowState("end", f"{found} session(s) found")


def header_text(
    lister: SessionLister,
    agent_name: str,
    shown: int | None = None,
    found: str | None = None,
) -> str:
    """The header: "Sessions", where they come from when local, the filters, and while a
    search is typed how many of the loaded rows match it (``shown``), or, for a search
    through every session, what it found (``found``)."""
    lines = ["Sessions"]
    if lister.local:
        lines.append(f"From acp-tui's local history: {agent_name} cannot list sessions")
    scope = "all directories" if lister.cwd is None else str(lister.cwd)
    if lister.additional_directories is not None:
        roots = ", ".join(str(d) for d in lister.additional_directories) or "none"
        scope += f" + exactly [{roots}]"
    lines.append(scope)
    needle = lister.text.strip()
    if found is not None:
        lines.append(found)
    elif needle and shown is not None:
        loaded = len(lister.rows)
        count = f"{shown} of {loaded} loaded match \u201c{needle}\u201d"
        if not (lister.exhausted or lister.local):
            count += " (more load as you scroll; A searches every session)"
        lines.append(count)
    return "\n".join(lines)
