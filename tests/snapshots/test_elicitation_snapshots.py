"""SVG snapshots of the elicitation dialogs, against the demo agent as a real subprocess: the
form (at 80x24 and 120x40, and with its errors shown), the URL dialog (as it comes, once opened,
and for a URL that cannot be opened) and a question asked during the login, before any session.

The fixed places and helpers are those of the other snapshot modules; the dialogs take answers
at once (no quiet time) and no cursor blinks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Button, Input

from acp_tui.ui.dialogs import elicitation_url
from acp_tui.ui.dialogs.auth import AuthDialog
from acp_tui.ui.dialogs.elicitation import ElicitationDialog
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlDialog
from acp_tui.ui.widgets.form_fields import FieldRow
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.snapshots.test_browser_snapshots import Place, build_app, fixed_place
from tests.snapshots.test_chat_snapshots import Compare, app_of, ready, settle, until

SMALL = (80, 24)
LARGE = (120, 40)


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with fixed_place("elicit", monkeypatch) as fixed:
        yield fixed


@pytest.fixture(autouse=True)
def no_quiet_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ElicitationDialog, "QUIET", 0.0)


@pytest.fixture(autouse=True)
def no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    async def pretend(app: App[int], url: str) -> str | None:
        return None

    monkeypatch.setattr(elicitation_url, "open_in_browser", pretend)


async def asked(pilot: Pilot[int], prompt: str, kind: type[ElicitationDialog]) -> ElicitationDialog:
    """Send ``prompt`` and wait for its dialog, ready and still."""
    await ready(pilot)
    await pilot.press(*prompt, "enter")
    return await shown(pilot, kind)


async def shown(pilot: Pilot[int], kind: type[ElicitationDialog]) -> ElicitationDialog:
    await until(pilot, lambda: isinstance(pilot.app.screen, kind))
    dialog = pilot.app.screen
    assert isinstance(dialog, ElicitationDialog)
    await until(pilot, lambda: dialog.accepting)
    for field in dialog.query(Input):
        field.cursor_blink = False
    return dialog


def test_form_80x24(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await asked(pilot, "ask", ElicitationFormDialog)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SMALL, run_before=run)


def test_form_120x40(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await asked(pilot, "ask", ElicitationFormDialog)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=LARGE, run_before=run)


def test_form_with_errors(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    """Submitted with a required field empty and a bad ticket: nothing sent, errors shown."""

    async def run(pilot: Pilot[int]) -> None:
        dialog = await asked(pilot, "ask", ElicitationFormDialog)
        ticket = next(r for r in dialog.query(FieldRow) if r.field.name == "ticket")
        ticket.control.focus()
        await pilot.press(*"abc", "ctrl+s")
        await until(pilot, lambda: ticket.error is not None)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=LARGE, run_before=run)


def test_url_dialog(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await asked(pilot, "ask-url never", ElicitationUrlDialog)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SMALL, run_before=run)


def test_url_dialog_once_opened(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        dialog = await asked(pilot, "ask-url never", ElicitationUrlDialog)
        await pilot.press("o")
        await until(pilot, lambda: not dialog.query_one("#elicit-done", Button).disabled)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SMALL, run_before=run)


def test_url_that_cannot_be_opened(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await asked(pilot, "ask-url never javascript:alert(1)", ElicitationUrlDialog)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SMALL, run_before=run)


def test_url_that_leads_elsewhere_than_it_reads(
    snap_compare: Compare, place: Place, tmp_path: Path
) -> None:
    """A backslash: the Host line names evil.example in the error colour, nothing opens."""

    async def run(pilot: Pilot[int]) -> None:
        link = "https://evil.example\\@accounts.google.com/login"
        await asked(pilot, f"ask-url never {link}", ElicitationUrlDialog)
        await settle(pilot)

    app = build_app(place, tmp_path / "demo")
    assert snap_compare(app, terminal_size=SMALL, run_before=run)


def test_question_before_any_session(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    async def run(pilot: Pilot[int]) -> None:
        app = app_of(pilot)
        await until(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, AuthDialog)
                and pilot.app.screen.accepting
                and bool(pilot.app.screen.query(Button))
            ),
        )
        pilot.app.screen.query(Button).first().press()  # the agent's own login
        await shown(pilot, ElicitationFormDialog)
        assert app.session is None
        # No session yet, so `ready` cannot be waited for: still, no prompt cursor blinks.
        app.chat.current_pane.query_one(PromptInput).cursor_blink = False
        await settle(pilot)

    app = build_app(place, tmp_path / "demo", "--require-auth", "--auth-elicit")
    assert snap_compare(app, terminal_size=SMALL, run_before=run)
