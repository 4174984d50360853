"""``!command`` and the config read again, through the real prompt and keys against the demo
agent: the command is asked about (``terminal = "ask"``), shown as a terminal block, attached
to the next prompt until taken off; ``/reload``, Ctrl+R and Ctrl+N read the config file again."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from acp_tui.client.session.transcript import MessageEntry, NoticeEntry, ToolCallEntry
from acp_tui.config.paths import Paths
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.agent_choice import AgentChoiceDialog
from acp_tui.ui.dialogs.terminal import TerminalDialog
from acp_tui.ui.widgets.context_bar import ContextBar
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_slash_commands import PROTOCOLS, SIZE, ready, send


def entries_of(app: AcpApp, kind: type[object]) -> list[object]:
    assert app.slot is not None
    return [e for e in app.slot.transcript.entries if isinstance(e, kind)]


def agent_text(app: AcpApp) -> str:
    return "\n".join(
        e.text
        for e in entries_of(app, MessageEntry)
        if isinstance(e, MessageEntry) and e.role == "agent"
    )


def notices(app: AcpApp) -> list[str]:
    return [e.text for e in entries_of(app, NoticeEntry) if isinstance(e, NoticeEntry)]


async def allow_once(pilot: Pilot[int]) -> str:
    """Answer "Allow once" to the command dialog; returns its title."""
    dialog = await wait_for_screen(pilot, TerminalDialog)
    title = str(dialog.query_one("#terminal-title").render())
    await wait_for(pilot, lambda: dialog.accepting)
    await pilot.press("a")
    return title


def write_config(paths: Paths, text: str) -> None:
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(text, encoding="utf-8")


@PROTOCOLS
async def test_a_bang_command_is_asked_shown_attached_and_can_be_taken_off(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=SIZE) as pilot:
        prompt = await ready(pilot, app)
        bar = app.chat.current_pane.query_one(ContextBar)
        assert not bar.has_class("-shown")
        await send(pilot, "!echo first-output")
        assert await allow_once(pilot) == "Run your ! command?"
        await wait_for(pilot, lambda: bar.has_class("-shown"))
        [block] = entries_of(app, ToolCallEntry)
        assert isinstance(block, ToolCallEntry)
        assert (block.title, block.status) == ("!echo first-output", "completed")
        assert bar.labels == ["!echo first-output · 1 lines · exit code 0"]
        assert prompt.has_focus
        await pilot.press("backspace")  # in the empty prompt: takes the attachment off
        await wait_for(pilot, lambda: not bar.has_class("-shown"))
        assert app.slot is not None
        assert app.slot.context == []

        await send(pilot, "!echo second-output")
        await allow_once(pilot)
        await wait_for(pilot, lambda: bar.labels == ["!echo second-output · 1 lines · exit code 0"])
        await send(pilot, "what did it print")
        slot = app.slot
        await wait_for(pilot, lambda: "You attached" in agent_text(app) and not slot.busy)
        assert "You attached acp-tui://shell/2:" in agent_text(app)
        assert "> second-output" in agent_text(app)
        assert "first-output" not in agent_text(app)
        await wait_for(pilot, lambda: not bar.has_class("-shown"))


async def test_reload_says_what_changed_and_applies_the_screens_settings(
    make_app: Callable[..., AcpApp], acp_home: Paths
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await send(pilot, "/reload")
        path = acp_home.config_file
        await wait_for(pilot, lambda: f"The config is unchanged: {path}" in notices(app))
        write_config(acp_home, 'theme = "acp-paper"\nshow_thoughts = false\n')
        await send(pilot, "/reload")
        await wait_for(pilot, lambda: any(n.startswith("Config read again") for n in notices(app)))
        [report] = [n for n in notices(app) if n.startswith("Config read again")]
        assert 'theme "textual-dark" → "acp-paper"' in report
        assert "show_thoughts true → false" in report
        assert app.theme == "acp-paper"
        view = app.chat.current_pane.transcript_view
        assert view is not None
        assert not view.show_thoughts


async def test_a_broken_config_keeps_the_running_one_and_names_the_file_and_key(
    make_app: Callable[..., AcpApp], acp_home: Paths
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        write_config(acp_home, 'terminal = "allow"\n')
        await send(pilot, "/reload")
        ws = app.workspace
        assert ws is not None
        await wait_for(pilot, lambda: ws.config.settings.terminal == "allow")
        write_config(acp_home, 'terminal = "sometimes"\n')
        await send(pilot, "/reload")
        key = f"{acp_home.config_file}: terminal: "
        await wait_for(pilot, lambda: any(key in n for n in notices(app)))
        toasts = [n for n in app._notifications if n.title == "Config file problems"]
        assert toasts
        assert key in toasts[-1].message
        assert ws.config.settings.terminal == "allow"
        assert app.slot is not None
        assert app.slot.agent.launch.settings.terminal == "allow"


async def test_ctrl_r_reads_the_config_before_it_restarts(
    make_app: Callable[..., AcpApp], acp_home: Paths
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        slot = app.slot
        assert slot is not None
        write_config(acp_home, 'terminal = "deny"\n')
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: slot.agent.connections == 2 and slot.state == "ready")
        assert slot.agent.launch.settings.terminal == "deny"
        await send(pilot, "!echo nope")
        await wait_for(pilot, lambda: any(n.startswith("Not run") for n in notices(app)))
        assert not isinstance(app.screen, TerminalDialog)


async def test_ctrl_n_reads_the_config_first_and_offers_an_agent_added_meanwhile(
    make_app: Callable[..., AcpApp], acp_home: Paths
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        write_config(acp_home, '[agents.added]\ncommand = "added-agent"\n')
        await pilot.press("ctrl+n")
        dialog = await wait_for_screen(pilot, AgentChoiceDialog)
        assert "added" in dialog.names
