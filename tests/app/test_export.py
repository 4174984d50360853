"""The export dialog: it picks an absolute path, validates it, and the export holds the turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import Button, Input, Static

from acp_tui.client.session.export import default_export_path, transcript_to_markdown, write_export
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.export import ExportDialog
from tests.app.helpers import wait_for

Results = list[Path | None]


def open_dialog(app: App[Any], dialog: ExportDialog) -> Results:
    results: Results = []
    app.push_screen(dialog, callback=results.append)
    return results


def ready(dialog: ExportDialog) -> bool:
    """Composed, mounted and with the path input focused."""
    inputs = dialog.query(Input)
    return bool(inputs) and inputs.first().has_focus


def message(dialog: ExportDialog) -> str:
    return str(dialog.query_one("#export-message", Static).render())


async def test_export_after_a_turn_writes_the_conversation(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        session = app.session
        assert session is not None
        await pilot.press(*"hello export", "enter")
        await wait_for(
            pilot, lambda: session.transcript.state == "idle" and len(session.transcript) >= 2
        )
        cwd = app.launch.cwd
        default = default_export_path(cwd, session.transcript.title, session.session_id)
        dialog = ExportDialog(default, cwd=cwd)
        results = open_dialog(app, dialog)
        await wait_for(pilot, lambda: ready(dialog))
        assert dialog.query_one(Input).value == str(default)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(results))
        assert results == [default]
        assert not default.exists()  # the dialog only chooses
        chosen = results[0]
        assert chosen is not None
        agent_name = app.slot.agent.display_name if app.slot else ""
        write_export(
            chosen,
            transcript_to_markdown(
                session.transcript,
                agent=agent_name,
                cwd=str(cwd),
            ),
        )
        text = chosen.read_text()
        assert "**You:**\n\n> hello export" in text
        assert "You said" in text
        assert f"`{cwd}`" in text


class Host(App[int]):
    pass


async def test_the_default_export_works_on_a_fresh_install(
    make_app: Callable[..., AcpApp],
) -> None:
    """Ctrl+S then Enter: acp-tui's own exports folder does not exist yet; it is made."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        session = app.session
        assert session is not None
        await pilot.press(*"hello export", "enter")
        await wait_for(
            pilot, lambda: session.transcript.state == "idle" and len(session.transcript) >= 2
        )
        assert app.slot is not None
        exports = app.slot.agent.paths.data_dir / "exports"
        assert not exports.exists()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportDialog))
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        await wait_for(pilot, lambda: ready(dialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: exports.is_dir() and any(exports.iterdir()))
        (written,) = exports.iterdir()
        assert "hello export" in written.read_text()


async def test_relative_path_is_resolved_against_cwd(tmp_path: Path) -> None:
    app = Host()
    async with app.run_test() as pilot:
        dialog = ExportDialog(tmp_path / "x.md", cwd=tmp_path)
        results = open_dialog(app, dialog)
        await wait_for(pilot, lambda: ready(dialog))
        dialog.query_one(Input).value = "sub/../notes.md"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(results))
        assert results == [tmp_path / "notes.md"]


async def test_missing_folder_is_an_inline_error(tmp_path: Path) -> None:
    app = Host()
    async with app.run_test() as pilot:
        dialog = ExportDialog(tmp_path / "nope" / "x.md", cwd=tmp_path)
        results = open_dialog(app, dialog)
        await wait_for(pilot, lambda: ready(dialog))
        await pilot.press("enter")
        await pilot.pause()
        assert not results
        assert "does not exist" in message(dialog)
        assert dialog.query_one("#export-message").has_class("-error")
        dialog.query_one(Input).value = str(tmp_path)
        await pilot.click("#export-save")
        await pilot.pause()
        assert "is a folder" in message(dialog)
        assert not results


async def test_existing_file_needs_a_second_save(tmp_path: Path) -> None:
    existing = tmp_path / "taken.md"
    existing.write_text("keep me")
    app = Host()
    async with app.run_test() as pilot:
        dialog = ExportDialog(existing, cwd=tmp_path)
        results = open_dialog(app, dialog)
        await wait_for(pilot, lambda: ready(dialog))
        await pilot.press("enter")
        await pilot.pause()
        assert not results
        assert "exists" in message(dialog)
        assert str(dialog.query_one("#export-save", Button).label) == "Overwrite"
        # Editing the path drops the confirmation.
        await pilot.press("end", "x", "backspace")
        await pilot.pause()
        assert dialog.confirming is None
        assert dialog.query_one(Input).value == str(existing)
        await pilot.press("enter")
        await pilot.pause()
        assert not results
        assert dialog.confirming == existing
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(results))
        assert results == [existing]
        assert existing.read_text() == "keep me"


async def test_escape_and_cancel_return_none(tmp_path: Path) -> None:
    app = Host()
    async with app.run_test() as pilot:
        dialog = ExportDialog(tmp_path / "a.md", cwd=tmp_path)
        results = open_dialog(app, dialog)
        await wait_for(pilot, lambda: ready(dialog))
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(results))
        dialog = ExportDialog(tmp_path / "a.md", cwd=tmp_path)
        app.push_screen(dialog, callback=results.append)
        await wait_for(pilot, lambda: ready(dialog))
        await pilot.click("#export-cancel")
        await wait_for(pilot, lambda: len(results) == 2)
        assert results == [None, None]
