"""Restoring sessions as real agents behave: a live session, a replay on resume, another cwd."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.client.history.restore import LOCAL_COPY_NOTICE, RESUMED_NOTICE
from acp_tui.client.session.entries import MessageEntry
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_app_smoke import screen_text
from tests.app.test_browser import SIZE, calls, highlight, open_browser, seed


def users(app: AcpApp) -> list[str]:
    assert app.session is not None
    entries = app.session.transcript.entries
    return [e.text for e in entries if isinstance(e, MessageEntry) and e.role == "user"]


async def test_replaying_the_open_session_asks_and_never_loads_it_twice(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"remember me", "enter")
        await wait_for(pilot, lambda: app.slot is not None and not app.slot.busy)
        assert app.session is not None
        live_id = app.session.session_id
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, live_id)
        await pilot.press("enter")
        dialog = await wait_for_screen(pilot, ConfirmDialog)
        assert "already open in tab 1" in dialog.question
        await pilot.press("n")  # just show it
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmDialog))
        assert not calls(sent, "session/load")
        assert app.workspace is not None
        assert len(app.workspace.slots) == 1

        await highlight(pilot, app, live_id)
        await pilot.press("enter")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")  # reload: replayed into the same tab, which keeps it meanwhile
        await wait_for(pilot, lambda: bool(calls(sent, "session/load")))
        await wait_for(pilot, lambda: app.slot is not None and app.slot.state == "ready")
        assert [c["sessionId"] for c in calls(sent, "session/load")] == [live_id]
        assert not calls(sent, "session/close")  # an agent may forget a closed session
        assert len(app.workspace.slots) == 1
        assert users(app) == ["remember me"]


async def test_a_replay_on_resume_is_shown_once_with_no_local_copy_or_missing_history_note(
    make_app: Callable[..., AcpApp],
) -> None:
    """fast-agent and pydantic-acp replay the history on session/resume anyway."""
    app = make_app("--capabilities", "list,resume,close", "--fault", "replay-on-resume")
    [session_id] = await seed(app, ["replayed by resume"], record=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.workspace is not None
        assert app.slot is not None
        agent = app.slot.agent
        for replay in (True, False):  # Enter (with the local copy), then r (without)
            info = SessionInfo(session_id=session_id, cwd=str(app.launch.cwd))
            app.workspace.open_listed(agent, info, replay=replay)
            await wait_for(
                pilot,
                lambda: (
                    app.session is not None
                    and app.session.session_id == session_id
                    and app.slot is not None
                    and app.slot.state == "ready"
                ),
            )
            assert users(app) == ["replayed by resume"]  # once, not the local copy on top
            text = screen_text(app)
            assert LOCAL_COPY_NOTICE not in text
            assert RESUMED_NOTICE not in text
            assert app.workspace is not None
            await app.workspace.close_slot(app.slot)
            await wait_for(pilot, lambda: len(app.workspace.slots) == 1)  # type: ignore[union-attr]
        # The replay became the local copy (recorded aside, then swapped in).
        cached = [
            e
            for e in app.workspace.cache.events(agent.key, session_id)
            if getattr(e, "blocks", None)
            or (getattr(e, "update", {}) or {}).get("sessionUpdate") == "user_message_chunk"
        ]
        assert len(cached) == 1


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_the_status_line_shows_the_opened_sessions_cwd(
    make_app: Callable[..., AcpApp], tmp_path: Path, protocol: int
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    app = make_app(protocol=protocol)
    [session_id] = await seed(app, ["in another folder"], cwd=elsewhere)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert str(app.launch.cwd) in app.chat.status_text()
        assert app.workspace is not None
        assert app.slot is not None
        info = SessionInfo(session_id=session_id, cwd=str(elsewhere))
        app.workspace.open_listed(app.slot.agent, info, replay=True)
        await wait_for(
            pilot, lambda: app.session is not None and app.session.session_id == session_id
        )
        assert str(elsewhere) in app.chat.status_text()
        assert str(app.launch.cwd) + " " not in app.chat.status_text()
