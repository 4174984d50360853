"""Focus never lands where typing is lost: after the pickers change, after the browser's actions
and toggles (with two tabs, so a prompt that is not shown could take it), and Down from the
browser's search field goes into its results."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Select

from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.rows import SessionRows
from acp_tui.ui.widgets.session_options import SessionOptions
from tests.app.helpers import wait_for
from tests.app.test_browser import browser, highlight, open_browser, seed
from tests.app.test_tabs import new_tab

SIZE = (120, 36)


def prompt_text(app: AcpApp) -> str:
    return app.chat.current_pane.prompt.text


async def typed_lands_in_the_prompt(pilot: Pilot[int], app: AcpApp, text: str) -> None:
    """The focus is on the shown tab's prompt, and what is typed there is kept whole."""
    prompt = app.chat.current_pane.prompt
    assert app.focused is prompt, app.focused
    before = prompt.text
    await pilot.press(*text)
    await wait_for(pilot, lambda: prompt.text == before + text)


async def second_tab(pilot: Pilot[int], app: AcpApp) -> None:
    """Open a second tab (once the first tab's session is open: the views may be up before
    the Workspace is) and wait until its prompt has the focus."""
    await wait_for(pilot, lambda: app.session is not None)
    await new_tab(pilot, app)
    await wait_for(pilot, lambda: app.focused is app.chat.current_pane.prompt)


async def test_a_picker_that_adds_a_picker_gives_the_prompt_the_focus(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        bar = app.chat.current_pane.query_one(SessionOptions)
        await wait_for(pilot, lambda: len(bar.query(Select)) >= 2)
        pickers = len(bar.query(Select))
        model = next(s for s in bar.query(Select).results(Select) if s.name == "config:model")
        model.focus()
        await pilot.press("enter", "down", "enter")  # the smart model: a reasoning picker too
        await wait_for(pilot, lambda: len(bar.query(Select)) == pickers + 1)
        await pilot.pause()
        # The choice made, the prompt has the focus, and the bar rebuilt around the new
        # picker leaves it there (not on the transcript, not on a picker).
        await typed_lands_in_the_prompt(pilot, app, "after the pick")


async def test_ctrl_b_leaves_the_focus_on_the_shown_tabs_prompt(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, app.startup.ready.is_set)
        await wait_for(pilot, lambda: app.session is not None)
        await second_tab(pilot, app)
        await open_browser(pilot, app)  # narrow
        await pilot.press("ctrl+b")  # wide
        assert app.focused is app.chat.query_one(SessionRows)
        await pilot.press("ctrl+b")  # hidden: back to the prompt of the tab shown
        await typed_lands_in_the_prompt(pilot, app, "typed after the toggle")


async def test_a_browser_action_in_the_wide_panel_gives_the_prompt_the_focus(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    [sid] = await seed(app, ["the wide panel"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, app.startup.ready.is_set)
        await second_tab(pilot, app)
        await open_browser(pilot, app)
        await pilot.press("ctrl+b")
        panel = browser(app)
        assert panel.has_class("-wide")
        await highlight(pilot, app, sid)
        await pilot.press("R")  # resume, in a tab of its own
        await wait_for(pilot, lambda: app.session is not None and app.session.session_id == sid)
        await wait_for(pilot, lambda: app.focused is not panel.rows)
        await typed_lands_in_the_prompt(pilot, app, "after resume")


async def test_down_in_the_browser_search_moves_into_the_results(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    await seed(app, ["alpha topic", "beta topic"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, app.startup.ready.is_set)
        await open_browser(pilot, app)
        rows = app.chat.query_one(SessionRows)
        await pilot.press("slash", *"topic")
        await pilot.press("down")
        await wait_for(pilot, lambda: app.focused is rows)
        assert rows.highlighted is not None
