"""Permission prompts: exactly the agent's options, single-key answers, Esc cancels the turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from acp_tui.client.transcript import MessageEntry, NoticeEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import PermissionDialog
from tests.app.helpers import wait_for, wait_for_screen

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""Every permission test runs on ACP v1 and on the v2 draft."""


def agent_text(app: AcpApp) -> str:
    assert app.session is not None
    entries = app.session.transcript.entries
    return "\n".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")


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
        await wait_for_screen(pilot, PermissionDialog)
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
async def test_escape_in_the_dialog_cancels_the_turn(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        sent = await start(pilot, app, "permission")
        await wait_for_screen(pilot, PermissionDialog)
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
