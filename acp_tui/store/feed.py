"""Provides LibraryFeed: what the transcript cache tells the history library as it records.

The cache is what records, so it is what feeds the library: each call is cheap and never blocks
or raises (the library notes it and does the work on its own thread, in batches). The cache
works the same without a library (``TranscriptCache.library`` is None then).
"""

from __future__ import annotations

from typing import Protocol

from acp_tui.store.sessions import CachedSession

__all__ = ["LibraryFeed"]


class LibraryFeed(Protocol):
    def touched(self, agent_key: str, session_id: str, *, soon: bool = False) -> None:
        """The session's transcript grew or was rewritten (``soon``: a turn ended, or the file
        was replaced; index it now rather than after the next quiet moment)."""

    def noted(self, agent_key: str, session: CachedSession) -> None:
        """The session's entry in the local index changed (cwd, title, time, first prompt)."""

    def forgotten(self, agent_key: str, session_id: str) -> None:
        """The session is gone (deleted, or never used): it leaves the library."""

    def set_local_title(self, agent_key: str, session_id: str, title: str | None) -> object:
        """The user renamed the session here (None: back to the agent's title); the library
        keeps it beside the transcripts (so a rebuild keeps it) and indexes it."""
