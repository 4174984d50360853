"""Provides matched_end: whether one transcript ends with what another one shows, entry by entry.

A session reopened with its history is first shown from acp-tui's local copy (its last turns),
while the agent replays it; the agent's replay then replaces what is shown. When the replay
ends with the same conversation, the view keeps its place (nothing moves on screen); when it
does not, the agent's version wins and the user is told. Entries are compared by what they
show: a message by its role and text, a tool call by its id, title, kind and status, a plan by
its items. Notices are acp-tui's own (never replayed) and are left out.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from acp_tui.client.session.entries import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    TranscriptEntry,
)

__all__ = ["entry_key", "matched_end"]


def entry_key(entry: TranscriptEntry) -> Hashable | None:
    """What the entry shows, to compare (None for a notice: not compared)."""
    if isinstance(entry, MessageEntry):
        return ("message", entry.role, entry.text)
    if isinstance(entry, ToolCallEntry):
        return ("tool", entry.tool_call_id, entry.title, entry.kind, entry.status)
    if isinstance(entry, PlanEntryBlock):
        return ("plan", tuple((item.content, item.status) for item in entry.entries))
    if isinstance(entry, NoticeEntry):
        return None
    return ("other", type(entry).__name__)


def matched_end(
    shown: Sequence[TranscriptEntry], new: Sequence[TranscriptEntry], *, since: int = 0
) -> dict[int, int] | None:
    """Where each entry of ``shown`` from index ``since`` on is in ``new``, when ``new`` ends
    with them (notices aside, in both); None when it does not. A notice of ``shown`` maps to
    the place of the next entry compared (or the end)."""
    places: dict[int, int] = {}
    at = len(new)
    for index in range(len(shown) - 1, since - 1, -1):
        key = entry_key(shown[index])
        if key is None:
            places[index] = min(at, len(new) - 1) if new else 0
            continue
        at -= 1
        while at >= 0 and entry_key(new[at]) is None:
            at -= 1
        if at < 0 or entry_key(new[at]) != key:
            return None
        places[index] = at
    return places
