"""A launch that types nothing leaves no session behind: the agent deletes it on the way out
where it can; otherwise neither the session browser nor the every-agent view lists it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from acp_tui.ui.app import AcpApp
from acp_tui.ui.library.screen import LibraryScreen
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_browser import SIZE, browser, open_browser
from tests.unit.client.workspace.test_unused_sessions import NO_DELETE, agent_sessions


async def launch_and_quit(app: AcpApp) -> str:
    """Start the app, type nothing, quit; the id of the session it opened."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "ready")
        assert app.session is not None
        return app.session.session_id


async def test_a_launch_that_types_nothing_leaves_no_session_with_the_agent(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    await launch_and_quit(make_app())
    assert agent_sessions(tmp_path / "demo") == []


async def test_a_launch_that_sent_a_prompt_keeps_its_session(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "ready")
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: app.slot is not None and app.slot.prompted)
        await wait_for(pilot, lambda: app.slot is not None and not app.slot.busy)
        assert app.session is not None
        kept = app.session.session_id
    assert agent_sessions(tmp_path / "demo") == [kept]


async def test_without_delete_the_browsers_do_not_list_the_unused_session(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    empty = await launch_and_quit(make_app(*NO_DELETE))
    assert agent_sessions(tmp_path / "demo") == [empty]  # the agent cannot delete it

    app = make_app(*NO_DELETE)
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        assert app.session is not None
        mine = app.session.session_id
        assert empty in browser(app).lister.rows  # the agent lists it…
        assert list(browser(app).rows.infos) == [mine]  # …the browser does not (its own tab's is)

        app.action_every_agent()
        screen = await wait_for_screen(pilot, LibraryScreen)

        def done() -> bool:
            statuses = screen.statuses.values()
            return bool(statuses) and all(status.state == "done" for status in statuses)

        await wait_for(pilot, done, seconds=30)
        await wait_for(pilot, lambda: any(row.session_id == mine for row in screen.rows))
        assert empty not in {row.session_id for row in screen.rows}
