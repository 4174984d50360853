"""Chat conveniences: copying the last reply, and the show_thoughts setting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from acp_tui.config.settings import Settings
from acp_tui.ui.app import AcpApp
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for


def text(app: AcpApp) -> str:
    return "\n".join(app.chat.current_pane.query_one(TranscriptView).plain_lines())


async def test_ctrl_o_copies_the_last_reply_source(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"markdown", "enter")
        await wait_for(
            pilot,
            lambda: app.session is not None and app.session.transcript.stop_reason is not None,
        )
        await pilot.press("ctrl+o")
        assert "```python" in app.clipboard  # the markdown source, not the rendering


async def test_show_thoughts_setting_hides_thoughts_and_ctrl_t_shows_them(
    make_app: Callable[..., AcpApp],
) -> None:
    app = AcpApp(replace(make_app().launch, settings=Settings(show_thoughts=False)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"think", "enter")
        await wait_for(
            pilot,
            lambda: app.session is not None and app.session.transcript.stop_reason is not None,
        )
        assert "Let me think" not in text(app)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "Let me think" in text(app))
