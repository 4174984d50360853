"""Real agents in the wild, in the app: errors that say why, a browser that does not blame an
exit acp-tui caused, late chunks, sessions listed locally, and sessions that keep talking."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from acp_tui.demo_agent.faults import ERROR_DATA, ERROR_DETAILS
from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for
from tests.app.test_app_smoke import screen_text
from tests.app.test_browser import browser, settled

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
