"""Ctrl+R restarts the agent whatever it is doing: asked first when a turn would be cut short,
straight away when it hangs at start; the session comes back without a duplicated message."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from acp_tui.client.session.entries import MessageEntry
from acp_tui.config.paths import get_paths
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from tests.app.helpers import wait_for, wait_for_screen

SIZE = (120, 36)

# A restart stops the agent's process (a hanging one by signals) and starts another.
pytestmark = pytest.mark.real_agent


def user_texts(app: AcpApp) -> list[str]:
    assert app.session is not None
    return [
        e.text
        for e in app.session.transcript.entries
        if isinstance(e, MessageEntry) and e.role == "user"
    ]


def agent_logs() -> int:
    """How many times an agent was started (one stderr log per start)."""
    logs = get_paths().log_dir
    return len(list(logs.glob("*.log"))) if logs.exists() else 0


async def test_restart_during_a_turn_asks_first_and_the_session_comes_back_once(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        slot = app.slot
        assert slot is not None
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: slot.agent.connections == 1 and not slot.busy)
        await pilot.press(*"hang", "enter")  # a turn that runs until it is cancelled
        await wait_for(pilot, lambda: slot.busy)

        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("n")  # keep it running
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmDialog))
        assert slot.busy
        assert slot.agent.connections == 1

        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for(
            pilot, lambda: slot.agent.connections == 2 and slot.state == "ready" and not slot.busy
        )
        # The reopened session shows each message once (no copy of the last one on top).
        assert user_texts(app) == ["hello", "hang"]
        await pilot.press(*"again", "enter")
        await wait_for(pilot, lambda: user_texts(app) == ["hello", "hang", "again"])
        await wait_for(pilot, lambda: not slot.busy)


async def test_restart_while_the_agent_hangs_at_start_needs_no_turn_and_no_question(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app("--fault", "hang-initialize")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: agent_logs() == 1)
        await wait_for(pilot, lambda: app.slot is not None)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: agent_logs() == 2)
        assert not isinstance(app.screen, ConfirmDialog)
        # The palette's entry does the same.
        app.action_restart_agent()
        await wait_for(pilot, lambda: agent_logs() == 3)
