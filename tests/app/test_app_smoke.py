"""The app starts on the demo agent, shows an honest screen, chats, and cleans up."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for

# The smoke set: the app on the demo agent as a real process, started, talked to and reaped.
pytestmark = pytest.mark.real_agent


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie not yet reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.split(")")[-1].split()[0] == "Z"


def screen_text(app: AcpApp) -> str:
    return "\n".join(app.chat.current_pane.query_one(TranscriptView).plain_lines())


@pytest.fixture(params=[1, 2], ids=["v1", "v2"])
def protocol(request: pytest.FixtureRequest) -> int:
    """Every smoke test runs on ACP v1 and on the v2 draft."""
    value: int = request.param
    return value


async def test_app_connects_and_shows_status(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        status = app.chat.status_text()
        assert "acp-tui demo agent" in status
        assert f"ACP v{protocol}" in status
        assert str(app.launch.cwd) in status
        assert "ready" in status


async def test_prompt_typed_while_starting_is_sent_when_ready(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"hello there", "enter")
        await wait_for(pilot, lambda: "You said" in screen_text(app))
        assert "hello there" in screen_text(app)


async def test_chat_turn_renders_reply_and_agent_is_stopped_on_exit(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.client is not None
        pid = app.client.process.pid
        await pilot.press(*"markdown diff", "enter")
        await wait_for(pilot, lambda: "def greet" in screen_text(app))
        await wait_for(
            pilot, lambda: app.session is not None and app.session.transcript.state == "idle"
        )
        text = screen_text(app)
        assert "markdown diff" in text
        assert "completed" in text
    # The agent's process group is gone once the app has exited.
    assert process_gone(pid)


async def test_missing_agent_command_is_reported_not_raised(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    app.launch = app.launch.__class__(
        command=app.launch.command.__class__(["no-such-agent-binary-xyz"], name="ghost"),
        cwd=app.launch.cwd,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "could not talk" in app.chat.agent_status)
        assert app.session is None


async def test_every_turn_is_recorded_locally_as_it_streams(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    from acp_tui.client.session.entries import MessageEntry
    from acp_tui.client.session.transcript import Transcript

    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"think markdown", "enter")
        await wait_for(pilot, lambda: "def greet" in screen_text(app))
        await wait_for(
            pilot, lambda: app.session is not None and app.session.transcript.state == "idle"
        )
        assert app.session is not None
        session_id = app.session.session_id
        live = [
            (e.role, e.text) for e in app.session.transcript.entries if isinstance(e, MessageEntry)
        ]
    assert app.workspace is not None
    assert app.slot is not None
    cache, agent_key = app.workspace.cache, app.slot.agent.key
    [cached] = cache.sessions(agent_key)
    assert cached.session_id == session_id
    assert cached.title  # the agent's session_info_update reached the index
    replayed = Transcript(session_id)
    cache.replay_into(agent_key, session_id, replayed.apply, replayed.add_user_message)
    again = [(e.role, e.text) for e in replayed.entries if isinstance(e, MessageEntry)]
    assert again == live
