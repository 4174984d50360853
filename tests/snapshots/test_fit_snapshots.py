"""SVG snapshots of every dialog, and the chat with its find bar, on an 80x24 terminal.

80x24 is the smallest terminal acp-tui is made for: each dialog must show all its choices
there (scrolling what must scroll), and the footer must stay readable. The fixed places and
helpers are those of the other snapshot modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.config.paths import get_paths
from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.store.recent_roots import recent_roots_for_project
from acp_tui.ui.browser.controls import RootsFilterDialog
from acp_tui.ui.dialogs.agent_choice import AgentChoiceDialog
from acp_tui.ui.dialogs.auth import AuthDialog
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from acp_tui.ui.dialogs.export import ExportDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.widgets.root_tree import PathInput, RootTree
from tests.app.dialog_host import DialogHost
from tests.registry_helpers import fixture_archives, registry_json, write_file_registry
from tests.snapshots.test_browser_snapshots import Place, build_app, fixed_place, open_browser
from tests.snapshots.test_chat_snapshots import (
    Compare,
    app_of,
    ready,
    settle,
    steady_prompt,
    turn,
    until,
)
from tests.snapshots.test_registry_snapshots import ARCHIVES, listed

SIZE = (80, 24)


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with fixed_place("fit", monkeypatch) as fixed:
        yield fixed


async def roots_tree_listed(pilot: Pilot[int]) -> RootsDialog:
    dialog = pilot.app.screen
    assert isinstance(dialog, RootsDialog)
    dialog.query_one(PathInput).cursor_blink = False
    tree = dialog.query_one(RootTree)
    await until(pilot, lambda: len(tree.root.children) == 3)  # docs, lib, project
    return dialog


def test_permission_dialog_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        await pilot.press(*"permission", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, PermissionDialog))
        await until(pilot, lambda: getattr(pilot.app.screen, "accepting", False))
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_auth_dialog_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, AuthDialog))
        await until(pilot, lambda: getattr(pilot.app.screen, "accepting", False))
        await steady_prompt(pilot)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo", "--require-auth")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_roots_dialog_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    recent_roots_for_project(place.project, get_paths()).record([place.docs, place.sub])

    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(pilot.app.screen, RootsDialog))
        dialog = await roots_tree_listed(pilot)
        await pilot.press(*str(place.lib), "enter")
        await until(pilot, lambda: dialog.entries == (str(place.lib),))
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_roots_filter_dialog_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await open_browser(1)(pilot)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(pilot.app.screen, RootsFilterDialog))
        await roots_tree_listed(pilot)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_unsupported_roots_dialog_80x24(
    snap_compare: Compare, place: Place, tmp_path: Path
) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, RootsDialog))
        dialog = pilot.app.screen
        await until(pilot, lambda: dialog.focused is not None)
        await steady_prompt(pilot)
        await settle(pilot)

    app = build_app(
        place,
        tmp_path / "demo",
        "--capabilities",
        "list,load,resume",
        additional=(place.lib, place.docs),
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_confirm_dialog_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await open_browser(1)(pilot)
        await pilot.press("d")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_export_dialog_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await turn("hello")(pilot)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, ExportDialog))
        pilot.app.screen.query_one(Input).cursor_blink = False
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_add_agent_dialog_80x24(snap_compare: Compare, place: Place) -> None:
    url = write_file_registry(place.root, registry_json(ARCHIVES, fixture_archives()))
    app = DialogHost(url)

    async def run(pilot: Pilot[None]) -> None:
        await listed(pilot)  # the first row: no scrolling to wait for

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_chat_find_bar_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await turn("markdown")(pilot)
        app = app_of(pilot)
        await pilot.press("ctrl+f", *"code")
        pane = app.chat.current_pane
        await until(pilot, lambda: pane.find_bar.total > 0)
        pane.find_bar.query_one(Input).cursor_blink = False
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_chat_code_block_selected_80x24(
    snap_compare: Compare, place: Place, tmp_path: Path
) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await turn("markdown")(pilot)
        app = app_of(pilot)
        await pilot.press("tab")  # from the prompt to the transcript
        view = app.chat.current_pane.transcript_view
        assert view is not None
        await until(pilot, lambda: view.has_focus and view.selected is not None)
        await pilot.press("down")  # from the whole reply to its code block
        await until(pilot, lambda: view.selected is not None and view.selected.code == 0)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


class AgentChoiceHost(App[None]):
    """The Ctrl+N agent choice over a plain screen, with more agents than a small terminal holds."""

    def on_mount(self) -> None:
        agents = {
            f"agent-{n:02d}": AgentConfig(
                command="npx", args=["-y", f"@example/agent-{n:02d}-acp"], title=f"Agent {n}"
            )
            for n in range(1, 25)
        }
        names = ["demo", *agents]
        self.push_screen(AgentChoiceDialog("demo", names, Settings(agents=agents)))


def test_agent_choice_dialog_80x24(snap_compare: Compare) -> None:
    async def run(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, AgentChoiceDialog))
        await pilot.press("end")  # the list scrolls: every agent can be reached
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(AgentChoiceHost(), terminal_size=SIZE, run_before=run)
