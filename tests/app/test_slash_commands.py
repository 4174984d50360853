"""acp-tui's own slash commands, typed in the real prompt against the demo agent: completed
beside the agent's, the agent's winning a shared name (``//name`` reaches ours), each doing
what its key does."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Select

from acp_tui.client.session.transcript import MessageEntry, NoticeEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.export import ExportDialog
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.app.helpers import wait_for, wait_for_screen

SIZE = (140, 44)

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


async def ready(pilot: Pilot[int], app: AcpApp) -> PromptInput:
    await wait_for(pilot, lambda: app.session is not None and bool(app.session.transcript.commands))
    return app.chat.current_pane.prompt


async def send(pilot: Pilot[int], text: str) -> None:
    await pilot.press(*text)
    if pilot.app.chat.current_pane.prompt.completion_list.is_open:  # type: ignore[attr-defined]
        await pilot.press("escape")  # a completion would take the Enter
    await pilot.press("enter")


def notices(app: AcpApp) -> list[str]:
    assert app.slot is not None
    return [e.text for e in app.slot.transcript.entries if isinstance(e, NoticeEntry)]


def user_texts(app: AcpApp) -> list[str]:
    assert app.session is not None
    entries = app.session.transcript.entries
    return [e.text for e in entries if isinstance(e, MessageEntry) and e.role == "user"]


def agent_text(app: AcpApp) -> str:
    assert app.session is not None
    entries = app.session.transcript.entries
    return "\n".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")


async def test_slash_lists_the_agents_commands_then_ours_marked(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press("/")
        shown = [str(choice.label) for choice in prompt.completion_list.choices]
        firsts = [label.split(" ")[0] for label in shown]
        assert firsts[:4] == ["/help", "/plan", "/diff", "/terminal"]
        assert "/model" in firsts
        assert "//help" in firsts  # the demo agent's /help wins: ours is //help
        assert "/help" not in firsts[4:]
        ours = [label for label in shown[4:]]
        assert all(label.endswith("acp-tui") for label in ours), ours
        assert not any(label.endswith("acp-tui") for label in shown[:4])
        await pilot.press("/")  # `//`: only ours
        shown = [str(choice.label) for choice in prompt.completion_list.choices]
        assert all(label.startswith("//") for label in shown)
        await pilot.press(*"mod", "tab")
        assert prompt.text == "//model "
        assert prompt.border_subtitle == "model"


async def test_help_of_the_agent_wins_and_double_slash_reaches_ours(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await send(pilot, "/help")
        await wait_for(pilot, lambda: "answers to these words" in agent_text(app))
        await send(pilot, "//help")
        await wait_for(pilot, lambda: any(n.startswith("Commands") for n in notices(app)))
        [text] = [n for n in notices(app) if n.startswith("Commands")]
        assert "  /plan ‹what to plan› — Make a plan and follow it" in text
        assert "  //help — " in text
        assert "  /model ‹model› — Choose the model" in text
        assert "!COMMAND" in text
        assert user_texts(app) == ["/help"]  # ours never reached the agent


async def test_new_opens_the_roots_dialog_as_ctrl_n_does(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await send(pilot, "/new")
        await wait_for_screen(pilot, RootsDialog)
        assert user_texts(app) == []


@PROTOCOLS
async def test_clear_opens_a_new_session_in_a_new_tab_and_keeps_the_old(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        first = app.slot
        await send(pilot, "/clear")
        ws = app.workspace
        assert ws is not None
        await wait_for(pilot, lambda: len(ws.slots) == 2 and ws.slots[1].state == "ready")
        assert ws.current is ws.slots[1]
        assert ws.slots[0] is first
        assert first is not None
        assert first.session is not None
        assert not first.session.closed
        assert ws.slots[1].session_id != first.session_id


@PROTOCOLS
async def test_fork_forks_the_session_into_a_new_tab(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await send(pilot, "remember this")
        await wait_for(pilot, lambda: "You said" in agent_text(app))
        first = app.slot
        await send(pilot, "/fork")
        ws = app.workspace
        assert ws is not None
        await wait_for(pilot, lambda: len(ws.slots) == 2 and ws.slots[1].state == "ready")
        assert first is not None
        assert ws.slots[1].session_id not in (None, first.session_id)


async def test_fork_says_why_not_when_the_agent_cannot(make_app: Callable[..., AcpApp]) -> None:
    app = make_app("--capabilities", "list,load,resume,close,delete,additionalDirectories")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await send(pilot, "/fork")
        await wait_for(pilot, lambda: bool(app._notifications))
        [toast] = list(app._notifications)
        assert toast.message.startswith("Cannot fork this session: ")
        assert app.workspace is not None
        assert len(app.workspace.slots) == 1


@PROTOCOLS
async def test_model_opens_the_picker_or_sets_the_model_named(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.session is not None
        transcript = app.session.transcript

        def current(config_id: str) -> object:
            return next(o.current_value for o in transcript.config_options if o.id == config_id)

        await send(pilot, "/model smart")
        await wait_for(pilot, lambda: current("model") == "demo-smart")
        await send(pilot, "/mode code")
        await wait_for(pilot, lambda: current("mode") == "code")
        bar = app.chat.current_pane.session_options
        assert bar is not None
        model = next(s for s in bar.query(Select).results(Select) if s.name == "config:model")
        await send(pilot, "/model")
        await wait_for(pilot, lambda: model.expanded and model.has_focus_within)
        await pilot.press("escape")
        assert user_texts(app) == []


async def test_export_theme_resume_and_an_unknown_double_slash(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        prompt = await ready(pilot, app)
        await send(pilot, "/export")
        await wait_for_screen(pilot, ExportDialog)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ExportDialog))
        await send(pilot, "/theme acp-paper")
        await wait_for(pilot, lambda: app.theme == "acp-paper")
        await send(pilot, "/theme")
        await wait_for_screen(pilot, CommandPalette)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
        await send(pilot, "/resume")
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.width != "hidden" and browser.rows.has_focus)
        prompt.focus()
        await send(pilot, "//nothing here")
        await wait_for(pilot, lambda: prompt.text == "//nothing here")
        assert user_texts(app) == []


async def test_quit_quits(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await send(pilot, "/quit")
        await wait_for(pilot, lambda: app._exit)
