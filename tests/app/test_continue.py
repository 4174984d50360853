"""`--continue` and `--session ID`: a launch reopens an earlier session with its history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.pilot import Pilot

from acp_tui.client.session.entries import MessageEntry, NoticeEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.rows import SessionRows
from acp_tui.ui.widgets.session_tabs import SessionTabs
from tests.app.helpers import wait_for

SIZE = (120, 36)
PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


def texts(app: AcpApp, role: str) -> list[str]:
    if app.session is None:
        return []
    return [
        e.text
        for e in app.session.transcript.entries
        if isinstance(e, MessageEntry) and e.role == role
    ]


async def chat_once(app: AcpApp, words: str) -> str:
    """Send ``words`` in a fresh session; its id."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*words, "enter")
        await wait_for(pilot, lambda: bool(texts(app, "agent")) and not app.slot.busy)  # type: ignore[union-attr]
        assert app.session is not None
        return app.session.session_id


@PROTOCOLS
async def test_continue_reopens_the_projects_last_session_with_its_history(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    await chat_once(make_app(protocol=protocol), "older words")
    last = await chat_once(make_app(protocol=protocol), "newer words")
    app = make_app(protocol=protocol)
    app = AcpApp(replace(app.launch, continue_last=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "newer words" in texts(app, "user"), seconds=20)
        assert app.session is not None
        assert app.session.session_id == last
        assert texts(app, "user") == ["newer words"]  # shown once
        assert app.workspace is not None
        assert len(app.workspace.slots) == 1


async def test_session_id_reopens_that_session(make_app: Callable[..., AcpApp]) -> None:
    first = await chat_once(make_app(), "the first one")
    await chat_once(make_app(), "the second one")
    base = make_app()
    app = AcpApp(replace(base.launch, session_id=first))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "the first one" in texts(app, "user"), seconds=20)
        assert app.session is not None
        assert app.session.session_id == first


async def test_continue_with_nothing_to_continue_starts_a_new_session_and_says_so(
    make_app: Callable[..., AcpApp],
) -> None:
    base = make_app()
    app = AcpApp(replace(base.launch, continue_last=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.slot is not None
        notices = [e.text for e in app.slot.transcript.entries if isinstance(e, NoticeEntry)]
        assert any("No earlier session in this folder" in n for n in notices)


async def fork_in_browser(pilot: Pilot[int], app: AcpApp, title: str) -> str:
    """Fork the session titled ``title`` from the browser; the fork's id, once it is open."""
    await wait_for(pilot, lambda: app.session is not None)
    shown = app.session.session_id if app.session else ""
    await pilot.press("ctrl+b")
    rows = app.chat.query_one(SessionRows)
    await wait_for(pilot, lambda: any(i.title == title for i in rows.infos.values()))
    original = next(i for i in rows.infos.values() if i.title == title)
    rows.highlighted = rows.get_option_index(original.session_id)
    rows.focus()
    await pilot.press("f")
    await wait_for(
        pilot,
        lambda: (
            app.session is not None
            and app.session.session_id not in (shown, original.session_id)
            and app.slot is not None
            and app.slot.state == "ready"
        ),
    )
    assert app.session is not None
    return app.session.session_id


def tab_text(app: AcpApp) -> str:
    tabs = app.chat.query_one(SessionTabs)
    return str(tabs.query_one(f"#{tabs.active}").render())


def row_text(app: AcpApp, session_id: str) -> str:
    return str(app.chat.query_one(SessionRows).get_option(session_id).prompt)


async def test_a_fork_is_titled_fork_of_in_its_tab_and_its_status(
    make_app: Callable[..., AcpApp],
) -> None:
    await chat_once(make_app(), "the original words")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await fork_in_browser(pilot, app, "the original words")
        assert app.slot is not None
        assert app.slot.title == "Fork of the original words"
        await pilot.pause()
        assert "Fork of the original" in tab_text(app)
        assert "Fork of the original words" in app.chat.current_pane.status_text()


async def test_a_fork_keeps_its_title_after_continue_and_reopened_from_the_browser(
    make_app: Callable[..., AcpApp],
) -> None:
    await chat_once(make_app(), "the original words")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        fork = await fork_in_browser(pilot, app, "the original words")
    title = "Fork of the original words"

    app = AcpApp(replace(make_app().launch, continue_last=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: app.slot is not None and app.slot.state == "ready",
            seconds=20,
        )
        assert app.session is not None
        assert app.session.session_id == fork
        assert "the original words" in texts(app, "user")  # its history, replayed
        await wait_for(pilot, lambda: title in app.chat.current_pane.status_text())
        await wait_for(pilot, lambda: "Fork of the original" in tab_text(app))

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        rows = app.chat.query_one(SessionRows)
        await wait_for(pilot, lambda: fork in rows.infos)
        assert title in row_text(app, fork)
        rows.highlighted = rows.get_option_index(fork)
        rows.focus()
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session.session_id == fork
                and app.slot is not None
                and app.slot.state == "ready"
            ),
        )
        await wait_for(pilot, lambda: title in app.chat.current_pane.status_text())
        await wait_for(pilot, lambda: "Fork of the original" in tab_text(app))


async def test_a_session_id_that_cannot_be_opened_gives_a_new_session_and_says_why(
    make_app: Callable[..., AcpApp],
) -> None:
    base = make_app()
    app = AcpApp(replace(base.launch, session_id="demo-nowhere"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "ready")
        assert app.session is not None
        assert app.session.session_id != "demo-nowhere"
        notices = [e.text for e in app.session.transcript.entries if isinstance(e, NoticeEntry)]
        assert any("Could not open" in n and "new session" in n for n in notices), notices
        await pilot.press(*"still here", "enter")  # goes to the new session, not behind Ctrl+R
        await wait_for(
            pilot,
            lambda: any("still here" in text for text in texts(app, "agent")),
        )
        assert app.workspace is not None
        assert len(app.workspace.slots) == 1
