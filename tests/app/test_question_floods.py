"""A flood of the agent's questions: one key refuses all of them (those waiting and those still
coming in the turn), and past a limit the rest are refused as they come; both say so in one note
in the transcript, counted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from acp_tui.client.session.entries import NoticeEntry
from acp_tui.client.workspace import questions
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.dialogs.question import AgentQuestion
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_permission import agent_text, permissions, start


def notes(app: AcpApp) -> list[str]:
    assert app.session is not None
    return [e.text for e in app.session.transcript.entries if isinstance(e, NoticeEntry)]


def answers(app: AcpApp) -> set[str]:
    """The agent's list of the answers it got (in the order they came: refusals may come in
    any order)."""
    said = agent_text(app).split("Answers in the order they came: ")[-1].rstrip(".")
    return set(said.split(", "))


def turn_over(app: AcpApp) -> bool:
    return app.session is not None and not app.session.prompt_pending


@pytest.fixture(autouse=True)
def no_quiet_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AgentQuestion, "QUIET", 0.0)


async def test_one_key_refuses_every_question_of_the_flood(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "permission-flood 30")
        first = await wait_for_screen(pilot, PermissionDialog)
        await wait_for(pilot, lambda: permissions(app).pending == 30 and first.accepting)
        assert "Ctrl+R refuses all" in str(first.query_one("#permission-waiting").render())
        await pilot.press(AgentQuestion.REFUSE_ALL_KEY)
        await wait_for(pilot, lambda: turn_over(app))
        assert not isinstance(app.screen, PermissionDialog)
        assert answers(app) == {f"{n}: reject-once" for n in range(1, 31)}
        assert (
            "Refused 30 questions of acp-tui demo agent: you refused all its questions."
            in notes(app)
        )
        assert permissions(app).pending == 0
        # Once the turn is over, the agent's questions are asked again.
        await pilot.press(*"permission-flood 2", "enter")
        await wait_for_screen(pilot, PermissionDialog)


async def test_past_the_limit_the_rest_is_refused_with_a_note(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(questions, "LIMIT", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "permission-flood 10")
        await wait_for(pilot, lambda: "questions of acp-tui demo agent" in " ".join(notes(app)))
        for _ in range(4):
            dialog = await wait_for_screen(pilot, PermissionDialog)
            await wait_for(pilot, lambda shown=dialog: shown.accepting)  # type: ignore[misc]
            await pilot.press("a")
            await wait_for(pilot, lambda shown=dialog: app.screen is not shown)  # type: ignore[misc]
        await wait_for(pilot, lambda: turn_over(app))
        assert answers(app) == {f"{n}: allow-once" for n in range(1, 5)} | {
            f"{n}: reject-once" for n in range(5, 11)
        }
        refused = [n for n in notes(app) if n.startswith("Refused")]
        assert refused == [
            "Refused 6 questions of acp-tui demo agent: it asked more than 4 at once."
        ]


async def test_a_flood_of_forms_is_declined_with_one_key(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "ask-flood 12")
        first = await wait_for_screen(pilot, ElicitationFormDialog)
        await wait_for(pilot, lambda: permissions(app).pending == 12 and first.accepting)
        await pilot.press(AgentQuestion.REFUSE_ALL_KEY)
        await wait_for(pilot, lambda: turn_over(app))
        assert not isinstance(app.screen, ElicitationFormDialog)
        assert answers(app) == {f"{n}: decline" for n in range(1, 13)}
        assert (
            "Refused 12 questions of acp-tui demo agent: you refused all its questions."
            in notes(app)
        )


async def test_a_question_refused_as_it_comes_is_answered_without_being_served(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each question refused past the limit still cost a task, its cancel scopes and two
    changes of the turn's state: a flood of 10,000 spent most of its time there. It is
    answered in the read loop's step now, as its refusal would have been, and counted."""
    from acp_tui.protocol.connection import Connection

    served: list[str] = []
    serve = Connection._serve_request

    async def counted(self: Connection, message: Any) -> None:
        served.append(message.method)
        await serve(self, message)

    monkeypatch.setattr(Connection, "_serve_request", counted)
    monkeypatch.setattr(questions, "LIMIT", 4)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot, app, "permission-flood 40")
        await wait_for(pilot, lambda: "questions of acp-tui demo agent" in " ".join(notes(app)))
        for _ in range(4):
            dialog = await wait_for_screen(pilot, PermissionDialog)
            await wait_for(pilot, lambda shown=dialog: shown.accepting)  # type: ignore[misc]
            await pilot.press("r")
            await wait_for(pilot, lambda shown=dialog: app.screen is not shown)  # type: ignore[misc]
        await wait_for(pilot, lambda: turn_over(app))
        assert answers(app) == {f"{n}: reject-once" for n in range(1, 41)}
        # Those read before the first ones were asked are served (and refused there); once
        # four wait, the rest are answered as they are read.
        assert served.count("session/request_permission") < 40
        refused = [n for n in notes(app) if n.startswith("Refused")]
        assert refused == [
            "Refused 36 questions of acp-tui demo agent: it asked more than 4 at once."
        ]
