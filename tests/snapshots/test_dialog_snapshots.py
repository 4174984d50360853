"""SVG snapshots of the roots dialog, against the demo agent as a real subprocess, and of the
terminal dialog on its own.

The fixed places and the app come from test_browser_snapshots (the same rules: fixed paths and
ACP_TUI_HOME, no blinking cursor, predicates, one final settle). The export dialog is in
test_chat_snapshots; the delete confirmation and the browser's roots filter in
test_browser_snapshots.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.client.tools.terminal_gate import TerminalAsk
from acp_tui.config.paths import get_paths
from acp_tui.store.recent_roots import recent_roots_for_project
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.dialogs.terminal import TerminalDialog
from acp_tui.ui.widgets.root_tree import PathInput, RootTree
from tests.app.test_terminal_dialog import Host as TerminalHost
from tests.snapshots.test_browser_snapshots import Place, build_app, fixed_place
from tests.snapshots.test_chat_snapshots import Compare, ready, settle, steady_prompt, until

SIZE = (120, 44)
"""A roomy screen; the browser's roots filter shows the same dialog on a 36-row one."""


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with fixed_place("dialogs", monkeypatch) as fixed:
        yield fixed


def roots_dialog(pilot: Pilot[int]) -> RootsDialog:
    screen = pilot.app.screen
    assert isinstance(screen, RootsDialog)
    return screen


def test_roots_dialog_two_roots_and_an_overlap_note(
    snap_compare: Compare, place: Place, tmp_path: Path
) -> None:
    recent_roots_for_project(place.project, get_paths()).record([place.docs])
    app = build_app(place, tmp_path / "demo")

    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(pilot.app.screen, RootsDialog))
        dialog = roots_dialog(pilot)
        dialog.query_one(PathInput).cursor_blink = False
        tree = dialog.query_one(RootTree)
        await until(pilot, lambda: len(tree.root.children) == 3)  # docs, lib, project
        await pilot.press(*str(place.lib), "enter", *str(place.sub), "enter")
        await until(pilot, lambda: dialog.entries == (str(place.lib), str(place.sub)))
        notes = dialog.query_one("#roots-notes")
        await until(pilot, lambda: "order matters" in str(notes.render()))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_roots_dialog_when_the_agent_cannot_take_extra_roots(
    snap_compare: Compare, place: Place, tmp_path: Path
) -> None:
    app = build_app(
        place,
        tmp_path / "demo",
        "--capabilities",
        "list,load,resume",
        additional=(place.lib, place.docs),
    )

    async def run(pilot: Pilot[int]) -> None:
        await steady_prompt(pilot)  # under the dialog, its blink made the screenshot vary
        await until(pilot, lambda: isinstance(pilot.app.screen, RootsDialog))
        dialog = roots_dialog(pilot)
        assert not dialog.supported
        await until(pilot, lambda: dialog.focused is not None)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_terminal_dialog_with_a_long_env_on_80x24(
    snap_compare: Compare, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the details scroll: every answer stays on an 80x24 screen."""
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)
    env = tuple((f"VAR_{n}", f"value {n} " * 12) for n in range(40))
    ask = TerminalAsk(
        "git",
        ("status",),
        "/work/project",
        (("HOME", "/tmp/evil-home"), *env),
        (("BASH_ENV", "x"),),
    )
    app = TerminalHost(ask)

    async def run(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TerminalDialog))
        dialog = app.screen
        assert isinstance(dialog, TerminalDialog)
        await until(pilot, lambda: dialog.accepting)
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)
