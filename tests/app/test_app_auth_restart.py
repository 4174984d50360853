"""Logging in (agent and terminal methods), and surviving an agent crash mid-turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from textual.app import SystemCommand
from textual.pilot import Pilot
from textual.widgets import Button

from acp_tui.client.session.entries import MessageEntry, NoticeEntry
from acp_tui.client.workspace.interaction import TerminalRun
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.auth import AuthDialog
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.session_options import SessionOptions
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_app_smoke import screen_text
from tests.unit.client.agent.agent_helpers import record_wire

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""The representative login and restart tests run on ACP v1 and on the v2 draft."""


def notices(app: AcpApp) -> str:
    assert app.session is not None
    return "\n".join(e.text for e in app.session.transcript.entries if isinstance(e, NoticeEntry))


async def choose_auth(pilot: Pilot[int], app: AcpApp, label: str) -> AuthDialog:
    def buttons() -> list[Button]:  # the dialog is pushed before its buttons are composed
        screen = app.screen
        if not isinstance(screen, AuthDialog) or not screen.accepting:
            return []
        return [b for b in screen.query(Button) if str(b.label).startswith(label)]

    await wait_for(pilot, lambda: bool(buttons()))
    buttons()[0].press()
    dialog = app.screen
    assert isinstance(dialog, AuthDialog)
    return dialog


@PROTOCOLS
async def test_agent_login_then_session_opens(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch, protocol: int
) -> None:
    wire = record_wire(monkeypatch)
    app = make_app("--require-auth", protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await choose_auth(pilot, app, "Demo login")
        names = [m.name for m in dialog.methods]
        assert names == ["Demo login", "Log in from the terminal"]
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session.transcript.state == "idle"
                and len(app.session.transcript.entries) >= 2
            ),
        )
    login, other = (
        ("authenticate", "auth/login") if protocol == 1 else ("auth/login", "authenticate")
    )
    assert wire.sent_params(login) == [{"methodId": "demo-login"}]
    assert not wire.sent_params(other)


async def settled_bar(pilot: Pilot[int], app: AcpApp) -> None:
    """Wait until the options bar has composed its pickers (leaving earlier races its mount)."""
    bar = app.chat.current_pane.query_one(SessionOptions)
    await wait_for(pilot, lambda: bool(bar.pickers) and not bar._rebuilding)
    await pilot.pause()


@PROTOCOLS
@pytest.mark.real_agent  # a terminal login restarts the agent's process
async def test_terminal_login_runs_the_agent_command_then_reconnects(
    make_app: Callable[..., AcpApp], tmp_path: Path, protocol: int
) -> None:
    app = make_app("--require-auth", protocol=protocol)
    ran: list[tuple[list[str], dict[str, str]]] = []

    async def answer_yes(argv: list[str], env: dict[str, str], cwd: Path) -> int:
        ran.append((argv, env))
        result = await anyio.run_process(argv, input=b"yes\n", env=env, cwd=cwd, check=False)
        return result.returncode

    app.run_interactive = answer_yes
    async with app.run_test(size=(120, 40)) as pilot:
        await choose_auth(pilot, app, "Log in from the terminal")
        await wait_for(pilot, lambda: app.session is not None, seconds=30)
        [(argv, env)] = ran
        assert argv[: len(app.launch.command.argv)] == list(app.launch.command.argv)
        assert argv[-1] == "--login"
        assert env["ACP_TUI_DEMO_LOGIN"] == "1"
        assert not isinstance(app.screen, AuthDialog)
        await settled_bar(pilot, app)


async def test_cancelled_login_is_reported(make_app: Callable[..., AcpApp]) -> None:
    app = make_app("--require-auth")
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await wait_for_screen(pilot, AuthDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "could not open a session" in app.chat.agent_status)
        assert app.session is None
        await wait_for(pilot, lambda: "login cancelled" in screen_text(app))


@pytest.mark.real_agent  # a terminal login restarts the agent's process
async def test_a_failed_terminal_login_says_why_and_asks_again(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app("--require-auth")

    async def refuse(argv: list[str], env: dict[str, str], cwd: Path) -> TerminalRun:
        result = await anyio.run_process(argv, input=b"no\n", env=env, cwd=cwd, check=False)
        return TerminalRun(result.returncode, result.stdout.decode())

    app.run_interactive = refuse
    async with app.run_test(size=(120, 40)) as pilot:
        await choose_auth(pilot, app, "Log in from the terminal")
        await wait_for(pilot, lambda: "did not succeed (exit code 1)" in screen_text(app))
        assert "Not logged in." in screen_text(app)  # what the login printed
        await wait_for_screen(pilot, AuthDialog)  # the agent started anyway: asked again
        assert app.check_action("restart_agent", ()) is True


@PROTOCOLS
@pytest.mark.real_agent  # the process exits (code 3), then a restart starts another
async def test_crash_mid_turn_keeps_transcript_and_draft_then_restart_resumes(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch, protocol: int
) -> None:
    wire = record_wire(monkeypatch)
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        session_id = app.session.session_id
        await pilot.press(*"hello", "enter")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session.transcript.state == "idle"
                and any(
                    isinstance(e, MessageEntry) and e.role == "agent"
                    for e in app.session.transcript.entries
                )
            ),
        )
        await pilot.press(*"crash", "enter")
        prompt = app.chat.current_pane.query_one(PromptInput)
        await wait_for(pilot, lambda: "exited" in app.chat.agent_status)
        prompt.insert("my unsent draft")
        text = notices(app)
        assert "code 3" in text
        assert "crashing on purpose" in text  # the stderr tail
        assert "Ctrl+R" in text
        before = len(app.session.transcript.entries)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "Reconnected" in notices(app))
        assert app.session.session_id == session_id
        assert len(app.session.transcript.entries) > before  # the old transcript was kept
        assert prompt.text == "my unsent draft"
        prompt.clear()
        await pilot.press(*"again", "enter")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session.transcript.state == "idle"
                and "again"
                in [e.text for e in app.session.transcript.entries if isinstance(e, MessageEntry)]
            ),
        )
    # The restart reattached without replay (the transcript is kept): no session/load on v2.
    [resume] = wire.sent_params("session/resume")
    assert resume["sessionId"] == session_id
    assert "replayFrom" not in resume
    assert not wire.sent_params("session/load")


def palette_command(app: AcpApp, prefix: str) -> SystemCommand | None:
    found = [c for c in app.get_system_commands(app.screen) if c.title.startswith(prefix)]
    return found[0] if found else None


@PROTOCOLS
async def test_logout_from_the_palette_then_the_next_prompt_logs_in_again(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch, protocol: int
) -> None:
    """Log out (v1 `logout`, v2 `auth/logout`); the next call that needs it asks again."""
    wire = record_wire(monkeypatch)
    app = make_app("--require-auth", "--auth-on", "session/prompt", protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"first", "enter")
        await choose_auth(pilot, app, "Demo login")
        await wait_for(pilot, lambda: "You said" in screen_text(app))
        command = palette_command(app, "Log out of")
        assert command is not None
        assert command.title == "Log out of acp-tui demo agent"
        command.callback()
        await wait_for(pilot, lambda: "Logged out of" in screen_text(app))
        await pilot.press(*"second", "enter")
        await choose_auth(pilot, app, "Demo login")
        await wait_for(
            pilot,
            lambda: (
                screen_text(app).count("You said") == 2
                and app.slot is not None
                and not app.slot.busy
            ),
        )
    logout = "logout" if protocol == 1 else "auth/logout"
    login = "authenticate" if protocol == 1 else "auth/login"
    assert wire.sent_params(logout) == [{}]
    assert len(wire.sent_params(login)) == 2
    # The order on the wire: the login, the logout, then the second login.
    methods = [m for m in wire.sent_methods() if m in (logout, login)]
    assert methods == [login, logout, login]


async def test_no_logout_command_for_an_agent_that_cannot_log_out(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()  # the demo agent without --require-auth advertises no auth.logout
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert palette_command(app, "Log out of") is None
