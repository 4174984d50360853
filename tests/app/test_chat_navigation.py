"""The chat from the keyboard: the transcript's keys from the prompt, the prompt key from
everywhere, the find bar, copying the whole last reply, and a terminal resized to 40x12."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from acp_tui.client.session.entries import MessageEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.transcript.view import TranscriptView
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queue_view import QueueView
from tests.app.helpers import wait_for, wait_for_screen


def view_of(app: AcpApp) -> TranscriptView:
    view = app.chat.current_pane.transcript_view
    assert view is not None
    return view


def prompt_of(app: AcpApp) -> PromptInput:
    return app.chat.current_pane.prompt


async def turn(pilot: Pilot[int], app: AcpApp, text: str) -> None:
    await pilot.press(*text, "enter")
    await wait_for(
        pilot,
        lambda: (
            app.session is not None
            and app.session.transcript.state == "idle"
            and app.session.transcript.stop_reason is not None
        ),
    )


async def long_chat(pilot: Pilot[int], app: AcpApp, notices: int = 200) -> TranscriptView:
    await wait_for(pilot, lambda: app.session is not None)
    assert app.session is not None
    for n in range(notices):
        app.session.transcript.add_notice(f"notice {n}")
    view = view_of(app)
    await wait_for(pilot, lambda: view.settled and view.max_scroll_y > 100)
    await wait_for(pilot, lambda: view.scroll_offset.y == view.max_scroll_y)
    return view


async def test_page_and_ctrl_home_end_in_the_prompt_scroll_the_transcript(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        view = await long_chat(pilot, app)
        prompt = prompt_of(app)
        assert prompt.has_focus
        bottom = view.scroll_offset.y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: view.scroll_offset.y < bottom)
        assert not view.following
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: view.scroll_offset.y == view.max_scroll_y)
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: view.scroll_offset.y == 0)
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: view.following and view.scroll_offset.y == view.max_scroll_y)
        assert prompt.has_focus

        # A draft taller than the editor: the keys move in it, the transcript stays.
        prompt.load_text("\n".join(f"line {n}" for n in range(40)))
        await wait_for(pilot, lambda: prompt.overflows)
        prompt.move_cursor(prompt.document.end)
        await pilot.press("pageup")
        assert prompt.cursor_location[0] < 39
        await pilot.press("ctrl+home")
        assert prompt.cursor_location == (0, 0)
        await pilot.press("ctrl+end")
        assert prompt.cursor_location == (39, len("line 39"))
        assert view.scroll_offset.y == view.max_scroll_y


async def test_sending_a_prompt_scrolls_to_the_end(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        view = await long_chat(pilot, app)
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: view.scroll_offset.y == 0)
        await turn(pilot, app, "hello there")
        await wait_for(pilot, lambda: view.settled and view.scroll_offset.y == view.max_scroll_y)
        assert any("hello there" in line for line in view.visible_lines())


async def test_ctrl_l_and_esc_bring_the_focus_back_to_the_prompt(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        pane = app.chat.current_pane
        prompt = prompt_of(app)

        async def back(key: str) -> None:
            assert not prompt.has_focus
            await pilot.press(key)
            await wait_for(pilot, lambda: prompt.has_focus)

        options = pane.session_options
        assert options is not None
        # The session is shown, its pickers laid out: Textual orders the focus chain by
        # position, and a picker not laid out yet sits at the top, before the transcript.
        await wait_for(
            pilot,
            lambda: (
                bool(options.query(Select))
                and all(select.region.height for select in options.query(Select))
            ),
        )
        await wait_for(pilot, lambda: prompt.has_focus)
        await pilot.press("tab")  # the prompt's neighbour: the transcript
        await wait_for(pilot, lambda: view_of(app).has_focus)
        await back("ctrl+l")
        view_of(app).focus()
        await pilot.pause()
        await back("escape")

        options.query(Select).first().focus()
        await pilot.pause()
        await back("ctrl+l")
        options.query(Select).first().focus()
        await pilot.pause()
        await back("escape")

        await pilot.press("ctrl+b")
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.has_focus_within)
        await back("ctrl+l")

        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.session is not None and app.session.prompt_pending)
        await pilot.press(*"queued", "enter")
        queue = pane.query_one(QueueView)
        await wait_for(pilot, lambda: bool(queue.queued))
        queue.focus()
        await pilot.pause()
        await back("ctrl+l")
        await pilot.press("escape")  # in the prompt, Esc is still "cancel the turn"
        await wait_for(pilot, lambda: queue.paused)  # "hang" ended; what was queued waits
        assert app.session is not None
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        assert not user_said(app, "queued")


def squeezed(lines: list[str]) -> str:
    return "".join("".join(lines).split())


def user_said(app: AcpApp, text: str) -> bool:
    entries = app.session.transcript.entries if app.session is not None else []
    return any(isinstance(e, MessageEntry) and e.role == "user" and e.text == text for e in entries)


async def test_the_find_bar_counts_steps_and_closes_to_the_prompt(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await turn(pilot, app, "markdown")
        await turn(pilot, app, "markdown again")
        pane = app.chat.current_pane
        bar = pane.find_bar
        view = view_of(app)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: bar.is_open and bar.query_one(Input).has_focus)
        await pilot.press(*"greet")
        count = bar.query_one("#find-count", Static)
        await wait_for(pilot, lambda: bar.total >= 2)
        total = bar.total
        assert str(count.render()) == f"{bar.current + 1} of {total}"  # type: ignore[operator]
        first = bar.current
        assert first is not None
        await pilot.press("enter")
        assert bar.current == (first + 1) % total
        await pilot.press("f3")
        assert bar.current == (first + 2) % total
        await pilot.press("shift+f3")
        assert bar.current == (first + 1) % total
        await pilot.press("up")
        assert bar.current == first
        await pilot.press("down")
        assert bar.current == (first + 1) % total
        await pilot.press("ctrl+g")
        assert bar.current == (first + 2) % total
        assert str(count.render()) == f"{(first + 2) % total + 1} of {total}"
        line = view.match_line()
        assert line is not None
        assert "greet" in view.line_strip(line).text.lower()
        await pilot.press(*"zzz")
        await wait_for(pilot, lambda: str(count.render()) == "no matches")
        await pilot.press("escape")
        await wait_for(pilot, lambda: prompt_of(app).has_focus)
        assert not bar.is_open
        assert view.search.total == 0


async def test_ctrl_o_copies_every_message_of_the_last_reply(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await turn(pilot, app, "markdown diff")
        await pilot.press("ctrl+o")
        assert "```python" in app.clipboard  # the first message, before the tool call
        assert "I made `greet` take a name" in app.clipboard  # the one after it
        assert "markdown diff" not in app.clipboard  # not the prompt


async def test_a_terminal_resized_to_40x12_and_back_loses_nothing(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await turn(pilot, app, "markdown")
        await pilot.press("ctrl+b")
        view = view_of(app)
        browser = app.chat.browser
        assert browser is not None
        await wait_for(pilot, lambda: browser.has_focus_within)
        await wait_for(pilot, lambda: view.settled)
        before = view.plain_lines()
        prompt_of(app).insert("a draft")
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: view.settled)
        # The same text; it may wrap two columns narrower (a scrollbar that stayed).
        assert squeezed(view.plain_lines()) == squeezed(before)
        assert prompt_of(app).text == "a draft"

        await pilot.press("ctrl+l", "ctrl+a", "ctrl+k")
        await pilot.press(*"permission", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: dialog.accepting)
        await pilot.press("a")
        await wait_for(
            pilot,
            lambda: app.session is not None and app.session.transcript.state == "idle",
        )
        assert app.is_running
