"""The browser's extra-roots filter is chosen in the roots dialog, against the real demo agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.history.session_text import display_title
from acp_tui.protocol.content import TextContent
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.controls import BrowserFilters, RootsFilterDialog
from acp_tui.ui.widgets.root_list import RootList
from acp_tui.ui.widgets.root_tree import PathInput
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_browser import browser, calls, open_browser, row_titles, settled, static_text

SIZE = (130, 42)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """Two directories beside the project, to be extra roots."""
    lib, docs = tmp_path / "lib", tmp_path / "docs"
    lib.mkdir()
    docs.mkdir()
    return lib, docs


async def seed_roots(launch: LaunchSpec, sessions: dict[str, tuple[Path, ...]]) -> None:
    """One session per title (its first prompt), with the given extra roots, in order."""
    async with connect(launch) as client:
        for text, roots in sessions.items():
            session = await client.new_session(launch.cwd, roots)
            await client.prompt(session.session_id, [TextContent(text=text)])


def filters(app: AcpApp) -> BrowserFilters:
    return app.chat.query_one(BrowserFilters)


async def open_filter_dialog(pilot: Pilot[int], app: AcpApp) -> RootsFilterDialog:
    await pilot.press("e")
    await wait_for_screen(pilot, RootsFilterDialog)
    dialog = app.screen
    assert isinstance(dialog, RootsFilterDialog)
    await wait_for(pilot, lambda: dialog.query("#roots-any").first(Button).is_mounted)
    return dialog


async def listed_again(pilot: Pilot[int], app: AcpApp, sent: list[dict[str, Any]], n: int) -> None:
    await wait_for(pilot, lambda: len(calls(sent, "session/list")) > n and settled(app))


async def test_choosing_roots_in_the_dialog_filters_the_rows(
    make_app: Callable[..., AcpApp], places: tuple[Path, Path]
) -> None:
    lib, docs = places
    app = make_app()
    await seed_roots(
        app.launch,
        {
            "no roots": (),
            "lib only": (lib,),
            "lib then docs": (lib, docs),
            "docs then lib": (docs, lib),
        },
    )
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await wait_for(pilot, lambda: "docs then lib" in row_titles(app))
        assert "additionalDirectories" not in calls(sent, "session/list")[-1]
        assert "Extra roots: any" in str(app.chat.query_one("#browser-roots", Button).label)
        assert app.chat.query_one("#browser-roots-any", Button).disabled

        dialog = await open_filter_dialog(pilot, app)
        assert dialog.supported
        assert not dialog.entries
        recent = dialog.query_one("#roots-recent", OptionList)
        offered = {recent.get_option_at_index(i).id for i in range(recent.option_count)}
        assert offered == {str(lib), str(docs)}  # the listed sessions' roots
        assert "without extra roots" in str(dialog.query_one("#roots-ok", Button).label)
        assert isinstance(dialog.focused, PathInput)
        n = len(calls(sent, "session/list"))
        await pilot.press(*str(lib), "enter", *str(docs), "enter")
        assert dialog.entries == (str(lib), str(docs))
        assert str(dialog.query_one("#roots-ok", Button).label) == "Filter"
        await pilot.click("#roots-ok")
        await listed_again(pilot, app, sent, n)
        assert row_titles(app) == ["lib then docs"]  # exact and in order
        assert calls(sent, "session/list")[-1]["additionalDirectories"] == [str(lib), str(docs)]
        assert f"exactly [{lib}, {docs}]" in static_text(app, "#browser-header")
        assert filters(app).roots == (lib, docs)
        assert "exactly 2" in str(app.chat.query_one("#browser-roots", Button).label)

        # Reopened, the dialog holds the current filter; Cancel keeps it.
        dialog = await open_filter_dialog(pilot, app)
        assert dialog.entries == (str(lib), str(docs))
        n = len(calls(sent, "session/list"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsFilterDialog))
        assert filters(app).roots == (lib, docs)
        assert len(calls(sent, "session/list")) == n

        # An empty list: exactly no extra roots.
        dialog = await open_filter_dialog(pilot, app)
        dialog.query_one(RootList).focus()
        await pilot.press("delete", "delete")
        await wait_for(pilot, lambda: dialog.entries == ())
        assert "without extra roots" in str(dialog.query_one("#roots-ok", Button).label)
        await pilot.click("#roots-ok")
        await listed_again(pilot, app, sent, n)
        assert "no roots" in row_titles(app)
        assert not {"lib only", "lib then docs", "docs then lib"} & set(row_titles(app))
        assert calls(sent, "session/list")[-1]["additionalDirectories"] == []
        assert "exactly [none]" in static_text(app, "#browser-header")

        # "Any extra roots" in the dialog drops the filter.
        dialog = await open_filter_dialog(pilot, app)
        n = len(calls(sent, "session/list"))
        await pilot.click("#roots-any")
        await listed_again(pilot, app, sent, n)
        assert filters(app).roots is None
        assert {"no roots", "lib only", "lib then docs", "docs then lib"} <= set(row_titles(app))
        assert "additionalDirectories" not in calls(sent, "session/list")[-1]
        assert "exactly" not in static_text(app, "#browser-header")


async def test_the_bar_button_opens_the_dialog_and_any_clears(
    make_app: Callable[..., AcpApp], places: tuple[Path, Path]
) -> None:
    lib, _ = places
    app = make_app()
    await seed_roots(app.launch, {"plain": (), "with lib": (lib,)})
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await wait_for(pilot, lambda: "with lib" in row_titles(app))
        await pilot.click("#browser-roots")
        await wait_for_screen(pilot, RootsFilterDialog)
        dialog = app.screen
        assert isinstance(dialog, RootsFilterDialog)
        # The offered roots (the listed sessions') add with Enter.
        recent = dialog.query_one("#roots-recent", OptionList)
        recent.focus()
        recent.highlighted = 0
        await pilot.press("enter")
        assert dialog.entries == (str(lib),)
        n = len(calls(sent, "session/list"))
        await pilot.click("#roots-ok")
        await listed_again(pilot, app, sent, n)
        assert row_titles(app) == ["with lib"]
        clear = app.chat.query_one("#browser-roots-any", Button)
        assert not clear.disabled
        n = len(calls(sent, "session/list"))
        await pilot.click("#browser-roots-any")
        await listed_again(pilot, app, sent, n)
        assert {"plain", "with lib"} <= set(row_titles(app))
        assert clear.disabled
        assert "additionalDirectories" not in calls(sent, "session/list")[-1]


async def test_e_in_the_search_box_is_typed_not_a_shortcut(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    await seed_roots(app.launch, {"the edge case": ()})
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        await pilot.press("slash", *"edge")
        assert not isinstance(app.screen, RootsFilterDialog)
        assert browser(app).query_one("#browser-search", Input).value == "edge"

        def shown() -> list[str]:  # the rows the search found (it goes through the library)
            return [display_title(info) for info in browser(app).rows.infos.values()]

        await wait_for(pilot, lambda: shown() == ["the edge case"])


async def test_without_the_capability_the_filter_is_not_sent(
    make_app: Callable[..., AcpApp], places: tuple[Path, Path]
) -> None:
    lib, _ = places
    app = make_app("--capabilities", "list,load,resume")
    await seed_roots(app.launch, {"plain one": ()})
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        dialog = await open_filter_dialog(pilot, app)
        assert dialog.supported  # a filter, not a session: the dialog always lets you choose
        n = len(calls(sent, "session/list"))
        await pilot.press(*str(lib), "enter")
        await pilot.click("#roots-ok")
        await listed_again(pilot, app, sent, n)
        assert "additionalDirectories" not in calls(sent, "session/list")[-1]
        assert browser(app).lister.additional_directories == (lib,)
        assert row_titles(app) == []  # still filtered, on the client's side
