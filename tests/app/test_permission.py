"""Permission prompts: exactly the agent's options, single-key answers, Esc cancels the turn;
answers only once the user can have seen the dialog; requests asked one at a time, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Static

from acp_tui.client.session.entries import MessageEntry, NoticeEntry
from acp_tui.client.session.question_queue import PermissionQueue
from acp_tui.protocol.client_methods import PermissionOption, RequestPermissionRequest
from acp_tui.protocol.tools import ToolCallUpdate
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialog_interaction import ask
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from tests.app.helpers import wait_for, wait_for_screen

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""Every permission test runs on ACP v1 and on the v2 draft."""


def agent_text(app: AcpApp) -> str:
    assert app.session is not None
    entries = app.session.transcript.entries
    return "\n".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")


async def answerable(pilot: Pilot[int]) -> PermissionDialog:
    """The permission dialog, once it takes answers (the keyboard was quiet long enough)."""
    dialog = await wait_for_screen(pilot, PermissionDialog)
    await wait_for(pilot, lambda: dialog.accepting)
    return dialog


async def start(pilot: Pilot[int], app: AcpApp, prompt: str) -> list[dict[str, Any]]:
    await wait_for(pilot, lambda: app.session is not None)
    assert app.client is not None
    sent: list[dict[str, Any]] = []
    app.client.connection.tracer = lambda d, m: sent.append(m) if d == "send" else None
    await pilot.press(*prompt, "enter")
    return sent


@PROTOCOLS
async def test_dialog_shows_the_agents_options_and_a_key_answers(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "permission")
        await answerable(pilot)
        dialog = app.screen
        assert isinstance(dialog, PermissionDialog)
        labels = [str(b.label) for b in dialog.query(Button)]
        names = [option.name for option in dialog.request.options]
        assert len(names) == 4
        assert [label.split("] ", 1)[1] for label in labels] == names
        assert any("[1/a]" in label for label in labels)
        await pilot.press("a")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.transcript.state == "idle"
        )
        assert "allow_once" in agent_text(app)
        answers = [m for m in sent if "result" in m and "outcome" in m["result"]]
        assert answers[0]["result"]["outcome"]["outcome"] == "selected"
        chosen = answers[0]["result"]["outcome"]["optionId"]
        assert chosen == dialog.request.options[0].option_id


@PROTOCOLS
async def test_a_request_without_options_is_answered_at_once_never_shown(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    """v1 allows an empty list: answered `cancelled`, and said in the transcript. v2's schema
    wants at least one option: the request is refused as invalid (-32602), as before."""
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "permission-none")

        def answered() -> list[dict[str, Any]]:
            return [m for m in sent if "error" in m or ("result" in m and "outcome" in m["result"])]

        await wait_for(pilot, lambda: bool(answered()))
        assert not isinstance(app.screen, PermissionDialog)  # never an empty dialog
        assert app.session is not None
        if protocol == 1:
            assert answered()[0]["result"]["outcome"] == {"outcome": "cancelled"}
            notes = [e.text for e in app.session.transcript.entries if isinstance(e, NoticeEntry)]
            assert any("offered no choices" in text for text in notes)
        else:
            assert answered()[0]["error"]["code"] == -32602


@PROTOCOLS
async def test_escape_in_the_dialog_cancels_the_turn(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "permission")
        await answerable(pilot)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.transcript.state == "idle"
        )
        assert app.session is not None
        assert app.session.transcript.stop_reason == "cancelled"
        assert any(m.get("method") == "session/cancel" for m in sent)
        answers = [m for m in sent if "result" in m and "outcome" in m["result"]]
        assert answers[0]["result"]["outcome"] == {"outcome": "cancelled"}
        assert any(
            isinstance(e, NoticeEntry) and e.text == "Cancelled."
            for e in app.session.transcript.entries
        )


@PROTOCOLS
async def test_escape_in_the_chat_cancels_a_running_turn(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "hang")
        await wait_for(pilot, lambda: app.session is not None and app.session.prompt_pending)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        assert app.session is not None
        assert app.session.transcript.stop_reason == "cancelled"
        assert any(m.get("method") == "session/cancel" for m in sent)


# -- the user's intent ------------------------------------------------------------------------


def answers_sent(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["result"]["outcome"] for m in sent if "outcome" in m.get("result", {})]


async def test_a_dialog_that_appears_while_typing_takes_no_answer(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Longer than the default, so that a loaded machine cannot end it while the test types.
    monkeypatch.setattr(PermissionDialog, "QUIET", 3.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "permission")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        # The user goes on typing "about" (its "a" would be allow_once), then Enter, Esc and
        # a click on the first option: none of it is an answer yet.
        await pilot.press(*"about", "enter", "escape")
        await pilot.click(dialog.query(Button).first())
        assert app.screen is dialog
        assert not answers_sent(sent)
        assert all(button.disabled for button in dialog.query(Button))
        assert app.focused is None  # every key reaches the dialog, which drops it
        note = dialog.query_one(".asking-quiet", Static)
        ignored = "7 keys typed before this appeared were ignored"  # the click is no key
        assert str(note.content).startswith(f"{ignored}; answer after 3 s without typing: ")
        await wait_for(pilot, lambda: dialog.accepting)
        assert str(note.content) == f"{ignored}."
        assert not any(button.disabled for button in dialog.query(Button))
        assert not isinstance(app.focused, Button)
        await pilot.press("enter")  # no button has the focus: Enter is not an answer either
        assert app.screen is dialog
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(answers_sent(sent)))
        assert answers_sent(sent) == [{"outcome": "selected", "optionId": "allow-once"}]


def permission_request() -> RequestPermissionRequest:
    return RequestPermissionRequest(
        session_id="s1",
        tool_call=ToolCallUpdate(tool_call_id="c1", title="Something"),
        options=[PermissionOption(option_id="allow", name="Allow", kind="allow_once")],
    )


def permissions(app: AcpApp) -> PermissionQueue:
    assert app.workspace is not None
    return app.workspace.questions.permissions


def dialogs(app: AcpApp) -> list[PermissionDialog]:
    return [s for s in app.screen_stack if isinstance(s, PermissionDialog)]


def title_of(dialog: PermissionDialog) -> str:
    return str(dialog.request.tool_call.title)


async def test_a_flood_of_requests_is_asked_one_at_a_time_in_order(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PermissionDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "permission-flood 50")
        expected = []
        for number in range(1, 51):
            dialog = await wait_for_screen(pilot, PermissionDialog)
            await wait_for(pilot, lambda number=number: permissions(app).pending == 51 - number)
            assert dialogs(app) == [dialog]
            assert title_of(dialog) == f"Request {number} of 50"
            waiting = dialog.query_one("#permission-waiting", Static)
            if number < 50:
                assert f"{50 - number} more question" in str(waiting.content)
            else:
                assert waiting.has_class("-none")
            key, option = ("a", "allow-once") if number % 2 else ("r", "reject-once")
            expected.append(f"{number}: {option}")
            await pilot.press(key)
            await wait_for(pilot, lambda dialog=dialog: app.screen is not dialog)
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        assert f"Answers in the order they came: {', '.join(expected)}." in agent_text(app)


async def test_an_agent_cancel_removes_a_queued_request(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PermissionDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "permission-flood 5 cancel 3")
        shown = []
        for _ in range(4):
            dialog = await wait_for_screen(pilot, PermissionDialog)
            shown.append(title_of(dialog))
            if len(shown) == 2:  # request 3 was withdrawn as request 1 was answered
                await wait_for(pilot, lambda: permissions(app).waiting == 2)
            await pilot.press("a")
            await wait_for(pilot, lambda dialog=dialog: app.screen is not dialog)
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        assert shown == [f"Request {n} of 5" for n in (1, 2, 4, 5)]
        assert "3: withdrawn" in agent_text(app)
        assert permissions(app).pending == 0


async def test_an_agent_cancel_closes_the_dialog_being_shown(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PermissionDialog, "QUIET", 0.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "permission-flood 3 cancel 2")
        await answerable(pilot)
        await pilot.press("a")  # the agent withdraws request 2 as it learns this answer

        def third_shown() -> bool:
            top = app.screen
            return isinstance(top, PermissionDialog) and title_of(top) == "Request 3 of 3"

        await wait_for(pilot, third_shown)
        last = app.screen
        assert isinstance(last, PermissionDialog)
        await wait_for(pilot, lambda: last.accepting)
        assert dialogs(app) == [last]
        await pilot.press("r")
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        assert "1: allow-once, 2: withdrawn, 3: reject-once" in agent_text(app)


async def test_a_withdrawn_dialog_under_another_screen_leaves_that_screen_alone(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        dialog = PermissionDialog(permission_request())
        task = asyncio.create_task(ask(app, dialog))
        await wait_for_screen(pilot, PermissionDialog)
        above = ConfirmDialog("Something else?")
        app.push_screen(above)
        await wait_for_screen(pilot, ConfirmDialog)
        task.cancel()
        await wait_for(pilot, task.done)
        assert app.screen is above  # not closed in the permission dialog's place
        app.pop_screen()
        await wait_for(pilot, lambda: not dialogs(app))
        assert app.screen is app.chat
