"""Logins as real agents ask for them: at prompt time, in older shapes, cancelled, headless."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from acp_tui.client.agent.capabilities import AuthMethodInfo
from acp_tui.client.workspace.interaction import TerminalRun
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.auth import AuthDialog
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_app_auth_restart import choose_auth
from tests.app.test_app_smoke import screen_text
from tests.app.test_browser import seed

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


def answering_yes(ran: list[list[str]]) -> Callable[..., Any]:
    """A terminal runner that answers the demo agent's login prompt with "yes"."""

    async def run(argv: list[str], env: dict[str, str], cwd: Path) -> TerminalRun:
        ran.append(argv)
        result = await anyio.run_process(argv, input=b"yes\n", env=env, cwd=cwd, check=False)
        return TerminalRun(result.returncode, result.stdout.decode())

    return run


@PROTOCOLS
@pytest.mark.real_agent  # a terminal login restarts the agent's process
async def test_a_terminal_login_asked_for_at_prompt_time_runs_once_and_the_prompt_goes_out(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    """-32000 on the first session/prompt: log in from the terminal, reconnect, send it."""
    app = make_app("--require-auth", "--auth-on", "session/prompt", protocol=protocol)
    ran: list[list[str]] = []
    app.run_interactive = answering_yes(ran)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)  # session/new needs no login
        session_id = app.session.session_id if app.session else None
        await pilot.press(*"hello after login", "enter")
        await choose_auth(pilot, app, "Log in from the terminal")
        await wait_for(
            pilot,
            lambda: (
                app.slot is not None
                and app.slot.state == "ready"
                and not app.slot.busy
                and "hello after login" in screen_text(app)
                and "You said" in screen_text(app)
            ),
            seconds=30,
        )
        assert app.slot is not None
        assert len(ran) == 1  # once: the login is not lost by the restart (it looped before)
        assert ran[0][-1] == "--login"
        assert app.slot.agent.connections == 2
        assert app.session is not None
        assert app.session.session_id == session_id  # the same session, reopened
        agent = app.slot.agent
        assert agent.key is not None
        assert app.workspace is not None
        app.workspace.cache.flush(agent.key, session_id)
        kinds = [type(e).__name__ for e in app.workspace.cache.events(agent.key, session_id)]
        assert kinds.count("RecordedUser") == 1  # recorded once, though sent twice
        assert kinds.count("RecordedTurnEnd") == 1  # one turn: the refused send was none


@pytest.mark.real_agent  # a terminal login restarts the agent's process
async def test_a_login_offered_only_in_meta_runs_its_own_command(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    """kimi and copilot put the terminal login in ``_meta["terminal-auth"]``: its command."""
    app = make_app("--require-auth", "--auth-style", "meta")
    ran: list[list[str]] = []
    app.run_interactive = answering_yes(ran)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await choose_auth(pilot, app, "Terminal login (demo)")
        assert [m.terminal for m in dialog.methods] == [False, True]
        await wait_for(pilot, lambda: app.session is not None, seconds=30)
        assert ran[0][:3] == [sys.executable, "-m", "acp_tui.demo_agent"]
        assert ran[0][-1] == "--login"
        assert app.launch.command.argv[-1] != "--login"  # not the agent's own command line


@PROTOCOLS
async def test_methods_carried_in_the_error_data_are_offered(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app("--require-auth", "--auth-style", "error-data", protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await choose_auth(pilot, app, "Demo login")
        assert "Demo login" in [m.name for m in dialog.methods]
        await wait_for(pilot, lambda: app.session is not None)


@PROTOCOLS
async def test_a_login_that_never_answers_can_be_cancelled(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    """Esc sends $/cancel_request and returns to the dialog; typing goes on meanwhile."""
    app = make_app("--require-auth", "--fault", "login-hangs", protocol=protocol)
    sent: list[Any] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await choose_auth(pilot, app, "Demo login")
        await wait_for(pilot, lambda: "Esc cancels" in app.chat.status_text())
        assert not isinstance(app.screen, AuthDialog)  # nothing modal: the chat takes keys
        assert app.client is not None
        app.client.connection.tracer = lambda d, m: sent.append(m) if d == "send" else None
        await pilot.press(*"typing on")
        assert app.chat.current_pane.prompt.text == "typing on"
        await pilot.press("escape")
        dialog = await wait_for_screen(pilot, AuthDialog)
        assert "was cancelled" in dialog.reason
        assert any(m.get("method") == "$/cancel_request" for m in sent)
        await wait_for(pilot, lambda: dialog.accepting)
        await pilot.press("escape")  # and giving up the login entirely
        await wait_for(pilot, lambda: "login cancelled" in screen_text(app))


async def test_the_browser_logs_in_when_session_list_asks(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app("--require-auth", "--auth-on", "session/list")
    await seed(app, ["listed after a login"])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        await choose_auth(pilot, app, "Demo login")
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: len(browser.lister.rows) >= 2)


@pytest.mark.parametrize("replay", [True, False], ids=["load", "resume"])
async def test_reopening_a_session_logs_in_when_the_agent_asks(
    make_app: Callable[..., AcpApp], replay: bool
) -> None:
    method = "session/load" if replay else "session/resume"
    app = make_app("--require-auth", "--auth-on", method)
    [session_id] = await seed(app, ["reopened after a login"])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.workspace is not None
        assert app.slot is not None
        info = SessionInfo(session_id=session_id, cwd=str(app.launch.cwd))
        app.workspace.open_listed(app.slot.agent, info, replay=replay)
        await choose_auth(pilot, app, "Demo login")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.session_id == session_id
        )


def test_an_unknown_login_type_is_shown_and_cannot_be_run() -> None:
    methods = [
        AuthMethodInfo("device", "Device code", unknown_type="oauth_device"),
        AuthMethodInfo("agent", "Agent login"),
    ]

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            return iter(())

    async def scenario() -> None:
        app = Host()
        async with app.run_test() as pilot:
            app.push_screen(AuthDialog("agent", methods, "log in"))
            dialog = await wait_for_screen(pilot, AuthDialog)
            await wait_for(pilot, lambda: dialog.accepting)
            buttons = list(dialog.query(Button))
            assert buttons[0].disabled
            assert "cannot run it" in str(buttons[0].label)
            assert not buttons[1].disabled

    anyio.run(scenario)


def test_headless_commands_log_in_with_auth_and_say_how_without(
    demo_agent_argv: list[str], tmp_path: Path
) -> None:
    agent = [*demo_agent_argv, "--require-auth"]
    base = [sys.executable, "-m", "acp_tui", "sessions", "list", "--all"]
    without = subprocess.run(
        [*base, "--", *agent], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert without.returncode == 1
    [line] = without.stderr.strip().splitlines()
    assert "--auth METHOD_ID" in line
    assert "demo-login" in line
    with_auth = subprocess.run(
        [*base, "--auth", "demo-login", "--", *agent],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert with_auth.returncode == 0, with_auth.stderr
    terminal = subprocess.run(
        [*base, "--auth", "demo-terminal-login", "--", *agent],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert terminal.returncode == 1
    assert "in a terminal" in terminal.stderr


ENV_KEY = "ACP_TUI_TEST_APP_KEY"


@PROTOCOLS
async def test_an_env_var_login_says_what_it_reads_asks_masked_and_logs_in(
    make_app: Callable[..., AcpApp], protocol: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """codex's ``openai-api-key``: the dialog says which variable the agent reads, asks for
    the value in a masked input, and the agent starts again with it and logs in."""
    from textual.widgets import Input

    from acp_tui.ui.dialogs.env_login import EnvLoginDialog

    monkeypatch.delenv(ENV_KEY, raising=False)
    app = make_app("--require-auth", "--auth-env", ENV_KEY, protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        auth = await wait_for_screen(pilot, AuthDialog)
        await wait_for(pilot, lambda: auth.accepting)
        said = " ".join(str(s.render()) for s in auth.query(Static))
        assert f"reads {ENV_KEY} from its environment" in said
        await choose_auth(pilot, app, f"Use {ENV_KEY}")
        env = await wait_for_screen(pilot, EnvLoginDialog)
        field = env.query_one(Input)
        assert field.password  # a secret: never shown
        await pilot.press(*"sk-app-secret", "enter")
        await wait_for(
            pilot, lambda: app.session is not None and app.slot is not None and app.slot.live
        )
        assert app.slot is not None
        agent = app.slot.agent
        assert agent.connections == 2  # started again with the value
        assert agent.login_env == {ENV_KEY: "sk-app-secret"}
        sent = [str(r.decoded()) for r in agent.wire.records]
        assert not any("sk-app-secret" in line for line in sent)
        assert any("demo-api-key" in line for line in sent)
