"""Provides LibrarySearch: the history library searched from a widget as the user types.

A search starts once typing pauses for `DEBOUNCE` seconds; a newer one cancels the one under
way (its thread stops at its next step, see `Library.search`); the reads run on a worker
thread, so typing never waits for a search. The first `FIRST` sessions found are shown at
once, and the page (up to `PAGE`) when it is found. What a search found is handed to
``found`` on the event loop, and only if no newer search was asked for meanwhile. A search
made while the library is first built finds what is indexed so far, and is made again once
the build is done. The every-agent view and the session browser both search through it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.dom import DOMNode
from textual.timer import Timer
from textual.worker import get_current_worker

from acp_tui.store.library import Filters, SearchCancelled, SearchResults

if TYPE_CHECKING:
    from acp_tui.store.library import Library

__all__ = ["DEBOUNCE", "FIRST", "PAGE", "LibrarySearch"]

DEBOUNCE = 0.12
"""Seconds of no typing before a search starts."""
PAGE = 200
"""Sessions found at most (the search narrows the rest)."""
FIRST = 50
"""Sessions found first, and shown while the rest of the page is looked for."""
BUILD_CHECK = 0.2
"""Seconds between two looks, from a worker thread, at whether the first build is done."""


OVER = ("stopped", "closed")
"""The library's states in which nothing more is indexed (a full disk, the app closing)."""


def _built_meanwhile(library: Library, cancelled: Callable[[], bool]) -> bool:
    """Wait (on a worker thread) for the library's first build: whether it is done and ready
    to read again, unless ``cancelled`` first, or the library stops or closes meanwhile."""
    while not library.wait_built(BUILD_CHECK):
        if cancelled() or library.status.state in OVER:
            return False
    return not cancelled() and library.status.state not in OVER


class LibrarySearch:
    """Searches for ``host`` (its timers and workers); results go to ``found``."""

    def __init__(
        self, host: DOMNode, found: Callable[[SearchResults], object], *, group: str
    ) -> None:
        self.host = host
        self.found = found
        self.group = group
        self.text = ""
        """The text searched for (or about to be), blank when none."""
        self.pending = False
        """A search is due or under way (what is shown is older)."""
        self._timer: Timer | None = None
        self._cancel = threading.Event()

    def typed(self, library: Library, text: str, filters: Filters) -> None:
        """Search for ``text`` once typing pauses (blank: stop searching); the search under
        way, for older text, is dropped now (its results would show as this text's)."""
        self._stop_timer()
        self._cancel.set()
        if not text.strip():
            self.stop()
            return
        self.text, self.pending = text, True
        self._timer = self.host.set_timer(DEBOUNCE, partial(self.start, library, text, filters))

    def start(self, library: Library, text: str, filters: Filters) -> None:
        """Search for ``text`` now; the search under way, if any, stops."""
        self._stop_timer()
        self._cancel.set()
        self._cancel = cancel = threading.Event()
        self.text, self.pending = text, True
        work = partial(self._search, library, text, filters, cancel)
        self.host.run_worker(work, thread=True, group=self.group, exit_on_error=False)

    def again(self, library: Library, filters: Filters) -> None:
        """Search for the same text again (with ``filters``): once typing pauses, if it has
        not yet, else now."""
        if not self.text.strip():
            return
        if self._timer is not None:
            self.typed(library, self.text, filters)
        else:
            self.start(library, self.text, filters)

    def stop(self) -> None:
        """No more searching: the search due or under way is dropped."""
        self._stop_timer()
        self._cancel.set()
        self.text, self.pending = "", False

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _search(
        self, library: Library, text: str, filters: Filters, cancel: threading.Event
    ) -> None:
        """On the worker thread: the first `FIRST` sessions found, then (if there are more)
        up to `PAGE`: a page of 200 takes 3 to 4 times as long to find as a screenful. While
        the library's first build is under way, what it has indexed so far is shown, and the
        search is made again once the build is done (unless the search was dropped, or its
        host unmounted, meanwhile)."""
        worker = get_current_worker()

        def dropped() -> bool:
            return cancel.is_set() or worker.is_cancelled

        building = not library.wait_built(0)
        while True:
            for limit in (FIRST, PAGE):
                try:
                    found = library.search(text, filters, limit=limit, cancel=cancel)
                except SearchCancelled:
                    return
                if cancel.is_set():
                    return
                self.host.app.call_from_thread(self._deliver, found, cancel)
                if not found.more:
                    break
            if not building or not _built_meanwhile(library, dropped):
                return
            building = False

    def _deliver(self, found: SearchResults, cancel: threading.Event) -> None:
        if cancel is not self._cancel or cancel.is_set() or not self.host.is_attached:
            return  # a newer search was asked for meanwhile, or the host is gone
        self.pending = False
        self.found(found)
