"""The agent's commands are asked about (``terminal = "ask"``): what runs, where, with which env."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Static

from acp_tui.client.session.entries import MessageEntry
from acp_tui.client.tools.terminal_gate import TerminalAnswer, TerminalAsk
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.terminal import ITEMS_SHOWN, TerminalDialog
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_fit import assert_all_on_screen

HOSTILE = "[@click=app.quit]x[/] \x1b]52;c;Zm9v\x07 \u202eevil"


def details_of(dialog: TerminalDialog) -> str:
    """The dialog's details as plain text, one line per row."""
    group = dialog.details()
    assert isinstance(group, Group)
    return "\n".join(row.plain for row in group.renderables if isinstance(row, Text))


def agent_text(app: AcpApp) -> str:
    assert app.session is not None
    entries = app.session.transcript.entries
    return "\n".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")


async def test_the_dialog_shows_the_command_and_allow_for_the_session_stops_asking(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"terminal", "enter")
        dialog = await wait_for_screen(pilot, TerminalDialog)
        details = details_of(dialog)
        assert "command: printf" in details
        assert "argument: hello from the demo agent" in details
        assert f"in: {app.launch.cwd}" in details
        await pilot.press("s")
        await wait_for(pilot, lambda: "printed:" in agent_text(app))
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        await pilot.press(*"terminal", "enter")
        await wait_for(pilot, lambda: agent_text(app).count("printed:") == 2)
        assert not isinstance(app.screen, TerminalDialog)


async def test_allowed_for_the_session_is_asked_again_when_the_agent_changes_the_env(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hostile agent's move: `printf` allowed for the session, then the same command line
    with ``HOME`` pointing elsewhere (a ``.gitconfig`` of its own, for git) is asked again."""
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"terminal", "enter")
        await wait_for_screen(pilot, TerminalDialog)
        await pilot.press("s")
        await wait_for(pilot, lambda: "printed:" in agent_text(app))
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        await pilot.press(*"terminal HOME=/tmp/evil-home", "enter")
        dialog = await wait_for_screen(pilot, TerminalDialog)
        assert "environment variable: HOME=/tmp/evil-home" in details_of(dialog)
        await pilot.press("d")
        await wait_for(pilot, lambda: "Refused to run 'printf'" in agent_text(app))
        assert agent_text(app).count("printed:") == 1
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        await pilot.press(*"terminal", "enter")  # the command line allowed: not asked
        await wait_for(pilot, lambda: agent_text(app).count("printed:") == 2)
        assert not isinstance(app.screen, TerminalDialog)


async def test_deny_answers_the_agent_with_an_error(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"terminal", "enter")
        await wait_for_screen(pilot, TerminalDialog)
        await pilot.press("d")
        await wait_for(pilot, lambda: "Refused to run 'printf'" in agent_text(app))
        assert "printed:" not in agent_text(app)


class Host(App[None]):
    def __init__(self, ask: TerminalAsk) -> None:
        super().__init__()
        self.ask = ask
        self.answers: list[TerminalAnswer | None] = []

    def compose(self) -> ComposeResult:
        yield Static("behind")

    def on_mount(self) -> None:
        self.push_screen(TerminalDialog(self.ask), callback=self.answers.append)


async def test_agent_strings_are_literal_and_long_lists_are_capped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(TerminalDialog, "QUIET", 3.0)
    ask = TerminalAsk(
        HOSTILE,
        tuple(f"arg{n}" for n in range(10_000)),
        HOSTILE,
        (("NAME", HOSTILE),),
        (("LD_PRELOAD", "/tmp/evil.so"),),
    )
    app = Host(ask)
    async with app.run_test(size=(120, 50)) as pilot:
        dialog = await wait_for_screen(pilot, TerminalDialog)
        assert all(b.disabled for b in dialog.query(Button))  # the quiet time
        await pilot.press("a")  # typed meanwhile: no answer
        details = details_of(dialog)
        assert "[@click=app.quit]x[/] ␛]52;c;Zm9v␇ ⟨U+202E⟩evil" in details
        assert "\x1b" not in details
        assert f"arg{ITEMS_SHOWN - 1}" in details
        assert f"arg{ITEMS_SHOWN}\n" not in details
        assert f"… {10_000 - ITEMS_SHOWN} more arguments" in details
        assert "NAME=[@click" in details
        assert "not passed on (unsafe): LD_PRELOAD" in details
        await wait_for(pilot, lambda: dialog.accepting)
        assert app.answers == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.answers == ["deny"])


async def test_a_long_env_scrolls_and_the_buttons_stay_on_an_80x24_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)
    env = tuple((f"VAR_{n}", "x" * 300) for n in range(200))
    ask = TerminalAsk("git", ("status",), "/work/project", (("HOME", "/tmp/evil"), *env))
    app = Host(ask)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await wait_for_screen(pilot, TerminalDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        assert "environment variable: HOME=/tmp/evil" in details_of(dialog)
        assert f"… {len(env) + 1 - ITEMS_SHOWN} more environment variables" in details_of(dialog)
        buttons = list(dialog.query(Button))
        assert_all_on_screen(dialog, buttons)
        assert [str(b.label) for b in buttons] == [  # the keys shown, not read as markup
            "[a] Allow once",
            "[s] Allow for the session (this directory and env only)",
            "[d] Deny",
        ]
        box = dialog.query_one("#terminal-box", VerticalScroll)
        assert box.max_scroll_y > 0  # the rest of the details is a scroll away
        await pilot.press("s")
        await wait_for(pilot, lambda: app.answers == ["session"])
