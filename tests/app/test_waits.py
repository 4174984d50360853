"""Nothing waits for the agent forever: a tab whose session never opens counts the seconds,
Esc stops waiting, and a timeout ends in a message, not a traceback; so does the browser's
`session/list`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from acp_tui.client.session.entries import NoticeEntry
from acp_tui.config.settings import Settings
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.browser.waiting import ListWaiting
from tests.app.helpers import wait_for

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


def with_timeout(app: AcpApp, seconds: float) -> AcpApp:
    return AcpApp(replace(app.launch, settings=Settings(request_timeout=seconds)))


def notices(app: AcpApp) -> list[str]:
    assert app.slot is not None
    return [e.text for e in app.slot.transcript.entries if isinstance(e, NoticeEntry)]


def cancels_sent(app: AcpApp, sent: list[Any]) -> list[Any]:
    return [m["params"]["requestId"] for m in sent if m.get("method") == "$/cancel_request"]


@PROTOCOLS
async def test_esc_stops_waiting_for_a_session_that_never_opens(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = with_timeout(make_app("--fault", "hang-session", protocol=protocol), 3600)
    sent: list[Any] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "session/new: waited" in app.chat.status_text())
        assert "(Esc cancels)" in app.chat.status_text()
        assert app.client is not None
        app.client.connection.tracer = lambda d, m: sent.append(m) if d == "send" else None
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "failed")
        assert "Could not open a session: you stopped waiting for session/new" in notices(app)
        assert len(cancels_sent(app, sent)) == 1
        assert "waited" not in app.chat.status_text()
        # The agent is still up: Ctrl+N opens a session... which hangs again; the tab waits.
        assert app.client.clock.waiting == []


@PROTOCOLS
async def test_a_session_that_never_opens_times_out_with_a_message(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = with_timeout(make_app("--fault", "hang-session", protocol=protocol), 0.5)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "failed")
        expected = "Could not open a session: the agent did not answer session/new within 0.5 s"
        assert expected in notices(app)
        assert "could not open a session" in app.chat.status_text()
        assert app.is_running


@PROTOCOLS
async def test_the_browser_stops_waiting_for_a_list_on_esc_or_a_timeout(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = with_timeout(make_app("--fault", "hang-list", protocol=protocol), 3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        browser = app.screen.query_one(SessionBrowser)
        waiting = browser.query_one(ListWaiting)
        await wait_for(pilot, lambda: "session/list: waited" in waiting.text)
        assert waiting.text.endswith("(Esc cancels)")
        assert waiting.display
        browser.rows.focus()
        await pilot.press("escape")
        await wait_for(pilot, lambda: browser.lister.error is not None)
        assert browser.lister.error == "you stopped waiting for session/list"
        assert browser.rows.has_focus  # this Esc did not go back to the prompt
        await wait_for(pilot, lambda: not waiting.display)
        assert app.client is not None
        app.client.clock.timeout = 0.5  # the same, when the time is up
        await pilot.press("enter")  # the error row: retry
        await wait_for(
            pilot, lambda: browser.lister.error != "you stopped waiting for session/list"
        )
        await wait_for(pilot, lambda: browser.lister.error is not None)
        assert browser.lister.error == "the agent did not answer session/list within 0.5 s"
