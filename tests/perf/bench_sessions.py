"""Session browser benchmark: the demo agent holding 10,000 sessions, 100 a page.

Headless app (120x40) on the real demo agent, its data written by ``gen_demo_data``. Figures:

* ``first_page_ms``: from the toggle action to the first frame showing session rows in the panel;
* ``filter_ms``: typing a search word key by key (with every page loaded): the longest time from
  a key to the frame showing its filtered rows (``filter_keys_ms``: each key's), and
  ``search_max_stall_ms`` the longest event-loop stall while typing and the results came;
* ``max_stall_ms``: the longest event-loop stall (a ticker sleeping 5 ms) while paging to the end
  through the panel's own lazy loading (End, again and again, as a user would), and ``page_all_s``
  the time that took.

A frame is the compositor update handed to the driver (``App._display``): headless, nothing is
written, but everything up to the terminal write has been done.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gen_demo_data
from textual import events
from textual.app import App
from textual.widgets import Input

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import HOME_ENV
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.browser.rows import STATE_ROW, SessionRows

SIZE = (120, 40)
NEEDLE = "lighthouse"


class Frames:
    """Notes when the first frame after a condition came true was displayed."""

    def __init__(self, app: App[Any]) -> None:
        self.condition: Callable[[], bool] | None = None
        self.shown = asyncio.Event()
        self.shown_at = 0.0
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            condition = self.condition
            if renderable is not None and condition is not None and condition():
                self.shown_at = time.perf_counter()
                self.condition = None
                self.shown.set()

        app._display = display  # type: ignore[method-assign]

    def arm(self, condition: Callable[[], bool]) -> None:
        """Watch for the first frame displayed while ``condition`` holds."""
        self.shown.clear()
        self.condition = condition

    async def shown_time(self, within: float = 60) -> float:
        """When that frame was displayed (``perf_counter``)."""
        await asyncio.wait_for(self.shown.wait(), within)
        return self.shown_at


async def wait(predicate: Callable[[], bool], within: float = 60) -> None:
    deadline = time.perf_counter() + within
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the benchmark waited too long")
        await asyncio.sleep(0.002)


def send_key(app: App[Any], key: str) -> None:
    """A key as the terminal driver delivers it."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


def session_rows(rows: SessionRows) -> int:
    """How many session rows the list shows (the state row aside)."""
    count = rows.option_count
    if count and (rows.options[-1].id or "").startswith(STATE_ROW):
        count -= 1
    return count


async def measure(app: AcpApp, sessions: int) -> dict[str, Any]:
    async with app.run_test(size=SIZE) as pilot:
        await wait(lambda: app.session is not None)
        await pilot.pause()
        # Mounted (hidden) before the clock starts, as it was at start until it came on first
        # use: the figure stays that of listing, comparable with the earlier ones.
        await app.chat.open_browser()
        panel = app.chat.query_one(SessionBrowser)
        rows = app.chat.query_one(SessionRows)
        frames = Frames(app)

        # -- the first page --------------------------------------------------------------------
        frames.arm(lambda: panel.display and session_rows(rows) > 0 and rows.region.height > 0)
        started = time.perf_counter()
        await app.action_toggle_browser()
        first_page = await frames.shown_time() - started
        await wait(lambda: panel.inflight is None)

        # -- paging to the end, with a ticker watching the loop -----------------------------------
        from loop_ticker import Ticker

        ticker = Ticker()

        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        rows.focus()
        started = time.perf_counter()
        pages = 0
        while not panel.lister.exhausted:
            before = panel.lister.pages

            def next_page(before: int = before) -> bool:
                return panel.lister.pages > before and panel.inflight is None

            send_key(app, "end")
            await wait(next_page)
            pages += 1
        await pilot.pause()
        page_all = time.perf_counter() - started
        ticker.running = False
        await tick
        page_stall = ticker.max_gap
        loaded = len(panel.lister.rows)

        # -- the search, key by key: each key on screen (no stall), then its results -------
        # The browser's `/` searches the history library (every session of the agent, its
        # text too), debounced; without a library it filters the loaded rows.
        panel.action_focus_search()
        await pilot.pause()
        search = panel.search
        field = app.chat.query_one("#browser-search", Input)
        keys: list[float] = []
        results: list[float] = []
        typed = ""
        ticker = Ticker()  # the loop while typing and the results come
        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        ticker.reset()
        for char in NEEDLE:
            typed += char

            def echoed(text: str = typed) -> bool:
                return field.value == text

            def found(text: str = typed) -> bool:
                if not search.active:  # no library: the loaded rows are filtered
                    return panel.lister.text == text
                return (
                    search.searcher.text == text
                    and not search.searcher.pending
                    and search.found is not None
                )

            frames.arm(echoed)
            started = time.perf_counter()
            send_key(app, char)
            keys.append(await frames.shown_time() - started)
            if not found():
                frames.arm(found)
                results.append(await frames.shown_time() - started)
            else:
                results.append(keys[-1])
        await asyncio.sleep(0.3)  # what is laid out after the results' first frame
        ticker.running = False
        await tick
        search_stall = ticker.max_gap
        matches = session_rows(rows)
    return {
        "bench": "session_list",
        "sessions": sessions,
        "first_page_ms": round(first_page * 1000, 1),
        "filter_ms": round(max(keys) * 1000, 1),
        "search_results_ms": round(max(results) * 1000, 1),
        "max_stall_ms": round(page_stall * 1000, 1),
        "page_all_s": round(page_all, 3),
        "search_max_stall_ms": round(search_stall * 1000, 1),
        "pages": pages,
        "rows_loaded": loaded,
        "filter_keys_ms": [round(k * 1000, 1) for k in keys],
        "search_results_keys_ms": [round(k * 1000, 1) for k in results],
        "filter_matches": matches,
    }


async def run(sessions: int = 10_000, page_size: int = 100) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        data = root / "demo"
        gen_demo_data.write_sessions(data, project, sessions)
        saved = os.environ.get(HOME_ENV)
        os.environ[HOME_ENV] = str(root / "home")  # never the user's own config and caches
        try:
            argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data)]
            argv += ["--page-size", str(page_size)]
            launch = LaunchSpec(
                command=AgentCommand(argv, cwd=project, name="demo"),
                cwd=project,
                display_name="demo",
            )
            return await measure(AcpApp(launch), sessions)
        finally:
            if saved is None:
                os.environ.pop(HOME_ENV, None)
            else:
                os.environ[HOME_ENV] = saved
