"""Drafts agents already send: ``notice`` updates as severity-styled toasts, also kept in the
transcript (not in its history: a replay has none), and the tool call ``name`` beside its kind."""

from __future__ import annotations

from collections.abc import Callable

from acp_tui.client.session.entries import NoticeEntry
from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for
from tests.app.test_app_smoke import screen_text
from tests.app.test_prompt_input import PROTOCOLS, idle, ready


def notices(app: AcpApp) -> list[tuple[str, str]]:
    return [(n.message, n.severity) for n in app._notifications]


@PROTOCOLS
async def test_notices_are_toasts_by_severity_kept_but_not_history(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"notice", "enter")
        await wait_for(pilot, lambda: len(notices(app)) == 3 and idle(app))
        assert notices(app) == [
            ("Indexing finished\n1,204 files indexed.", "information"),
            ("Rate limit close\n80% of the hour used.", "warning"),
            ("Search service unreachable", "error"),
        ]
        assert app.session is not None
        transcript = app.session.transcript
        kept = [(e.text, e.level) for e in transcript.entries if isinstance(e, NoticeEntry)]
        assert kept == [
            ("Indexing finished: 1,204 files indexed.", "info"),
            ("Rate limit close: 80% of the hour used.", "warning"),
            ("Search service unreachable", "error"),
        ]
        assert transcript.unknown_updates == 0
        # Reloading the session replays its history: the notices were never part of it.
        app.clear_notifications()
        sid = app.session.session_id
        assert app.client is not None
        session = await app.client.load_session(sid, app.launch.cwd)
        assert "I sent three notices" in "".join(
            getattr(e, "text", "") for e in session.transcript.entries
        )
        assert session.transcript.last_notice is None
        assert notices(app) == []


async def test_a_tool_call_shows_its_name(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press(*"diff", "enter")
        await wait_for(pilot, lambda: "edit_files · edit · completed" in screen_text(app))
