"""The app on ACP v2: the negotiated version shown, v2 permission questions, v2 diffs, replay."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Static

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.transcript.view import TranscriptView
from tests.app.helpers import wait_for, wait_for_screen


def idle(app: AcpApp) -> bool:
    return app.session is not None and app.session.transcript.stop_reason is not None


async def test_v2_permission_shows_the_agents_question_and_the_diff_renders(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app(protocol=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert "ACP v2" in app.chat.status_text()
        await pilot.press(*"permission", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        title = str(dialog.query_one("#permission-title", Static).render())
        assert title.startswith("Allow the agent to ")  # the v2 request's own question
        await pilot.press("a")
        await wait_for(
            pilot,
            lambda: (
                idle(app) and app.session is not None and app.session.transcript.state == "idle"
            ),
        )
        turns_before = len(app.session.transcript.entries) if app.session else 0
        await pilot.press(*"diff", "enter")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and len(app.session.transcript.entries) > turns_before
                and app.session.transcript.state == "idle"
            ),
        )
        view = app.chat.current_pane.query_one(TranscriptView)
        # The user's message counts before the turn starts: wait for its tool call's diff.
        await wait_for(pilot, lambda: "+def greet" in "\n".join(view.plain_lines()))
        lines = "\n".join(view.plain_lines())
        assert "+def greet" in lines  # the v2 patch, coloured as a diff


async def test_v2_falls_back_to_v1_when_the_agent_answers_1(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app(protocol=1)
    app.launch = app.launch.__class__(
        command=app.launch.command, cwd=app.launch.cwd, protocol_version=2, display_name="demo"
    )  # offer 2 to a demo agent that only speaks 1
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert "ACP v1" in app.chat.status_text()


async def test_v2_agent_owned_terminal_shows_its_output_in_the_tool_call(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app(protocol=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"terminal", "enter")
        view = app.chat.current_pane.query_one(TranscriptView)
        await wait_for(pilot, lambda: idle(app))

        def shown() -> str:
            return "\n".join(view.plain_lines())

        await wait_for(pilot, lambda: "└ exit code 0" in shown())
        text = shown()
        assert "│ hello from the demo agent" in text
        assert "│ a second line" in text
        assert "unknown" not in text.lower()  # no longer a quiet "unknown update" notice
