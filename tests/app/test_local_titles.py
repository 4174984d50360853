"""Local titles: a session renamed here (r in the browser, /rename in the chat) shows that title
in the browser, its tab and its header, across restarts, until it is cleared."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Input, Static, Tab

from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import get_paths
from acp_tui.store.transcripts import TranscriptCache
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.rows import SessionRows
from acp_tui.ui.dialogs.rename import RenameDialog
from acp_tui.ui.widgets.session_tabs import SessionTabs
from tests.app.helpers import wait_for_screen
from tests.app.test_app_smoke import wait_for
from tests.app.test_browser import SIZE, browser, highlight, open_browser, seed


def header(app: AcpApp, slot: SessionSlot) -> str:
    pane = app.chat.pane_of(slot)
    return str(pane.query_one("#status", Static).render()) if pane is not None else ""


def tab(app: AcpApp, slot: SessionSlot) -> str:
    return str(app.chat.query_one(SessionTabs).query_one(f"#slot-{slot.id}", Tab).label)


def row_text(app: AcpApp, session_id: str) -> str:
    rows = app.chat.query_one(SessionRows)
    return str(rows.get_option(session_id).prompt)


async def test_rename_in_the_browser_then_clear_in_the_chat(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    first, _ = await seed(app, ["alpha topic", "beta topic"])
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        await highlight(pilot, app, first)
        await pilot.press("r")
        dialog = await wait_for_screen(pilot, RenameDialog)
        assert dialog.query_one(Input).value == "alpha topic"
        dialog.query_one(Input).value = "  Release [b]notes[/b]\x1b[2J  "
        await pilot.press("enter")
        kept = "Release [b]notes[/b]\x1b[2J"
        await wait_for(pilot, lambda: "Release [b]notes" in row_text(app, first))
        assert "alpha topic" not in row_text(app, first)
        assert "\x1b" not in row_text(app, first)  # shown literally, controls made visible

        await highlight(pilot, app, first)
        await pilot.press("enter")  # opens it in a new tab
        assert app.workspace is not None
        await wait_for(pilot, lambda: app.slot is not None and app.slot.session_id == first)
        slot = app.slot
        assert slot is not None
        await wait_for(pilot, lambda: slot.title == kept)
        await wait_for(pilot, lambda: "Release [b]notes[/b]" in header(app, slot))
        await wait_for(pilot, lambda: "Release [b]notes[/b]" in tab(app, slot))

        pane = app.chat.pane_of(slot)
        assert pane is not None
        pane.prompt.focus()
        await pilot.press(*"/rename")
        if pane.prompt.completion_list.is_open:  # /rename is completed: Enter would take that
            await pilot.press("escape")
        await pilot.press("enter")
        await wait_for(pilot, lambda: slot.title == "alpha topic")
        await wait_for(pilot, lambda: "alpha topic" in header(app, slot))
        await wait_for(pilot, lambda: "alpha topic" in tab(app, slot))
        await wait_for(pilot, lambda: "alpha topic" in row_text(app, first))
    key = agent_key_for(app.launch)
    assert TranscriptCache(get_paths().data_dir / "transcripts").local_titles(key) == {}


async def test_a_local_title_is_kept_across_restarts(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    first, second = await seed(app, ["alpha topic", "beta topic"])
    cache = TranscriptCache(get_paths().data_dir / "transcripts")
    assert cache.set_local_title(agent_key_for(app.launch), second, "Kept\nhere  ") == "Kept here"
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        assert "Kept here" in row_text(app, second)
        assert "alpha topic" in row_text(app, first)
        assert browser(app).lister.rows[second].title == "beta topic"  # the agent's, beneath
