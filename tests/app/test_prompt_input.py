"""The prompt editor against the real demo agent: send, newline, history, `/` and `@`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.client.session.entries import MessageEntry
from acp_tui.protocol.content import TextContent
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.app.helpers import wait_for

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""Sending a prompt is checked on ACP v1 and on the v2 draft; editing is version-neutral."""


async def ready(pilot: Pilot[int], app: AcpApp) -> PromptInput:
    """Wait for the session and the demo agent's commands; the prompt editor."""
    await wait_for(pilot, lambda: app.session is not None and bool(app.session.transcript.commands))
    return app.chat.current_pane.query_one(PromptInput)


def idle(app: AcpApp) -> bool:
    return app.session is not None and not app.session.prompt_pending


def user_texts(app: AcpApp) -> list[str]:
    """The text of every user message in the transcript."""
    assert app.session is not None
    return [
        "".join(b.text for b in entry.blocks if isinstance(b, TextContent))
        for entry in app.session.transcript.entries
        if isinstance(entry, MessageEntry) and entry.role == "user"
    ]


def labels(prompt: PromptInput) -> list[str]:
    return [str(choice.label) for choice in prompt.completion_list.choices]


@PROTOCOLS
async def test_enter_sends_and_clears(make_app: Callable[..., AcpApp], protocol: int) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press(*"hello agent", "enter")
        await wait_for(pilot, lambda: prompt.text == "")
        await wait_for(pilot, lambda: any("hello agent" in t for t in user_texts(app)))


async def test_ctrl_j_inserts_a_newline_without_sending(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press("a", "ctrl+j", "b")
        assert prompt.text == "a\nb"
        assert prompt.cursor_location == (1, 1)
        assert user_texts(app) == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: user_texts(app) == ["a\nb"])


async def test_history_is_recalled_after_a_restart(make_app: Callable[..., AcpApp]) -> None:
    first = make_app()
    async with first.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, first)
        for text in ("first prompt", "second prompt"):
            await pilot.press(*text, "enter")
            await wait_for(pilot, lambda: prompt.text == "" and idle(first))

    second = make_app()
    async with second.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, second)
        await pilot.press(*"my draft", "up")
        assert prompt.text == "second prompt"
        await pilot.press("up")
        assert prompt.text == "first prompt"
        await pilot.press("up")  # the oldest: stays
        assert prompt.text == "first prompt"
        await pilot.press("down")
        assert prompt.text == "second prompt"
        await pilot.press("down")
        assert prompt.text == "my draft"
        assert user_texts(second) == []


async def test_up_moves_within_a_multiline_prompt_before_recalling(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press(*"sent", "enter")
        await wait_for(pilot, lambda: prompt.text == "" and idle(app))
        await pilot.press("a", "ctrl+j", "b", "up")
        assert prompt.text == "a\nb"  # the cursor went to the first line
        assert prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "sent"


async def test_slash_lists_the_agents_commands_and_tab_completes(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press("/")
        assert prompt.completion_list.is_open
        shown = labels(prompt)
        firsts = [label.split(" ")[0] for label in shown]
        assert firsts[:4] == ["/help", "/plan", "/diff", "/terminal"]  # acp-tui's follow
        assert "/plan — Make a plan and follow it  ‹what to plan›" in shown
        assert prompt.completion_list.region.height > 0  # really on screen
        await pilot.press("p", "l")
        assert labels(prompt)[0].startswith("/plan")
        await pilot.press("tab")
        assert prompt.text == "/plan "
        assert not prompt.completion_list.is_open
        assert prompt.border_subtitle == "what to plan"


async def test_the_list_counts_the_commands_the_agent_sent_past_the_cap(
    make_app: Callable[..., AcpApp],
) -> None:
    """An agent's 200,000 commands are held as the first 1,000 (`acp_tui.protocol.held`): the
    list said nothing of the rest, as if there were none."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        assert app.session is not None
        app.session.transcript.commands_not_kept = 199_000
        await pilot.press("/")
        assert prompt.completion_list.is_open
        options = prompt.completion_list.options
        assert str(options[-1].prompt) == "… 199,000 more commands from the agent (not kept)"
        assert options[-1].disabled
        assert len(options) == len(prompt.completion_list.choices) + 1
        await pilot.press("z", "z", "z")  # none matches: said, and the count still
        assert [str(o.prompt) for o in prompt.completion_list.options] == [
            "no matching command",
            "… 199,000 more commands from the agent (not kept)",
        ]
        await pilot.press("escape", *("backspace",) * 4, "/", "/")  # acp-tui's only
        assert not any("not kept" in str(o.prompt) for o in prompt.completion_list.options)


async def test_enter_accepts_a_completion_instead_of_sending(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press("/", "down", "down", "enter")
        assert prompt.text == "/diff "
        assert user_texts(app) == []
        await pilot.press("enter")  # the list is closed now: this one sends
        await wait_for(pilot, lambda: user_texts(app) == ["/diff "])


async def test_escape_closes_the_list_until_the_next_token(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        await pilot.press("/", "h")
        assert prompt.completion_list.is_open
        await pilot.press("escape")
        assert not prompt.completion_list.is_open
        await pilot.press("e")  # still the dismissed token
        assert not prompt.completion_list.is_open
        await pilot.press("enter")
        await wait_for(pilot, lambda: user_texts(app) == ["/he"])


@PROTOCOLS
async def test_at_lists_files_and_sends_an_embedded_resource(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot, app)
        assert app.client is not None
        sent: list[dict[str, Any]] = []
        app.client.connection.tracer = lambda direction, message: (
            sent.append(message) if direction == "send" else None
        )
        await pilot.press(*"summarise @")
        await wait_for(pilot, lambda: "README.md" in labels(prompt))
        await pilot.press(*"READ")
        assert labels(prompt) == ["README.md"]
        await pilot.press("tab")
        assert prompt.text == "summarise @README.md "
        assert not prompt.completion_list.is_open
        await pilot.press("enter")

        def prompt_request() -> dict[str, Any] | None:
            for message in sent:
                if message.get("method") == "session/prompt":
                    return message
            return None

        await wait_for(pilot, lambda: prompt_request() is not None)
        request = prompt_request()
        assert request is not None
        blocks = request["params"]["prompt"]
        assert blocks[0] == {"type": "text", "text": "summarise @README.md "}
        assert blocks[1]["type"] == "resource"
        resource = blocks[1]["resource"]
        assert resource["uri"] == (app.launch.cwd.resolve() / "README.md").as_uri()
        assert resource["text"] == "# Demo project\n\nHello from the README.\n"
        assert len(blocks) == 2


async def test_escape_without_a_list_still_cancels_the_turn(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        assert app.client is not None
        sent: list[str] = []
        app.client.connection.tracer = lambda direction, message: (
            sent.append(message.get("method", "")) if direction == "send" else None
        )
        await pilot.press(*"hang", "enter")  # runs until cancelled, however slow the machine
        await wait_for(pilot, lambda: app.session is not None and app.session.prompt_pending)
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert "session/cancel" in sent
