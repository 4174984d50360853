"""Each change in the Workspace reaches the screen once: one message per event, one render each."""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from acp_tui.client.workspace import events
from acp_tui.ui import messages
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.browser.rows import SessionRows
from acp_tui.ui.widgets.chat_pane import ChatPane
from tests.app.helpers import wait_for

SIZE = (120, 36)


def test_every_workspace_event_has_its_own_message() -> None:
    kinds = typing.get_args(events.WorkspaceEvent)
    assert set(messages.MESSAGES) == set(kinds)
    assert len({messages.MESSAGES[kind] for kind in kinds}) == len(kinds)


class Counted:
    """Counts the calls of one method of one object, still calling it."""

    def __init__(self, owner: Any, name: str) -> None:
        self.calls = 0
        real = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return real(*args, **kwargs)

        setattr(owner, name, counted)


async def settle(pilot: Pilot[int], app: AcpApp) -> None:
    """Until nothing is on its way: the turn is over and the browser has its rows."""
    panel = app.chat.query_one(SessionBrowser)
    await wait_for(
        pilot,
        lambda: (
            app.slot is not None
            and app.slot.state == "ready"
            and not app.slot.busy
            and panel.inflight is None
            and not panel.lister.loading
            and app.slot.session_id in panel.lister.rows
        ),
    )
    for _ in range(3):
        await pilot.pause()


async def test_a_title_update_renders_the_status_line_once_and_the_rows_once(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+b")
        await pilot.press("escape", *"hello", "enter")
        await settle(pilot, app)
        assert app.client is not None
        assert app.session is not None
        session_id = app.session.session_id
        pane = app.chat.current_pane
        status = Counted(pane, "refresh_status")
        rows = Counted(app.chat.query_one(SessionBrowser), "render_rows")
        # As the agent sends it: through the connection's notification handler.
        update = {"sessionUpdate": "session_info_update", "title": "A brand new name"}
        connection = app.client.connection
        await connection.on_notification(
            "session/update", {"sessionId": session_id, "update": update}
        )
        if connection.on_drain is not None:
            connection.on_drain()  # the end of the block read, as the read loop says it
        shown = app.chat.query_one(SessionRows)
        await wait_for(
            pilot,
            lambda: (
                "A brand new name" in app.chat.status_text()
                and "A brand new name" in str(shown.get_option(session_id).prompt)
            ),
        )
        for _ in range(3):
            await pilot.pause()
        assert isinstance(pane, ChatPane)
        assert status.calls == 1
        assert rows.calls == 1
