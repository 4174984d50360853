"""The session browser's search goes through every session of its agent in the history library:
titles, folders and what was said (ids only when the text looks like one), each result with its
title, agent, time and what matched (literal text), debounced with the stale search cancelled;
Enter opens the result scrolled to the message that matched."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from textual.widgets import Input, Static

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.history.recorder import SessionRecorder, agent_key_for
from acp_tui.config.paths import get_paths
from acp_tui.protocol.content import TextContent
from acp_tui.store.transcripts import TranscriptCache
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.browser.rows import SessionRows
from acp_tui.ui.library.search import LibrarySearch
from tests.app.test_app_smoke import wait_for
from tests.app.test_browser import SIZE, open_browser


async def seed_sessions(app: AcpApp, sessions: list[list[str]]) -> list[str]:
    """A session per list of prompts, recorded locally (the library indexes the copies)."""
    cache = TranscriptCache(get_paths().data_dir / "transcripts")
    ids = []
    async with connect(app.launch) as client:
        recorder = SessionRecorder(cache, agent_key_for(app.launch))
        recorder.attach(client)
        for prompts in sessions:
            session = await client.new_session(app.launch.cwd)
            recorder.note(session, created=True)
            for text in prompts:
                blocks = [TextContent(text=text)]
                recorder.record_prompt(session.session_id, blocks)
                await client.prompt(session.session_id, blocks)
                recorder.record_turn_end(session.session_id, "end_turn")
            ids.append(session.session_id)
        recorder.detach()
    cache.close()
    return ids


def panel(app: AcpApp) -> SessionBrowser:
    return app.chat.query_one(SessionBrowser)


def row_texts(app: AcpApp) -> list[str]:
    rows = app.chat.query_one(SessionRows)
    return [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]


def found(app: AcpApp) -> list[str]:
    results = panel(app).search.found
    return [hit.row.session_id for hit in results.hits] if results is not None else []


async def test_the_search_finds_what_was_said_in_any_session_and_opens_at_it(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app("--page-size", "2")
    fillers = [[f"filler session {n}"] for n in range(4)]
    target, *_ = await seed_sessions(
        app,
        [
            ["fix the parser", "[b]also[/b] mention the lighthouse keeper", "then the docs"],
            *fillers,
        ],
    )
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        browser = panel(app)
        await pilot.press("slash", *"lighthouse")
        await wait_for(
            pilot, lambda: found(app) == [target] and not browser.search.searcher.pending
        )
        texts = row_texts(app)
        shown = next(t for t in texts if "fix the parser" in t)  # its title
        assert "[acp-tui demo agent]" in shown  # its agent
        assert "just now" in shown  # its time
        # The newest message that says it (the demo agent's echo), literally: no markup.
        assert "reply: You said: > [b]also[/b] mention the lighthouse keeper" in shown
        header = str(browser.query_one("#browser-header", Static).render())
        assert "1 session(s) match \u201clighthouse\u201d" in header

        rows = app.chat.query_one(SessionRows)
        rows.focus()
        rows.highlighted = rows.get_option_index(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.slot is not None and app.slot.session_id == target)
        pane = app.chat.current_pane
        await wait_for(pilot, lambda: pane.find_bar.is_open)
        assert pane.find_bar.query_text == "lighthouse"
        view = pane.transcript_view
        assert view is not None
        await wait_for(pilot, lambda: view.settled)
        assert any("lighthouse keeper" in line for line in view.visible_lines())


async def test_ids_match_only_a_prefix_and_folders_match_too(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    first, second = await seed_sessions(app, [["alpha topic"], ["beta topic"]])
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        browser = panel(app)
        # An id prefix has a digit in it ("demo-cca" is a word): 8 characters at least, more
        # when the id's first digit comes later (one id in twenty has none in "demo-xxx").
        digit = next(i for i, c in enumerate(first) if c.isdigit())
        browser.query_one("#browser-search", Input).value = first[: max(8, digit + 1)]
        await wait_for(pilot, lambda: found(app) == [first])
        inside = first[3:11]  # inside an id: not an id prefix
        browser.query_one("#browser-search", Input).value = inside
        searcher = browser.search.searcher
        await wait_for(pilot, lambda: searcher.text == inside and not searcher.pending)
        assert first not in found(app)
        browser.query_one("#browser-search", Input).value = app.launch.cwd.name  # the folder
        # Both, by their folder (and the tab's own new session, listed by the agent too).
        await wait_for(pilot, lambda: {first, second} <= set(found(app)))


async def test_typing_fast_searches_once_the_typing_pauses(
    make_app: Callable[..., AcpApp], monkeypatch: Any
) -> None:
    app = make_app()
    await seed_sessions(app, [["the lighthouse keeper"]])
    started: list[str] = []
    real = LibrarySearch.start

    def start(self: LibrarySearch, library: Any, text: str, filters: Any) -> None:
        started.append(text)
        real(self, library, text, filters)

    monkeypatch.setattr(LibrarySearch, "start", start)
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        started.clear()
        field = panel(app).query_one("#browser-search", Input)
        for end in range(1, len("lighthouse") + 1):  # ten keys faster than the debounce
            field.value = "lighthouse"[:end]
        await wait_for(pilot, lambda: len(found(app)) == 1)
        assert set(started) == {"lighthouse"}  # (the agent's listing may search it again)
        field.value = ""
        await wait_for(pilot, lambda: not panel(app).search.active)
        assert any("the lighthouse keeper" in t for t in row_texts(app))  # the listed rows again


async def test_results_of_older_text_never_show_as_the_newer_texts(
    make_app: Callable[..., AcpApp], monkeypatch: Any
) -> None:
    """Typing again while a search runs drops it: what it finds (for the older text) is not
    shown, nor said to be the newer text's results, while that one waits for its pause."""
    from acp_tui.store.library import Library

    app = make_app()
    _first, second = await seed_sessions(app, [["alpha topic"], ["beta topic"]])
    release = threading.Event()
    real = Library.search

    def search(self: Library, text: str, *args: Any, **kwargs: Any) -> Any:
        if text == "alpha":
            release.wait(30)  # the first search is slow
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(Library, "search", search)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_browser(pilot, app)
            browser = panel(app)
            searcher = browser.search.searcher
            field = browser.query_one("#browser-search", Input)
            field.value = "alpha"
            await wait_for(pilot, lambda: searcher._timer is None and searcher.pending)
            field.value = "beta"
            await wait_for(pilot, lambda: searcher.text == "beta")
            release.set()  # "alpha" is found now, after "beta" was typed
            await wait_for(pilot, lambda: not searcher.pending)
            assert found(app) == [second]
    finally:
        release.set()


async def test_the_first_sessions_found_are_shown_before_the_rest_of_the_page() -> None:
    """A page of 200 sessions takes 3 to 4 times as long to find as the first 50 (a common
    word, a short prefix): the first 50 are shown at once, then the page."""
    from textual.app import App

    from acp_tui.store.library import Filters, SearchResults
    from acp_tui.store.library.query import parse_query
    from acp_tui.ui.library.search import PAGE

    class Found:
        """A library holding 120 sessions that match."""

        def __init__(self) -> None:
            self.limits: list[int] = []

        def wait_built(self, timeout: float | None = None) -> bool:
            return True  # built already: each search is made once

        def search(self, text: str, filters: Any, *, limit: int, cancel: Any) -> SearchResults:
            self.limits.append(limit)
            hits: list[Any] = [f"session {n}" for n in range(min(limit, 120))]
            return SearchResults(parse_query(text), hits, limit < 120)

    library = Found()
    shown: list[list[Any]] = []
    async with App().run_test() as pilot:
        searcher = LibrarySearch(pilot.app.screen, lambda f: shown.append(f.hits), group="g")
        searcher.start(library, "ba", Filters())  # type: ignore[arg-type]
        await wait_for(pilot, lambda: len(shown) == 2)
    assert library.limits == [50, PAGE]
    assert [len(hits) for hits in shown] == [50, 120]


async def test_a_search_during_a_build_that_stops_is_made_once_and_its_thread_ends() -> None:
    """A library that stops (a full disk) before its first build is done will index nothing
    more: the search shows what it found, is not made again, and its thread does not wait on."""
    from textual.app import App

    from acp_tui.store.library import Filters, LibraryStatus, SearchResults
    from acp_tui.store.library.query import parse_query

    class Stopping:
        """A library whose build never ends; it stops once the first search is made."""

        def __init__(self) -> None:
            self.searches = 0
            self.status = LibraryStatus("building")

        def wait_built(self, timeout: float | None = None) -> bool:
            return False

        def search(self, text: str, filters: Any, *, limit: int, cancel: Any) -> SearchResults:
            self.searches += 1
            self.status = LibraryStatus("stopped", trouble="disk full")
            return SearchResults(parse_query(text), ["session 1"], False)  # type: ignore[list-item]

    library = Stopping()
    shown: list[list[Any]] = []
    async with App().run_test() as pilot:
        screen = pilot.app.screen
        searcher = LibrarySearch(screen, lambda f: shown.append(f.hits), group="g")
        searcher.start(library, "harbour", Filters())  # type: ignore[arg-type]
        await wait_for(pilot, lambda: len(shown) == 1)
        # The worker that delivered is done (the manager lets go of finished workers).
        await wait_for(pilot, lambda: not [w for w in pilot.app.workers if w.group == "g"])
    assert library.searches == 1
    assert shown == [["session 1"]]
