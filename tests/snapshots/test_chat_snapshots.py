"""SVG snapshots of every visual state of the chat, against the demo agent as a real subprocess.

The project lives at a fixed path so that the paths the status line and tool calls show are
the same on every run. Update with `pytest tests/snapshots --snapshot-update` and review the
SVGs (snapshot_report.html shows the differences).
"""

from __future__ import annotations

import fcntl
import shutil
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import HOME_ENV
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.auth import AuthDialog
from acp_tui.ui.dialogs.export import ExportDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.dialogs.terminal import TerminalDialog
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.app.helpers import wait_for

SIZE = (110, 34)
PROJECT = Path("/tmp/acp-tui-snapshots/project")

Compare = Callable[..., bool]
Step = Callable[[Pilot[int]], Awaitable[None]]


@pytest.fixture
def make_snapshot_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., AcpApp]]:
    """Apps in the fixed project, made afresh; the folder is locked until the test ends (the
    screens show its path, so a test on another worker, or in another run of the suite, waits
    for it rather than have it deleted under its feet)."""
    with open(f"{PROJECT.parent}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(PROJECT.parent, ignore_errors=True)
        PROJECT.mkdir(parents=True)
        monkeypatch.setenv(HOME_ENV, str(PROJECT.parent / "home"))  # paths shown stay the same
        (PROJECT / "README.md").write_text("# Snapshot project\n\nA fixed place for snapshots.\n")

        def build(*agent_args: str) -> AcpApp:
            argv = [
                sys.executable,
                "-m",
                "acp_tui.demo_agent",
                "--data-dir",
                str(tmp_path / "demo"),
            ]
            launch = LaunchSpec(
                command=AgentCommand([*argv, *agent_args], cwd=PROJECT, name="demo"),
                cwd=PROJECT,
                display_name="demo",
            )
            return AcpApp(launch)

        yield build


async def until(pilot: Pilot[int], predicate: Callable[[], bool], seconds: float = 20) -> None:
    await wait_for(pilot, predicate, seconds)


def app_of(pilot: Pilot[int]) -> AcpApp:
    app = pilot.app
    assert isinstance(app, AcpApp)
    return app


async def ready(pilot: Pilot[int]) -> None:
    app = app_of(pilot)
    await until(pilot, lambda: app.session is not None)
    app.chat.current_pane.query_one(PromptInput).cursor_blink = False


async def steady_prompt(pilot: Pilot[int]) -> None:
    """Stop the prompt's cursor blinking: under a dialog, whether the screenshot shows it would
    depend on the moment it is taken."""
    app = app_of(pilot)
    await until(pilot, lambda: bool(app.chat.query(PromptInput)))
    app.chat.current_pane.query_one(PromptInput).cursor_blink = False


async def settle(pilot: Pilot[int]) -> None:
    """Let the transcript view flush and the screen repaint."""
    await pilot.pause(0.2)
    await pilot.wait_for_scheduled_animations()


def turn(prompt: str) -> Step:
    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        app = app_of(pilot)
        await pilot.press(*prompt, "enter")
        await until(
            pilot,
            lambda: app.session is not None and app.session.transcript.stop_reason is not None,
        )
        await settle(pilot)

    return run


def test_chat_markdown_reply(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=turn("markdown"))


def test_tool_call_with_diff(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=turn("diff"))


def test_thought_and_plan(snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]) -> None:
    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=turn("think plan"))


def test_terminal_output(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TerminalDialog, "QUIET", 0.0)

    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        app = app_of(pilot)
        await pilot.press(*"terminal", "enter")
        await until(pilot, lambda: isinstance(app.screen, TerminalDialog))
        await pilot.pause()
        await pilot.press("a")  # allow once
        await until(
            pilot,
            lambda: app.session is not None and app.session.transcript.stop_reason is not None,
        )
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=run)


def test_markup_and_escapes_shown_literally(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    prompt = "[bold]not bold[/bold] [@click=app.quit]x[/] \x1b[31mred?"
    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=turn(prompt))


def test_permission_dialog(snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        await pilot.press(*"permission", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, PermissionDialog))
        await until(pilot, lambda: getattr(pilot.app.screen, "accepting", False))
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=run)


def test_cancelled_turn(snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        app = app_of(pilot)
        await pilot.press(*"hang", "enter")
        await until(pilot, lambda: app.session is not None and app.session.prompt_pending)
        await pilot.press("escape")
        await until(
            pilot,
            lambda: app.session is not None and app.session.transcript.stop_reason == "cancelled",
        )
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=run)


def test_agent_crash_mid_turn(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        app = app_of(pilot)
        await pilot.press(*"crash", "enter")
        await until(pilot, lambda: "exited" in app.chat.agent_status)
        app.chat.current_pane.query_one(PromptInput).insert("a draft that survives")
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=run)


def test_command_completion(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await ready(pilot)
        app = app_of(pilot)
        await until(
            pilot, lambda: app.session is not None and bool(app.session.transcript.commands)
        )
        await pilot.press("slash")
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=run)


def test_auth_dialog(snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, AuthDialog))
        await until(pilot, lambda: getattr(pilot.app.screen, "accepting", False))
        await steady_prompt(pilot)
        await settle(pilot)

    assert snap_compare(make_snapshot_app("--require-auth"), terminal_size=SIZE, run_before=run)


def test_export_dialog(snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]) -> None:
    async def run(pilot: Pilot[int]) -> None:
        await turn("hello")(pilot)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, ExportDialog))
        # The path field has the focus: its cursor's blink made the screenshot vary.
        pilot.app.screen.query_one("#export-path", Input).cursor_blink = False
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=SIZE, run_before=run)


def test_agent_still_starting(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    async def run(pilot: Pilot[int]) -> None:
        app = app_of(pilot)
        await until(pilot, lambda: bool(app.chat.query(PromptInput)))
        app.chat.current_pane.query_one(PromptInput).cursor_blink = False
        await pilot.press(*"typed while starting")
        await settle(pilot)

    assert snap_compare(
        make_snapshot_app("--fault", "hang-initialize"), terminal_size=SIZE, run_before=run
    )


def test_notices_image_and_tool_name(
    snap_compare: Compare, make_snapshot_app: Callable[..., AcpApp]
) -> None:
    """Notice toasts by severity, an image from the agent as a placeholder, a tool's name.

    (On a screen this tall: toasts take at most a third of it, and three fit.)"""
    run = turn("image notice")

    async def steps(pilot: Pilot[int]) -> None:
        await run(pilot)
        await until(pilot, lambda: len(app_of(pilot)._notifications) == 3)
        await settle(pilot)

    assert snap_compare(make_snapshot_app(), terminal_size=(110, 48), run_before=steps)
