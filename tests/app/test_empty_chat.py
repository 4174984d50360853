"""An empty chat says what to try; the hint goes once there is something to show."""

from __future__ import annotations

from collections.abc import Callable

from acp_tui.ui.app import AcpApp
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for


def shown(view: TranscriptView) -> str:
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_an_empty_chat_says_what_to_try_with_the_demo_agent(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        view = app.chat.current_pane.query_one(TranscriptView)
        await pilot.pause()
        text = " ".join(shown(view).split())
        assert "Type a message below and press Enter" in text
        assert "try /help" in text
        assert "permission" in text  # a keyword of the demo agent
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: view.lines.height > 0)
        await pilot.pause()
        assert "try /help" not in shown(view)
        assert "hello" in shown(view)
