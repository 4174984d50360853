"""Elicitation dialogs against the demo agent: a form with every kind of field (filled in,
refused while a required field is empty, declined, cancelled), a URL (opened or copied only on a
key press, never a URL that is not http(s), closed by the agent's completion), a question before
any session (during the login), questions the agent withdraws, and a flood asked in order."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from acp_tui.client.safe_text import sanitize
from acp_tui.client.session.elicitation import Answer, Elicitation, check_request
from acp_tui.client.session.entries import MessageEntry
from acp_tui.demo_agent.asking import ASK_SCHEMA, SLOW_DEFAULT, URL
from acp_tui.demo_agent.hostile import HOSTILE_TEXTS, poison
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs import elicitation_url
from acp_tui.ui.dialogs.elicitation import ElicitationDialog
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlDialog
from acp_tui.ui.widgets.form_fields import FieldRow
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_app_auth_restart import choose_auth
from tests.app.test_hostile_text import assert_shown_safely
from tests.app.test_hostile_text import screenshots as screenshots  # a fixture

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])

D = Callable[[], Any]

BACKSLASH_LINK = "https://evil.example\\@accounts.google.com/login"


@pytest.fixture(autouse=True)
def no_quiet_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dialogs take answers at once (the quiet time has its own test)."""
    monkeypatch.setattr(ElicitationDialog, "QUIET", 0.0)


def agent_text(app: AcpApp) -> str:
    assert app.session is not None
    entries = app.session.transcript.entries
    return "\n".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")


async def start(pilot: Pilot[int], app: AcpApp, prompt: str) -> list[dict[str, Any]]:
    """Send ``prompt``; returns the list the client's sent messages are recorded in."""
    await wait_for(pilot, lambda: app.session is not None)
    assert app.client is not None
    sent: list[dict[str, Any]] = []
    app.client.connection.tracer = lambda d, m: sent.append(m) if d == "send" else None
    await pilot.press(*prompt, "enter")
    return sent


def answers(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["result"] for m in sent if "action" in m.get("result", {})]


async def turn_over(pilot: Pilot[int], app: AcpApp) -> None:
    await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)


def dialog_text(dialog: ElicitationDialog) -> str:
    """Everything the dialog's text lines show."""
    return "\n".join(str(s.content) for s in dialog.query(Static))


def row(dialog: ElicitationFormDialog, name: str) -> FieldRow:
    return next(r for r in dialog.query(FieldRow) if r.field.name == name)


async def form(pilot: Pilot[Any]) -> ElicitationFormDialog:
    dialog = await wait_for_screen(pilot, ElicitationFormDialog)
    await wait_for(pilot, lambda: dialog.accepting and bool(dialog.query(FieldRow)))
    return dialog


# -- the form --------------------------------------------------------------------------------


@PROTOCOLS
async def test_the_form_shows_the_question_and_sends_what_the_user_entered(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "ask")
        dialog = await form(pilot)
        shown = dialog_text(dialog)
        assert "acp-tui demo agent asks" in shown
        assert "For the tool call “Ask about the project”." in shown
        assert "Before I set up the project, tell me a little about it." in shown
        rows = list(dialog.query(FieldRow))
        assert [r.field.name for r in rows][:3] == ["name", "email", "homepage"]
        assert "Project name *" in shown
        assert "What the project is called." in shown
        kinds = {type(r.control) for r in rows}
        assert kinds == {Input, Checkbox, Select, SelectionList}
        assert row(dialog, "name").value == "demo"  # defaults filled in
        assert row(dialog, "ci").value is True
        assert row(dialog, "platforms").value == ("linux",)
        assert not isinstance(app.focused, Input | Button)  # a stray key answers nothing
        row(dialog, "email").control.focus()
        await pilot.press(*"ana@example.com", "tab")
        select = row(dialog, "license").control
        assert isinstance(select, Select)
        select.value = "Apache-2.0"
        row(dialog, "retries").control.focus()
        await pilot.press(*"3")
        await pilot.press("ctrl+s")
        await turn_over(pilot, app)
        (answer,) = answers(sent)
        assert answer["action"] == "accept"
        assert answer["content"]["email"] == "ana@example.com"
        assert answer["content"]["license"] == "Apache-2.0"
        assert answer["content"]["retries"] == 3
        assert '"email": "ana@example.com"' in agent_text(app)


async def test_a_required_field_left_empty_is_not_sent(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = await start(pilot, app, "ask")
        dialog = await form(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: row(dialog, "email").error is not None)
        assert app.screen is dialog
        assert row(dialog, "email").error == "required"
        assert row(dialog, "license").error == "choose one"
        assert row(dialog, "name").error is None
        problem = dialog.query_one("#elicit-problem", Static)
        assert str(problem.content) == "2 fields to fix first."
        assert app.focused is row(dialog, "email").control
        await pilot.press(*"not-an-email", "tab")  # leaving the field checks it
        await wait_for(pilot, lambda: row(dialog, "email").error == "not an email address")
        assert answers(sent) == []
        await pilot.press("escape")
        await turn_over(pilot, app)
        assert answers(sent) == [{"action": "cancel"}]


async def test_the_count_of_fields_to_fix_follows_the_fields_fixed(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot, app, "ask")
        dialog = await form(pilot)
        await pilot.press("ctrl+s")
        problem = dialog.query_one("#elicit-problem", Static)
        await wait_for(pilot, lambda: str(problem.content) == "2 fields to fix first.")
        row(dialog, "email").control.focus()
        await pilot.press(*"ana@example.com", "tab")
        await wait_for(pilot, lambda: str(problem.content) == "1 field to fix first.")
        select = row(dialog, "license").control
        assert isinstance(select, Select)
        select.value = "MIT"
        await wait_for(pilot, lambda: problem.has_class("-none"))


@PROTOCOLS
async def test_a_pattern_made_to_backtrack_does_not_hold_the_form(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    """The agent's pattern would take a minute on the default: it is given up on in a fraction
    of a second, off the event loop, and the default goes (the agent checks what it gets)."""
    app = make_app(protocol=protocol)
    async with app.run_test(size=(100, 30)) as pilot:
        sent = await start(pilot, app, "ask-slow")
        await form(pilot)
        await pilot.press("ctrl+s")
        await turn_over(pilot, app)
        (answer,) = answers(sent)
        assert answer == {"action": "accept", "content": {"code": SLOW_DEFAULT}}


@PROTOCOLS
async def test_decline(make_app: Callable[..., AcpApp], protocol: int) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "ask")
        dialog = await form(pilot)
        dialog.query_one("#elicit-decline", Button).press()
        await turn_over(pilot, app)
        assert answers(sent) == [{"action": "decline"}]
        assert "You declined." in agent_text(app)


async def test_the_quiet_time_takes_no_answer(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ElicitationDialog, "QUIET", 3.0)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "ask")
        dialog = await wait_for_screen(pilot, ElicitationFormDialog)
        await pilot.press(*"typing on", "enter", "ctrl+s", "escape")
        assert app.screen is dialog
        assert all(b.disabled for b in dialog.query(Button))
        await wait_for(pilot, lambda: dialog.accepting)
        assert answers(sent) == []
        await pilot.press("escape")
        await turn_over(pilot, app)
        assert answers(sent) == [{"action": "cancel"}]


# -- URL mode ----------------------------------------------------------------------------------


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs the dialog asked the browser to open (none really is)."""
    urls: list[str] = []

    async def fake_open(app: App[int], url: str) -> str | None:
        urls.append(url)
        return None

    monkeypatch.setattr(elicitation_url, "open_in_browser", fake_open)
    return urls


async def url_dialog(pilot: Pilot[Any]) -> ElicitationUrlDialog:
    dialog = await wait_for_screen(pilot, ElicitationUrlDialog)
    await wait_for(pilot, lambda: dialog.accepting)
    return dialog


@PROTOCOLS
async def test_a_url_opens_only_on_the_users_key_and_done_accepts(
    make_app: Callable[..., AcpApp], protocol: int, opened: list[str]
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(80, 24)) as pilot:
        sent = await start(pilot, app, "ask-url never")
        dialog = await url_dialog(pilot)
        text = dialog_text(dialog)
        assert "Host: agentclientprotocol.com" in text
        assert "https://agentclientprotocol.com/protocol/v1/elicitation" in text
        assert opened == []
        done = dialog.query_one("#elicit-done", Button)
        assert done.disabled  # nothing to be done with yet
        await pilot.press("enter")  # no button has the focus: Enter opens nothing
        assert opened == []
        await pilot.press("o")
        await wait_for(pilot, lambda: not done.disabled)
        assert opened == ["https://agentclientprotocol.com/protocol/v1/elicitation"]
        done.press()
        await turn_over(pilot, app)
        assert answers(sent) == [{"action": "accept"}]
        assert "You are done at the page" in agent_text(app)


async def test_a_url_that_is_not_http_is_shown_never_opened_and_may_be_copied(
    make_app: Callable[..., AcpApp], opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(80, 24)) as pilot:
        sent = await start(pilot, app, "ask-url never file:///etc/passwd")
        dialog = await url_dialog(pilot)
        text = dialog_text(dialog)
        assert "file:///etc/passwd" in text
        assert "cannot be opened from here: it is not an http or https URL" in text
        assert dialog.query_one("#elicit-open", Button).disabled
        await pilot.press("o")
        await pilot.pause()
        assert opened == []
        await pilot.press("c")
        await wait_for(pilot, lambda: copied == ["file:///etc/passwd"])
        await pilot.press("d")
        await turn_over(pilot, app)
        assert opened == []
        assert answers(sent) == [{"action": "decline"}]


async def test_a_backslash_link_shows_the_host_the_browser_would_open_and_is_not_opened(
    make_app: Callable[..., AcpApp], opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Browsers read ``\\`` as ``/`` in an http(s) URL: this link leads to evil.example."""
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(80, 24)) as pilot:
        sent = await start(pilot, app, f"ask-url never {BACKSLASH_LINK}")
        dialog = await url_dialog(pilot)
        text = dialog_text(dialog)
        assert "Host: evil.example" in text
        assert "Host: accounts.google.com" not in text
        assert "backslash" in text
        assert dialog.query_one(".elicit-host").has_class("-disguised")  # in the error colour
        assert dialog.query_one("#elicit-open", Button).disabled
        assert dialog.query_one("#elicit-copy", Button).disabled
        await pilot.press("o", "c")
        await pilot.pause()
        assert opened == []
        assert copied == []
        await pilot.press("d")
        await turn_over(pilot, app)
        assert answers(sent) == [{"action": "decline"}]


@PROTOCOLS
async def test_the_agents_completion_closes_the_url_dialog(
    make_app: Callable[..., AcpApp], protocol: int, opened: list[str]
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(80, 24)) as pilot:
        sent = await start(pilot, app, "ask-url 2")
        dialog = await url_dialog(pilot)
        await wait_for(pilot, lambda: app.screen is not dialog)
        await turn_over(pilot, app)
        assert answers(sent) == [{"action": "accept"}]
        assert opened == []


# -- before any session --------------------------------------------------------------------------


@PROTOCOLS
async def test_a_question_during_the_login_comes_before_any_session(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app("--require-auth", "--auth-elicit", protocol=protocol)
    async with app.run_test(size=(80, 24)) as pilot:
        await choose_auth(pilot, app, "Demo login")
        dialog = await form(pilot)
        assert app.session is None
        method = "authenticate" if protocol == 1 else "auth/login"
        assert f"Asked before any session while acp-tui waits for {method}." in dialog_text(dialog)
        assert [r.field.name for r in dialog.query(FieldRow)] == ["account", "remember"]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.session is not None)


# -- withdrawn and flooded -------------------------------------------------------------------


def message_of(dialog: ElicitationDialog) -> str:
    return dialog.elicitation.message


async def test_the_agents_cancel_closes_the_dialog_being_shown(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await start(pilot, app, "ask-flood 3 cancel 2")
        await form(pilot)
        await pilot.press("ctrl+s")  # the agent withdraws question 2 as it learns this answer

        def third() -> bool:
            top = app.screen
            return isinstance(top, ElicitationFormDialog) and message_of(top) == "Question 3 of 3"

        await wait_for(pilot, third)
        assert [s for s in app.screen_stack if isinstance(s, ElicitationDialog)] == [app.screen]
        await form(pilot)
        await pilot.press("escape")
        await turn_over(pilot, app)
        assert "1: accept, 2: withdrawn, 3: cancel." in agent_text(app)


FLOOD = 20
"""Questions the app test floods: each dialog takes about a third of a second through Pilot
(40 took 13 s), so 1,000 would take minutes; the client's own test
(tests/unit/client/session/test_client_elicitation.py) asks 1,000 through the client and the
question queue (half a second)."""


async def test_a_flood_is_asked_one_at_a_time_in_order(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        started = time.monotonic()
        await start(pilot, app, f"ask-flood {FLOOD}")
        expected = []
        for number in range(1, FLOOD + 1):
            dialog = await form(pilot)
            assert message_of(dialog) == f"Question {number} of {FLOOD}"
            assert [s for s in app.screen_stack if isinstance(s, ElicitationDialog)] == [dialog]
            waiting = dialog.query_one(".elicit-waiting", Static)
            if number < FLOOD:
                more = f"{FLOOD - number} more question"
                await wait_for(pilot, lambda w=waiting, m=more: m in str(w.content))
            key, action = ("ctrl+s", "accept") if number % 2 else ("escape", "cancel")
            expected.append(f"{number}: {action}")
            await pilot.press(key)
            await wait_for(pilot, lambda dialog=dialog: app.screen is not dialog)
        await turn_over(pilot, app)
        print(f"{FLOOD} elicitations through the app: {time.monotonic() - started:.1f} s")
        assert f"Answers in the order they came: {', '.join(expected)}." in agent_text(app)


# -- bad input: a schema the client does not know ------------------------------------------------


class OneDialog(App[None]):
    """A bare app showing one form dialog; keeps its answer."""

    def __init__(self, elicitation: Elicitation) -> None:
        super().__init__()
        self.elicitation = elicitation
        self.answer: Answer | None = None

    def compose(self) -> ComposeResult:
        yield Static("behind")

    def on_mount(self) -> None:
        self.push_screen(ElicitationFormDialog(self.elicitation, "odd agent"), self.answered)

    def answered(self, answer: Answer | None) -> None:
        self.answer = answer


async def test_unknown_field_types_are_text_inputs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "colour": {"type": "_color", "title": "[b]Colour[/b]", "description": "\x1b[31mred"},
            "nested": {"type": "object"},
            "junk": 7,
            "count": {"type": "integer", "minimum": "zero"},
        },
        "required": ["colour"],
    }
    request, parsed = check_request(
        {
            "mode": "form",
            "message": "[@click=app.quit]odd",
            "requestId": 3,
            "requestedSchema": schema,
        }
    )
    app = OneDialog(Elicitation(request, form=parsed))
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await form(pilot)
        rows = {r.field.name: r for r in dialog.query(FieldRow)}
        assert all(isinstance(rows[n].control, Input) for n in ("colour", "nested", "junk"))
        text = dialog_text(dialog)
        assert "[b]Colour[/b] *" in text  # literal, never markup
        assert "␛[31mred" in text
        assert "type '_color' is unknown to acp-tui: sent as text" in text
        rows["colour"].control.focus()
        await pilot.press(*"teal")
        rows["count"].control.focus()
        await pilot.press(*"-2", "ctrl+s")
        await wait_for(pilot, lambda: app.answer is not None)
    assert app.answer == Answer("accept", {"colour": "teal", "count": -2})


# -- bad input: hostile text ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
async def test_hostile_questions_are_shown_literally(
    name: str, screenshots: list[tuple[Any, ...]]
) -> None:
    """The demo's form and URL questions as its ``--hostile`` mode sends them (every message,
    title, description, text default and enum value replaced), shown without an agent: literal,
    controls made visible, nothing run by a click."""
    text = HOSTILE_TEXTS[name]
    form_params = {"sessionId": "s", "mode": "form", "message": "m", "requestedSchema": ASK_SCHEMA}
    url_params = {"sessionId": "s", "mode": "url", "message": "m", "elicitationId": "e", "url": URL}
    app = App[None]()
    async with app.run_test(size=(160, 50)) as pilot:
        for params, kind in (
            (form_params, ElicitationFormDialog),
            (url_params, ElicitationUrlDialog),
        ):
            request, parsed = check_request(poison(params, text))
            elicitation = Elicitation(request, "s", tool_title=text, form=parsed)
            app.push_screen(kind(elicitation, text))
            dialog = await wait_for_screen(pilot, kind)
            await wait_for(pilot, lambda dialog=dialog: dialog.accepting)
            await pilot.pause()
            assert_shown_safely(app, text)
            if isinstance(dialog, ElicitationFormDialog):
                # A text field's default: shown with its controls made visible, and that is
                # what is sent unless edited; a note says so when it differs from the agent's.
                field = row(dialog, "name")
                shown = sanitize(text).replace("\t", "␉").replace("\n", "␊")
                assert field.value == shown
                assert dialog.form.defaults()["name"] == shown
                assert bool(field.query(".field-note")) == (shown != text)
            message = dialog.query_one(".elicit-message")
            await pilot.click(message, offset=(2, 0))  # its markup, if parsed, would act
            assert app.screen is dialog
            app.pop_screen()
        assert app.is_running
    assert not screenshots
