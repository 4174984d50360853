"""Real agents in the wild, in the app: errors that say why, a browser that does not blame an
exit acp-tui caused, late chunks, sessions listed locally, and sessions that keep talking."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from acp_tui.client.history.session_list import SessionLister
from acp_tui.demo_agent.faults import ERROR_DATA, ERROR_DETAILS
from acp_tui.protocol.timestamps import parse_timestamp
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser import panel as panel_module
from acp_tui.ui.browser.panel import Level, SessionBrowser
from acp_tui.ui.browser.rows import RowState
from tests.app.helpers import wait_for
from tests.app.test_app_smoke import screen_text
from tests.app.test_browser import browser, seed, settled, static_text

SIZE = (120, 40)


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("error-data", [ERROR_DATA]),
        ("error-details", [ERROR_DETAILS["message"], "caused by: connection reset by peer"]),
    ],
)
async def test_a_failed_prompt_says_what_the_agent_put_in_data(
    make_app: Callable[..., AcpApp], fault: str, said: list[str]
) -> None:
    app = make_app("--fault", fault)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "The prompt failed" in screen_text(app))
        text = screen_text(app)
        assert "Internal error (code -32603) — " in text
        for words in said:
            assert words in text


async def test_a_failed_session_list_says_why_in_the_browser(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app("--fault", "error-data")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        panel = browser(app)
        await wait_for(pilot, lambda: settled(app) and panel.lister.error is not None)
        assert panel.lister.error is not None
        assert ERROR_DATA in panel.lister.error
        await wait_for(pilot, lambda: ERROR_DATA in row_text(app))
        assert "Internal error (code -32603) — CODEX_API_KEY is not set" in row_text(app)


def row_text(app: AcpApp) -> str:
    """What the browser's rows (the state row included) say, as plain text."""
    rows = browser(app).rows
    return "\n".join(str(option.prompt) for option in rows.options)


@pytest.mark.real_agent  # a restart stops the agent's process and starts another
async def test_the_browser_waits_for_an_agent_acp_tui_restarts_instead_of_blaming_it(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: list[str] = []
    statuses: list[tuple[str, str]] = []
    real_fail = SessionLister.fail
    real_status = SessionBrowser.set_status

    def fail(self: SessionLister, message: str, *, cursor_error: bool = False) -> None:
        failures.append(message)
        real_fail(self, message, cursor_error=cursor_error)

    def set_status(self: SessionBrowser, text: str, level: Level = "info") -> None:
        statuses.append((text, level))
        real_status(self, text, level)

    shown: list[str] = []
    real_row_state = panel_module.row_state

    def row_state(*args: Any, **kwargs: Any) -> RowState:
        state = real_row_state(*args, **kwargs)
        shown.append(state.text)  # every state row rendered: "Waiting" may be brief
        return state

    monkeypatch.setattr(SessionLister, "fail", fail)
    monkeypatch.setattr(SessionBrowser, "set_status", set_status)
    monkeypatch.setattr(panel_module, "row_state", row_state)
    app = make_app("--fault", "slow-list")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        panel = browser(app)
        await wait_for(pilot, lambda: panel.lister.loading)  # session/list takes 3 s
        first = app.client
        assert first is not None
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "Waiting for the agent…" in shown)
        await wait_for(pilot, lambda: app.client not in (None, first) and app.session is not None)
        await wait_for(pilot, lambda: settled(app) and panel.lister.exhausted)
        assert app.session is not None
        assert app.session.session_id in panel.lister.rows  # listed again, from the new agent
        assert "Waiting" not in row_text(app)
        assert failures == []
        assert panel.lister.error is None
        assert all(level == "info" for _, level in statuses), statuses
        assert "exited" not in row_text(app)
        assert static_text(app, "#browser-status") == ""


async def test_sessions_listed_locally_have_a_title_a_time_and_ids_told_apart(
    make_app: Callable[..., AcpApp],
) -> None:
    """An agent without session/list (v1 only: it is v2's baseline) that never titles its
    sessions and starts their ids with the date: the local history says which is which."""
    app = make_app("--capabilities", "load", "--fault", "no-titles", "--fault", "dated-ids")
    prompts = ["Fix the flaky login test\nand more", "Write the release notes"]
    recorded = await seed(app, prompts, record=True)
    assert recorded[0][:12] == recorded[1][:12]  # the date and minute: 8 characters cannot tell
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        await wait_for(
            pilot,
            lambda: (
                set(recorded) <= set(browser(app).lister.rows) and row_text(app).count("id ") == 3
            ),
        )
        text = row_text(app)
        assert "Fix the flaky login test" in text
        assert "and more" not in text  # the first line only
        assert "Write the release notes" in text
        rows = browser(app).lister.rows
        assert [rows[sid].title for sid in recorded] == [
            "Fix the flaky login test",
            "Write the release notes",
        ]
        shown = re.findall(r"id (\S+)…", text)
        assert len(shown) == 3  # the two recorded sessions and the one just opened
        assert len(set(shown)) == 3
        for session_id in recorded:
            assert any(session_id.startswith(prefix) for prefix in shown)
        for session_id in recorded:
            assert parse_timestamp(rows[session_id].updated_at) is not None
        assert "just now" in text
