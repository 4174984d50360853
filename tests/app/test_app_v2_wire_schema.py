"""Everything the app sends on ACP v2 (a chat and browser session with the demo agent started with
``--protocol 2``) validates against the v2 draft schema, and so does everything it receives.

The unit test (tests/unit/client/agent/test_client_v2_wire_schema.py) drives AgentClient directly;
this one drives the UI: keys in the chat, the permission dialog, the options bar and the session
browser. `session/fork` is unstable, so it is checked against ``schema.unstable.json``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Select

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.widgets.session_options import SessionOptions
from tests.app.helpers import wait_for_screen
from tests.app.test_app_smoke import screen_text, wait_for
from tests.app.test_browser import SIZE, browser, highlight, row_titles, seed, settled
from tests.unit.client.agent.agent_helpers import record_wire
from tests.unit.client.agent.test_client_v2_wire_schema import (
    EXPECTED_SENT,
    check_received,
    check_sent,
)


def idle(app: AcpApp) -> bool:
    return (
        app.session is not None
        and not app.session.prompt_pending
        and app.session.transcript.state == "idle"
    )


async def test_everything_the_app_sends_on_v2_fits_the_v2_schema(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(protocol=2)
    replayed, doomed = await seed(app, ["remember the lighthouse", "delete me"])
    wire = record_wire(monkeypatch)  # from the app's own `initialize` on
    async with app.run_test(size=SIZE) as pilot:
        # A new session, a prompt and a permission answered with a key.
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"permission", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        await pilot.press("a")
        await wait_for(pilot, lambda: idle(app))

        # The model picked in the options bar.
        bar = app.chat.current_pane.query_one(SessionOptions)
        await wait_for(pilot, lambda: len(bar.query(Select)) >= 2 and not bar._rebuilding)
        model = next(s for s in bar.query(Select).results(Select) if s.name == "config:model")
        model.focus()
        await pilot.press("enter", "down", "enter")
        await wait_for(pilot, lambda: bool(wire.sent_params("session/set_config_option")))

        # The browser: list, resume with replay, fork.
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: settled(app) and replayed in browser(app).lister.rows)
        await highlight(pilot, app, replayed)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "remember the lighthouse" in screen_text(app))
        assert app.session is not None
        assert app.session.session_id == replayed
        await highlight(pilot, app, replayed)
        await pilot.press("f")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session.session_id not in ("", replayed)
                and row_titles(app)[0].startswith("Fork of")
            ),
        )
        fork = app.session.session_id

        # A running turn cancelled with Esc (in the chat, on the fork).
        app.chat.current_pane.query_one("#prompt").focus()
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.session is not None and app.session.prompt_pending)
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))

        # Back in the browser: close the chat's session, delete another one.
        await highlight(pilot, app, fork)
        await pilot.press("c")
        await wait_for(pilot, lambda: "This session was closed" in screen_text(app))
        await highlight(pilot, app, doomed)
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for(pilot, lambda: doomed not in browser(app).lister.rows)

    methods = check_sent(wire)
    assert methods >= EXPECTED_SENT, EXPECTED_SENT - methods
    assert "session/load" not in methods
    check_received(wire)
    (init,) = wire.sent_params("initialize")
    assert init["protocolVersion"] == 2
    [resume] = wire.sent_params("session/resume")
    assert resume == {
        "sessionId": replayed,
        "cwd": str(app.launch.cwd),
        "additionalDirectories": [],
        "replayFrom": {"type": "start"},
    }
    [choice] = wire.sent_params("session/set_config_option")
    assert choice["configId"] == "model"
    assert [p["sessionId"] for p in wire.sent_params("session/fork")] == [replayed]
    assert [p["sessionId"] for p in wire.sent_params("session/close")] == [fork]
    assert [p["sessionId"] for p in wire.sent_params("session/delete")] == [doomed]
    answers = [m for m in wire.sent if "result" in m and "outcome" in (m["result"] or {})]
    assert answers[0]["result"]["outcome"]["outcome"] == "selected"
