"""Everything fits 80x24: every choice of every dialog is on screen, the footer shows whole
keys only, and the wide session browser is wider than the narrow one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets._footer import FooterKey

from acp_tui.config.paths import get_paths
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.recent_roots import recent_roots_for_project
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.controls import RootsFilterDialog
from acp_tui.ui.browser.rows import RowState
from acp_tui.ui.dialogs.add_agent import AddAgentDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.widgets.footer import QuietFooter
from tests.app.dialog_host import DialogHost
from tests.app.helpers import wait_for, wait_for_screen
from tests.registry_helpers import fixture_archives, registry_json, write_file_registry

SIZE = (80, 24)


def on_screen(screen: Screen[Any], widget: Widget) -> bool:
    """Whether all of ``widget`` is drawn (inside its containers and the screen)."""
    geometry = screen.find_widget(widget)
    region = geometry.region
    return bool(region.area) and geometry.clip.contains_region(region)


def assert_all_on_screen(screen: Screen[Any], widgets: list[Widget]) -> None:
    assert widgets
    hidden = [w for w in widgets if not on_screen(screen, w)]
    assert not hidden, f"cut off at 80x24: {hidden}"


def footer_keys(app: AcpApp) -> tuple[list[Widget], Widget]:
    footer = app.chat.query_one(QuietFooter)
    keys = [w for w in footer.children if not w.has_class("-command-palette")]
    [palette] = [w for w in footer.children if w.has_class("-command-palette")]
    return keys, palette


async def test_the_footer_shows_whole_keys_and_nothing_at_its_right_edge(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)

        async def check() -> list[str]:
            await pilot.pause()
            keys, palette = footer_keys(app)
            assert palette.region.right == 80  # the palette key ends the line: no gap, no junk
            for key in keys:
                assert key.region.right < palette.region.x, key  # whole, and left of it
            return [str(getattr(key, "description", "")) for key in keys]

        shown = await check()
        assert {"Find", "Sessions", "New", "Quit"} <= set(shown)
        await pilot.press("ctrl+b")  # the browser has the most keys
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.has_focus_within)
        assert "Resume" in await check()
        await pilot.resize_terminal(120, 24)
        await pilot.pause()
        keys, palette = footer_keys(app)
        assert palette.region.right == 120
        assert len(keys) > len(await check_at(pilot, app, 80))


async def test_a_dialog_shows_its_own_keys_in_the_footer_not_the_chats(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+n")
        dialog = await wait_for_screen(pilot, RootsDialog)
        await wait_for(pilot, lambda: bool(dialog.query(QuietFooter)))
        footer = dialog.query_one(QuietFooter)
        await pilot.pause()
        shown = {str(getattr(key, "description", "")) for key in footer.children}
        assert "Cancel" in shown
        assert not shown & {"Find", "Sessions", "Export", "New"}  # the chat's
        assert footer.region.bottom == 24  # over the chat's footer


async def check_at(pilot: Pilot[Any], app: AcpApp, width: int) -> list[Widget]:
    await pilot.resize_terminal(width, 24)
    await pilot.pause()
    await pilot.pause()
    return footer_keys(app)[0]


async def test_the_wide_browser_is_wider_than_the_narrow_one_at_80_columns(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.width == "narrow" and browser.size.width > 0)
        narrow = browser.size.width
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: browser.width == "wide")
        await pilot.pause()
        assert browser.size.width > narrow
        # under 100 columns the wide browser would leave the chat less than 40: it takes the
        # whole screen while it has the focus, and its narrow width when the chat has it
        assert browser.outer_size.width == 80
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.chat.current_pane.prompt.has_focus)
        await pilot.pause()
        assert browser.size.width == narrow
        assert app.chat.current_pane.size.width == 80 - browser.outer_size.width
        for columns in (100, 120, 160):
            await pilot.resize_terminal(columns, 24)
            browser.rows.focus()
            await pilot.pause()
            await pilot.pause()
            assert browser.size.width > narrow
            assert app.chat.current_pane.size.width >= 40, columns


async def test_a_long_title_takes_at_most_two_rows_in_the_browser(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.width == "narrow" and browser.size.width > 0)
        title = "A very long session title, " * 8
        info = SessionInfo(session_id="s-long", cwd=str(app.launch.cwd), title=title)
        rows = browser.rows
        rows.show_rows([info], {"s-long": ["open", "chat"]}, RowState("end", "1 session(s)"))
        await pilot.pause()
        lines = rows.get_option("s-long").prompt
        assert isinstance(lines, Content)
        width = rows.scrollable_content_region.width - 2  # the option's padding
        title_line = lines.split("\n")[0]
        wrapped = title_line.wrap(width)
        assert len(wrapped) <= 2, [str(line) for line in wrapped]
        assert str(title_line).rstrip().endswith("[chat]")
        assert "…" in str(title_line)


async def test_the_status_line_ends_a_cut_title_with_an_ellipsis(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        pane = app.chat.current_pane
        await pilot.press(*"title The quick brown fox jumps over the lazy dog", "enter")
        await wait_for(pilot, lambda: "lazy dog" in pane.status_text())
        await pilot.pause()
        status = pane.query_one("#status", Static)
        text = status.render_line(0).text.rstrip()
        assert text.endswith("…"), text
        assert "lazy dog" not in text


async def test_the_permission_dialog_shows_all_four_options(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"permission", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        buttons = list(dialog.query(Button))
        assert len(buttons) == 4
        assert_all_on_screen(dialog, buttons)


async def test_the_permission_dialog_counting_down_shows_all_four_options(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note about dropped keys and the countdown (two lines at 80x24) hides no option."""
    monkeypatch.setattr(PermissionDialog, "QUIET", 30.0)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"permission", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await pilot.press(*"abc")
        note = dialog.query_one(".asking-quiet")
        await wait_for(pilot, lambda: note.size.height == 2)
        assert not dialog.accepting
        assert_all_on_screen(dialog, [*dialog.query(Button), note])


async def test_the_roots_dialog_shows_its_list_buttons_and_recent_roots(
    make_app: Callable[..., AcpApp], project: Path, tmp_path: Path
) -> None:
    recent = tmp_path / "recent"
    recent.mkdir()
    recent_roots_for_project(project, get_paths()).record([recent])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+n")
        dialog = await wait_for_screen(pilot, RootsDialog)
        recent_list = dialog.query_one("#roots-recent", OptionList)
        await wait_for(pilot, lambda: recent_list.option_count == 1)
        await pilot.pause()
        assert_all_on_screen(dialog, [*dialog.query(Button), recent_list])
        first = recent_list.get_option_at_index(0)
        assert first.id == str(recent)


async def test_the_roots_filter_shows_any_cancel_and_filter(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.has_focus_within)
        await pilot.press("e")
        dialog = await wait_for_screen(pilot, RootsFilterDialog)
        await wait_for(pilot, lambda: bool(dialog.query("#roots-any")))
        await pilot.pause()
        buttons = list(dialog.query(Button))
        assert {b.id for b in buttons} >= {"roots-any", "roots-cancel", "roots-ok"}
        assert_all_on_screen(dialog, buttons)


async def test_the_add_agent_dialog_shows_its_list_detail_and_buttons(tmp_path: Path) -> None:
    app = DialogHost(
        write_file_registry(tmp_path, registry_json("https://x.invalid", fixture_archives()))
    )
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_for_screen(pilot, AddAgentDialog)
        options = dialog.query_one("#add-list", OptionList)
        await wait_for(pilot, lambda: options.option_count > 0)
        await pilot.pause()
        detail = dialog.query_one("#add-detail")
        shown = [button for button in dialog.query(Button) if button.display]  # Retry: offline
        assert_all_on_screen(dialog, [*shown, options, detail])
        assert options.size.height >= 4
        assert detail.size.height >= 4


class FooterApp(App[None]):
    BINDINGS = [("f5", "alpha", "Alpha"), ("f6", "beta", "Beta")]

    def compose(self) -> ComposeResult:
        yield Input()
        yield QuietFooter()


async def test_changes_before_a_refresh_recompose_the_footer_once() -> None:
    """At startup the first width and two changes of keys came before one refresh, and each
    recomposed the same keys: three times per app start. They make one recompose now."""
    app = FooterApp()
    async with app.run_test(size=SIZE) as pilot:
        footer = app.query_one(QuietFooter)
        await wait_for(pilot, lambda: "Beta" in keys_text(footer))
        recomposes = 0
        recompose = footer.recompose

        async def counted() -> None:
            nonlocal recomposes
            recomposes += 1
            await recompose()

        footer.recompose = counted  # type: ignore[method-assign]

        def three_asks() -> None:  # on the footer's own queue, as its handlers run
            footer._shown = None  # as if the keys had changed
            footer.bindings_changed(app.screen)
            footer.recompose_soon()
            footer.recompose_soon()

        footer.call_later(three_asks)
        await wait_for(pilot, lambda: recomposes > 0 and "Beta" in keys_text(footer))
        for _ in range(3):
            await pilot.pause()
        assert recomposes == 1
        assert "Alpha" in keys_text(footer)


def keys_text(footer: QuietFooter) -> str:
    return " ".join(str(key.description) for key in footer.query(FooterKey))
