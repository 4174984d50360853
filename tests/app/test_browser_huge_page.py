"""A huge `session/list` page: the browser shows its first rows before the rest is converted."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.history.session_list import FIRST_PIECE, SessionLister
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.browser.rows import SessionRows
from tests.app.test_app_smoke import wait_for
from tests.perf.gen_demo_data import write_sessions

SIZE = (120, 36)
COUNT = 3000


async def test_the_first_rows_of_a_huge_page_show_before_the_rest_is_converted(
    make_app: Callable[..., AcpApp],
    tmp_path: Path,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_sessions(tmp_path / "demo", project, COUNT)
    app = make_app("--page-size", str(COUNT))  # every session in one page
    release = threading.Event()
    real = SessionLister._valid_matches

    def held(self: SessionLister, items: Sequence[Any]) -> list[SessionInfo]:
        release.wait(30)  # the rest of the page waits until the first rows were seen
        return real(self, items)

    monkeypatch.setattr(SessionLister, "_valid_matches", held)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.session is not None)
            await app.chat.open_browser()  # mounted, still hidden: Ctrl+B shows it
            panel = app.chat.query_one(SessionBrowser)
            rows = app.chat.query_one(SessionRows)
            await pilot.press("ctrl+b")
            await wait_for(pilot, lambda: rows.option_count > 1)
            assert panel.lister.loading
            assert len(panel.lister.rows) == FIRST_PIECE
            assert rows.get_option_at_index(0).id is not None
            release.set()
            await wait_for(pilot, lambda: panel.inflight is None and not panel.lister.loading)
            assert len(panel.lister.rows) == COUNT
    finally:
        release.set()


async def test_a_page_of_rows_is_laid_out_a_slice_at_a_time() -> None:
    """200 search results laid out at once held the loop ~50 ms, and the next key with it:
    the rows the view can show come at once, the rest from timers, the end row last; a newer
    list drops the rest of an older one."""
    from textual.app import App, ComposeResult

    from acp_tui.ui.browser.rows import RowState

    class Rows(App[None]):
        def compose(self) -> ComposeResult:
            yield SessionRows(id="rows")

    infos = [SessionInfo(session_id=f"s{n}", cwd="/p", title=f"session {n}") for n in range(200)]
    app = Rows()
    async with app.run_test(size=(100, 40)) as pilot:
        rows = app.query_one(SessionRows)
        rows.show_rows(infos, {}, RowState("end", "200 session(s)"))
        assert 0 < rows.option_count < 200
        await wait_for(pilot, lambda: rows.option_count == 201)
        assert [rows.get_option_at_index(i).id for i in range(201)] == [
            *(info.session_id for info in infos),
            "state:end",
        ]
        newer = [SessionInfo(session_id=f"n{n}", cwd="/p", title=f"new {n}") for n in range(3)]
        rows.show_rows(infos[::-1], {}, RowState("end", "200 session(s)"))
        rows.show_rows(newer, {}, RowState("end", "3 session(s)"))
        for _ in range(20):
            await pilot.pause(0.01)
        assert [rows.get_option_at_index(i).id for i in range(rows.option_count)] == [
            "n0",
            "n1",
            "n2",
            "state:end",
        ]
