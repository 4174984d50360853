"""Provides Notices: the notices an agent can cause by the thousand, kept in a bounded way.

An agent's ``notice`` updates and the updates this client does not know each say something the
user should be able to read again, so they stay in the transcript and the log; but an agent may
send 10,000 of them in a turn, and a transcript entry each (a unit to lay out, a line to find)
would hold the app for as long as a toast each did. So per turn and per kind, the first
``KEPT`` are entries of their own; the rest are counted in one entry, updated in place ("2,480
more notices from the agent"). Every agent notice also goes to the log (``NOTICE_LOGGER``),
whose file keeps a bounded share of a flood (`acp_tui.client.log_file`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from acp_tui.client.log_file import NOTICE_LOGGER
from acp_tui.client.session.entries import AgentNotice, Level, NoticeEntry

if TYPE_CHECKING:
    from acp_tui.client.session.entries import TranscriptEntry

__all__ = ["KEPT", "Notices"]

KEPT = 20
"""Notices of one kind kept as entries of their own in one turn; the rest are counted."""

notice_log = logging.getLogger(NOTICE_LOGGER)
_LOG_LEVELS = {"info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class Notices:
    """A transcript's notices of each kind, bounded per turn (``new_turn`` starts afresh)."""

    def __init__(
        self,
        entries: list[TranscriptEntry],
        append: Callable[[TranscriptEntry], int],
        updated: Callable[[int], None],
    ) -> None:
        self._entries = entries
        self._append = append
        self._updated = updated
        self._counts: dict[str, int] = {}
        """How many notices of each kind came this turn."""
        self._tallies: dict[str, int] = {}
        """The entry counting the notices of each kind past ``KEPT`` this turn (its index)."""

    def new_turn(self) -> None:
        self._counts.clear()
        self._tallies.clear()

    def add(
        self,
        kind: str,
        text: str,
        level: Level,
        more: Callable[[int], str],
        *,
        hint: bool = False,
    ) -> None:
        """A notice of ``kind``: an entry of its own among the first ``KEPT`` this turn, else
        counted in one entry that says ``more(how many)`` (``hint``: see ``NoticeEntry``)."""
        count = self._counts[kind] = self._counts.get(kind, 0) + 1
        if count <= KEPT:
            self._append(NoticeEntry(text=text, level=level, hint=hint))
            return
        self.tally(kind, more(count - KEPT), level, hint=hint)

    def tally(self, kind: str, text: str, level: Level = "info", *, hint: bool = False) -> None:
        """One entry for ``kind`` this turn, its text replaced by each call (a running count)."""
        index = self._tallies.get(kind)
        entry = self._entries[index] if index is not None else None
        if not isinstance(entry, NoticeEntry):
            self._tallies[kind] = self._append(NoticeEntry(text=text, level=level, hint=hint))
            return
        entry.text = text
        if _RANK[level] > _RANK[entry.level]:
            entry.level = level
        entry.touch()
        assert index is not None
        self._updated(index)

    def agent_notice(self, notice: AgentNotice) -> None:
        """An agent's ``notice``: logged, and kept (bounded) in the transcript; not part of the
        conversation (advisory, the protocol says), so never exported."""
        text = f"{notice.title}: {notice.description}" if notice.description else notice.title
        notice_log.log(_LOG_LEVELS[notice.level], "%s", text)
        self.add("notice", text, notice.level, _more_notices, hint=True)

    def unknown_update(self, kind: str) -> None:
        text = f"The agent sent an update this client does not know: {kind}"
        self.add("unknown", text, "info", _more_unknown)


_RANK = {"info": 0, "warning": 1, "error": 2}


def _more_notices(count: int) -> str:
    what = "1 more notice" if count == 1 else f"{count:,} more notices"
    return f"{what} from the agent this turn (in the log; not shown here)."


def _more_unknown(count: int) -> str:
    what = "1 more update" if count == 1 else f"{count:,} more updates"
    return f"{what} this client does not know came this turn (not shown)."
