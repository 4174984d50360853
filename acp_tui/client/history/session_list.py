"""Provides SessionLister: the session browser's model, paging `session/list` lazily.

No Textual here. The lister holds the filters (cwd, the exact ordered extra roots, a local text
search), the rows loaded so far (by id, in arrival order), the next cursor and a generation
counter. Real agents ignore filters, repeat cursors, return everything in one page or answer
`null`, so every page is re-filtered client-side, duplicates are kept once, a cursor seen before
ends the paging and a page for an older filter is dropped. Cursors live in memory only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import anyio
import anyio.to_thread
from pydantic import TypeAdapter, ValidationError

from acp_tui.client.agent.rules import session_matches
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.protocol.big import list_adapter, quiet_gc
from acp_tui.protocol.connection import describe_validation_error
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError
from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo

__all__ = ["KEEP", "ListingClient", "SessionLister"]


class _Keep(Enum):
    KEEP = 0


KEEP = _Keep.KEEP
"""For :meth:`SessionLister.update_title`: leave this field as it is."""


class ListingClient(Protocol):
    """What the lister needs of a client: one page of `session/list` (AgentClient has it)."""

    async def list_sessions(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> ListSessionsResponse: ...


@runtime_checkable
class RawListingClient(ListingClient, Protocol):
    """A client that also gives a page not validated yet (AgentClient does): a huge page is
    then validated a piece at a time, and its first rows are shown before the rest."""

    async def list_sessions_raw(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> Any: ...


FIRST_PIECE = 500
"""Sessions of a huge page validated first: enough for the first screens of rows."""
PIECE = 2000
"""Sessions validated at a time (off the event loop) after the first piece."""


@dataclass
class SessionLister:
    """Filters, loaded rows and paging state of the session browser."""

    cwd: Path | None = None
    """Only sessions of this directory; None lists every directory."""
    additional_directories: tuple[Path, ...] | None = None
    """Only sessions with exactly these extra roots, in order; None: any."""
    text: str = ""
    """A local search over the loaded titles (and ids); never sent to the agent."""
    rows: dict[str, SessionInfo] = field(default_factory=dict)
    local: bool = False
    """The rows come from the client's own history, not from `session/list`."""
    next_cursor: str | None = None
    exhausted: bool = False
    generation: int = 0
    loading: bool = False
    error: str | None = None
    cursor_expired: bool = False
    """The last error was about the cursor: the listing must restart from the first page."""
    waiting: bool = False
    """acp-tui is stopping or restarting the agent: the rows wait for it (no error) and are
    listed afresh when it is back."""
    pages: int = 0
    _seen_cursors: set[str] = field(default_factory=set)
    _folded: dict[str, tuple[SessionInfo, str, str]] = field(default_factory=dict)
    """Each row's title and id casefolded, kept while its info is the same object: a search
    key typed over 10,000 rows would otherwise fold them all again. Rows are folded as they
    are merged, so that the first key does not fold them all."""
    _changes: int = 0
    """Counts the changes to the rows (see `visible`)."""
    _last_search: tuple[str, tuple[int, int, int], list[SessionInfo]] | None = None
    """The last search: its needle, the rows it searched (``_rows_key``) and what matched. A
    needle that extends it (the next key typed) matches only among those."""

    # -- filters ---------------------------------------------------------------------------------

    def set_filters(
        self,
        *,
        cwd: Path | _Keep | None = KEEP,
        additional_directories: Sequence[Path] | _Keep | None = KEEP,
    ) -> None:
        """Change the agent-side filters: paging restarts from the first page."""
        if not isinstance(cwd, _Keep):
            self.cwd = cwd
        if not isinstance(additional_directories, _Keep):
            self.additional_directories = (
                None if additional_directories is None else tuple(additional_directories)
            )
        self.restart()

    def restart(self) -> None:
        """Forget every row and cursor; a page still in flight will be dropped."""
        self.generation += 1
        self.rows.clear()
        self.next_cursor = None
        self.exhausted = False
        self.loading = False
        self.error = None
        self.cursor_expired = False
        self.waiting = False
        self.pages = 0
        self._seen_cursors.clear()
        self._folded.clear()
        self._changes += 1

    def matches(self, info: SessionInfo) -> bool:
        return session_matches(
            info, cwd=self.cwd, additional_directories=self.additional_directories
        )

    # -- paging ----------------------------------------------------------------------------------

    @property
    def can_load_more(self) -> bool:
        return not (
            self.loading or self.exhausted or self.local or self.waiting or self.error is not None
        )

    async def load_more(
        self, client: ListingClient, on_rows: Callable[[], object] | None = None
    ) -> int:
        """Fetch and merge the next page; returns how many new rows it added.

        A failure is kept in ``error`` (the rows stay); a page that arrives after the filters
        changed is dropped and returns 0. A huge page is validated and merged a piece at a
        time, off the event loop; ``on_rows`` is called once its first piece is merged (the
        page is still ``loading`` until the rest is).
        """
        if not self.can_load_more:
            return 0
        generation = self.generation
        cursor = self.next_cursor
        self.loading = True
        rest: list[Any] = []
        try:
            if isinstance(client, RawListingClient):
                raw = await client.list_sessions_raw(
                    cwd=self.cwd, cursor=cursor, additional_directories=self.additional_directories
                )
                response, rest = _split_page(raw)
                del raw
            else:
                response = await client.list_sessions(
                    cwd=self.cwd, cursor=cursor, additional_directories=self.additional_directories
                )
        except AgentExited as exc:
            if generation == self.generation:
                self.loading = False
                if exc.deliberate:  # acp-tui stopped or restarted it: nothing went wrong
                    self.waiting = True
                else:
                    self.fail(str(exc))
            return 0
        except (AgentError, RpcError) as exc:
            if generation == self.generation:
                self.loading = False
                self.fail(str(exc), cursor_error=cursor is not None and _is_cursor_error(exc))
            return 0
        if generation != self.generation:
            return 0
        if response is None:
            self.loading = False
            self.fail("the agent answered session/list with null instead of a list of sessions")
            return 0
        added = self.merge(response.sessions)
        if rest:
            if on_rows is not None and added:
                on_rows()
            more = await self._merge_in_pieces(rest, generation)
            if more is None:  # the filters changed meanwhile: this page is dropped
                return 0
            added += more
        self.loading = False
        self.pages += 1
        following = response.next_cursor
        if following is None or following == cursor or following in self._seen_cursors:
            # No cursor is the last page; a cursor seen before would page forever.
            self.exhausted = True
            self.next_cursor = None
        else:
            self._seen_cursors.add(following)
            self.next_cursor = following
        return added

    async def _merge_in_pieces(self, items: list[Any], generation: int) -> int | None:
        """Validate, filter and merge ``items`` a piece at a time in a worker thread (emptying
        ``items``); None when the filters changed meanwhile."""
        added = 0
        items.reverse()  # taken from the end: each raw piece is let go once validated
        while items:
            piece = items[-PIECE:]
            del items[-PIECE:]
            piece.reverse()
            infos = await anyio.to_thread.run_sync(self._valid_matches, piece)
            del piece
            if generation != self.generation:
                return None
            added += self._merge_valid(infos)
        return added

    def _valid_matches(self, items: Sequence[Any]) -> list[SessionInfo]:
        with quiet_gc():
            infos: list[SessionInfo] = _sessions_adapter().validate_python(items)
            return [info for info in infos if self.matches(info)]

    def fail(self, message: str, *, cursor_error: bool = False) -> None:
        self.error = message
        self.cursor_expired = cursor_error

    def retry(self) -> None:
        """Clear the error; after a cursor error the listing restarts from the first page."""
        if self.cursor_expired:
            self.restart()
        else:
            self.error = None

    def merge(self, sessions: Iterable[SessionInfo]) -> int:
        """Add the sessions that pass the filters and are not already loaded."""
        return self._merge_valid(info for info in sessions if self.matches(info))

    def _merge_valid(self, sessions: Iterable[SessionInfo]) -> int:
        rows, fold = self.rows, self._fold
        before = len(rows)
        for info in sessions:
            if rows.setdefault(info.session_id, info) is info:
                fold(info)
        self._changes += 1
        return len(rows) - before

    def _fold(self, info: SessionInfo) -> tuple[SessionInfo, str, str]:
        """The row's title and id casefolded (kept in ``_folded``)."""
        session_id = info.session_id
        known = self._folded.get(session_id)
        if known is None or known[0] is not info:
            known = (info, (info.title or "").casefold(), session_id.casefold())
            self._folded[session_id] = known
        return known

    def show_local(self, sessions: Iterable[SessionInfo]) -> None:
        """Show the client's own history (the agent cannot list): one complete, filtered page."""
        self.restart()
        self.local = True
        self.exhausted = True
        self.merge(sessions)

    # -- rows ------------------------------------------------------------------------------------

    def visible(self) -> list[SessionInfo]:
        """The loaded rows that match the text search (case-insensitive, title or id)."""
        needle = self.text.strip().casefold()
        if not needle:
            return list(self.rows.values())
        rows_key = self._rows_key()
        last = self._last_search
        candidates: Iterable[SessionInfo] = self.rows.values()
        if last is not None and last[1] == rows_key and needle.startswith(last[0]):
            candidates = last[2]  # a longer needle matches only among what the shorter did
        folded, fold = self._folded, self._fold
        shown = []
        for info in candidates:
            known = folded.get(info.session_id)
            if known is None or known[0] is not info:
                known = fold(info)
            if needle in known[1] or needle in known[2]:
                shown.append(info)
        self._last_search = (needle, rows_key, shown)
        return list(shown)

    def _rows_key(self) -> tuple[int, int, int]:
        """Changes when the rows do (through this class, or added to ``rows`` directly)."""
        return (self._changes, id(self.rows), len(self.rows))

    def add_first(self, info: SessionInfo) -> bool:
        """Put a session this client just created (a fork) first, when it passes the filters."""
        if not self.matches(info):
            return False
        self.rows = {info.session_id: info, **self.rows}
        self._changes += 1
        return True

    def remove(self, session_ids: Iterable[str]) -> int:
        removed = 0
        for session_id in session_ids:
            self._folded.pop(session_id, None)
            if self.rows.pop(session_id, None) is not None:
                removed += 1
        self._changes += 1
        return removed

    def update_title(
        self,
        session_id: str,
        title: str | _Keep | None = KEEP,
        updated_at: str | _Keep | None = KEEP,
    ) -> bool:
        """Apply a `session_info_update` to a loaded row; False when it is not loaded."""
        info = self.rows.get(session_id)
        if info is None:
            return False
        changes: dict[str, str | None] = {}
        if not isinstance(title, _Keep):
            changes["title"] = title
        if isinstance(updated_at, str):
            changes["updated_at"] = updated_at
        if changes:
            self.rows[session_id] = info.model_copy(update=changes)
            self._changes += 1
        return True


def _split_page(raw: Any) -> tuple[ListSessionsResponse, list[Any]]:
    """A raw page as its response with the first sessions validated, and the sessions left to
    validate (none unless the page is huge; taken out of ``raw``). A page that does not fit
    the protocol raises :class:`AgentError`, as a validated one would."""
    sessions = raw.get("sessions") if isinstance(raw, dict) else None
    rest: list[Any] = []
    if isinstance(sessions, list) and len(sessions) > FIRST_PIECE:
        rest = sessions[FIRST_PIECE:]
        del sessions[FIRST_PIECE:]  # the raw page keeps only its first piece
    try:
        return ListSessionsResponse.from_wire(raw), rest
    except ValidationError as exc:
        raise AgentError(
            "the agent's answer to session/list does not fit the protocol: "
            f"{describe_validation_error(exc)}"
        ) from exc


@functools.cache
def _sessions_adapter() -> TypeAdapter[list[Any]]:
    return list_adapter(ListSessionsResponse, "sessions")


def _is_cursor_error(exc: Exception) -> bool:
    if isinstance(exc, RpcError):
        return exc.code == ErrorCode.INVALID_PARAMS or "cursor" in exc.message.lower()
    return "cursor" in str(exc).lower()
