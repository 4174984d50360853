"""Provides the history library: every agent's sessions and what was said in them, searchable.

See ``acp_tui.store.library.library`` for the API and ``schema`` for the database.
"""

from __future__ import annotations

from acp_tui.store.library.library import Library
from acp_tui.store.library.query import Query, Snippet
from acp_tui.store.library.rows import Filters, LibraryRow, ListedSession, RowCursor, RowsPage
from acp_tui.store.library.search import SearchCancelled, SearchHit, SearchResults
from acp_tui.store.library.sources import agent_label
from acp_tui.store.library.worker import LibraryStatus

__all__ = [
    "Filters",
    "Library",
    "LibraryRow",
    "LibraryStatus",
    "ListedSession",
    "Query",
    "RowCursor",
    "RowsPage",
    "SearchCancelled",
    "SearchHit",
    "SearchResults",
    "Snippet",
    "agent_label",
]
