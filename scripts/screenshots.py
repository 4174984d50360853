"""Generates the README's screenshots: the real app, driven against the bundled demo agent.

    python scripts/screenshots.py [--out screenshots] [--only NAME]...

Each screenshot runs `AcpApp` (built the way the snapshot tests build it) with the demo agent as
a real subprocess, in a throwaway ACP_TUI_HOME and a project at a fixed path, so the paths on
screen are the same on every run. Pilot steps wait on predicates (never on sleeps), then the
screen is saved as SVG. Output: chat-streaming, chat-diff, chat-permission, browser,
roots-dialog, add-agent-dialog, and theme-<name> for each packaged theme. The add-agent dialog
reads `registry-sample.json` beside this script (a few entries in the registry's format, written
by hand; nothing is fetched).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from textual.pilot import Pilot

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from acp_tui.client.agent.agent_client import connect  # noqa: E402
from acp_tui.client.agent.launch import LaunchSpec  # noqa: E402
from acp_tui.client.process.command import AgentCommand  # noqa: E402
from acp_tui.client.session.entries import MessageEntry  # noqa: E402
from acp_tui.config.paths import HOME_ENV, Paths  # noqa: E402
from acp_tui.config.settings import Settings  # noqa: E402
from acp_tui.protocol.content import TextContent  # noqa: E402
from acp_tui.store.recent_roots import recent_roots_for_project  # noqa: E402
from acp_tui.ui.app import AcpApp  # noqa: E402
from acp_tui.ui.browser.panel import SessionBrowser  # noqa: E402
from acp_tui.ui.dialogs.add_agent import AddAgentDialog  # noqa: E402
from acp_tui.ui.dialogs.permission import PermissionDialog  # noqa: E402
from acp_tui.ui.dialogs.roots import RootsDialog  # noqa: E402
from acp_tui.ui.themes import load_themes, packaged_themes_dir  # noqa: E402
from acp_tui.ui.widgets.prompt_input import PromptInput  # noqa: E402
from acp_tui.ui.widgets.root_tree import PathInput  # noqa: E402

SIZE = (120, 36)
PLACE = Path("/tmp/acp-tui-screenshots")
"""A fixed place, so the paths shown (status line, tool calls, browser rows) never change."""
PROJECT = PLACE / "weather-app"

Step = Callable[[Pilot[int]], Awaitable[None]]

# Prompts without demo-agent keywords, so the agent echoes them and titles the session after them.
BROWSER_PROMPTS = [
    "Why does the forecast page show yesterday's date?",
    "Add type hints to the station parser",
    "Summarise the open issues about flaky tests",
]


def packaged_theme_names() -> list[str]:
    directory = packaged_themes_dir()
    if directory is None:
        raise SystemExit("no packaged themes directory found")
    themes, problems = load_themes([directory])
    if problems:
        raise SystemExit("\n".join(problems))
    return sorted(theme.name for theme in themes)


def prepare_place() -> None:
    """The project and its neighbours (the candidates for extra roots), afresh."""
    shutil.rmtree(PLACE, ignore_errors=True)
    (PROJECT / "src").mkdir(parents=True)
    (PROJECT / "README.md").write_text("# weather-app\n\nForecasts from the station feed.\n")
    (PROJECT / "hello.py").write_text('def greet():\n    print("Hello, world!")\n')
    (PROJECT / "src" / "stations.py").write_text("STATIONS: dict[str, str] = {}\n")
    for neighbour in ("shared-lib", "design-docs", "vendored-sdk"):
        (PLACE / neighbour).mkdir()


def make_app(home: Path, *, theme: str | None = None, roots: tuple[Path, ...] = ()) -> AcpApp:
    """The app as the CLI builds it, on the demo agent (its sessions kept under ``home``)."""
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(home / "demo-agent")]
    settings = Settings(theme=theme) if theme is not None else Settings()
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=PROJECT, name="demo"),
        cwd=PROJECT,
        additional_directories=roots,
        is_demo=True,
        display_name="demo",
        settings=settings,
    )
    return AcpApp(launch)


# -- steps ------------------------------------------------------------------------------------


def app_of(pilot: Pilot[int]) -> AcpApp:
    app = pilot.app
    assert isinstance(app, AcpApp)
    return app


async def until(pilot: Pilot[int], predicate: Callable[[], bool], seconds: float = 30) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await pilot.pause(0.02)


async def ready(pilot: Pilot[int]) -> None:
    """The session is open and the prompt's cursor holds still."""
    app = app_of(pilot)
    await until(pilot, lambda: app.session is not None)
    app.chat.current_pane.query_one(PromptInput).cursor_blink = False


async def settle(pilot: Pilot[int]) -> None:
    """Let the transcript view flush and the screen repaint."""
    from acp_tui.ui.transcript.view import TranscriptView

    view = app_of(pilot).chat.current_pane.query_one(TranscriptView)
    await until(pilot, lambda: view.settled)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    await pilot.pause()


async def send(pilot: Pilot[int], prompt: str) -> None:
    await pilot.press(*prompt, "enter")


async def turn(pilot: Pilot[int], prompt: str) -> None:
    """Send ``prompt`` (the session's first) and wait for the turn to end."""
    app = app_of(pilot)
    await ready(pilot)
    await send(pilot, prompt)
    await until(
        pilot,
        lambda: (
            app.session is not None
            and app.session.transcript.stop_reason is not None
            and not app.session.prompt_pending
        ),
    )
    await settle(pilot)


def agent_text(app: AcpApp) -> str:
    if app.session is None:
        return ""
    replies = [e for e in app.session.transcript.entries if isinstance(e, MessageEntry)]
    return replies[-1].text if replies and replies[-1].role == "agent" else ""


async def streaming(pilot: Pilot[int]) -> None:
    """Mid-turn: thoughts, a plan in progress and half of a markdown reply."""
    app = app_of(pilot)
    await ready(pilot)
    await send(pilot, "think plan slow markdown")
    await until(pilot, lambda: "step 1 of" in agent_text(app))  # past the code block
    assert app.session is not None
    assert app.session.transcript.state == "running", "the reply ended before the screenshot"
    await settle(pilot)


async def diff(pilot: Pilot[int]) -> None:
    await turn(pilot, "diff")


async def permission(pilot: Pilot[int]) -> None:
    await ready(pilot)
    await send(pilot, "permission")
    await until(pilot, lambda: isinstance(pilot.app.screen, PermissionDialog))
    await until(pilot, lambda: getattr(pilot.app.screen, "accepting", False))
    await settle(pilot)


async def browser(pilot: Pilot[int]) -> None:
    """Earlier sessions listed beside the chat, the browser opened wide."""
    app = app_of(pilot)
    await turn(pilot, "Rename the forecast cache module")
    await pilot.press("ctrl+b", "ctrl+b")
    panel = app.chat.query_one(SessionBrowser)
    expected = len(BROWSER_PROMPTS) + 2  # the seeded ones, the one with roots, the chat's own
    await until(
        pilot,
        lambda: (
            panel.width == "wide"
            and panel.inflight is None
            and not panel.lister.loading
            and len(panel.lister.visible()) >= expected
        ),
    )
    await pilot.press("down")
    await settle(pilot)


async def roots_dialog(pilot: Pilot[int]) -> None:
    """Ctrl+N with one root from the command line and one typed (relative) in the dialog."""
    await ready(pilot)
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(pilot.app.screen, RootsDialog))
    dialog = pilot.app.screen
    assert isinstance(dialog, RootsDialog)
    await until(pilot, lambda: dialog.focused is not None)
    dialog.query_one(PathInput).cursor_blink = False
    await pilot.press(*"../design-docs", "enter")
    await until(pilot, lambda: len(dialog.entries) == 2)
    await settle(pilot)


async def add_agent_dialog(pilot: Pilot[int]) -> None:
    """The "Add an agent" dialog over the chat, a binary agent highlighted."""
    from textual.widgets import Input, OptionList

    app = app_of(pilot)
    await ready(pilot)
    sample = PLACE / "registry.json"  # a fixed place, so the URL shown never changes
    shutil.copyfile(REPO / "scripts" / "registry-sample.json", sample)

    def with_npx(name: str) -> str | None:
        return "/usr/bin/npx" if name == "npx" else None

    paths = Paths.under(PLACE / "acp-home")  # the same paths in the table on every run
    dialog = AddAgentDialog(sample.as_uri(), paths, platform="linux-x86_64", which=with_npx)
    app.push_screen(dialog)
    await until(pilot, lambda: dialog.is_mounted and dialog.entries != [])
    dialog.query_one(Input).cursor_blink = False
    dialog.query_one(OptionList).highlighted = 1  # Codex CLI, a binary
    await settle(pilot)


async def themed(pilot: Pilot[int]) -> None:
    await turn(pilot, "markdown diff")


async def seed_sessions(home: Path) -> None:
    """Earlier sessions for the browser: one prompt each (which becomes the title)."""
    app = make_app(home)  # only for its launch spec: the app itself is not run here
    async with connect(app.launch) as client:
        for text in BROWSER_PROMPTS:
            session = await client.new_session(PROJECT)
            await client.prompt(session.session_id, [TextContent(text=text)])
        session = await client.new_session(PROJECT, [PLACE / "shared-lib"])
        text = "Share the unit conversions with shared-lib"
        await client.prompt(session.session_id, [TextContent(text=text)])


# -- running ------------------------------------------------------------------------------------


async def shoot(
    name: str,
    out: Path,
    step: Step,
    *,
    theme: str | None = None,
    roots: tuple[Path, ...] = (),
    size: tuple[int, int] = SIZE,
) -> Path:
    home = Path(tempfile.mkdtemp(prefix="acp-tui-home-"))
    os.environ[HOME_ENV] = str(home)
    try:
        prepare_place()
        if name == "browser":
            await seed_sessions(home)
        if name == "roots-dialog":  # a root used by an earlier session of the project
            recent_roots_for_project(PROJECT, Paths.under(home)).record([PLACE / "vendored-sdk"])
        app = make_app(home, theme=theme, roots=roots)
        async with app.run_test(size=size) as pilot:
            await step(pilot)
            path = Path(app.save_screenshot(filename=f"{name}.svg", path=str(out)))
        return path
    finally:
        shutil.rmtree(home, ignore_errors=True)


def shots() -> dict[str, Callable[[Path], Awaitable[Path]]]:
    table: dict[str, Callable[[Path], Awaitable[Path]]] = {
        "chat-streaming": lambda out: shoot("chat-streaming", out, streaming),
        "chat-diff": lambda out: shoot("chat-diff", out, diff),
        "chat-permission": lambda out: shoot("chat-permission", out, permission),
        "browser": lambda out: shoot("browser", out, browser),
        "roots-dialog": lambda out: shoot(
            "roots-dialog", out, roots_dialog, roots=(PLACE / "shared-lib",)
        ),
        "add-agent-dialog": lambda out: shoot(
            "add-agent-dialog", out, add_agent_dialog, size=(120, 44)
        ),
    }
    for theme in packaged_theme_names():
        table[f"theme-{theme}"] = themed_shot(theme)
    return table


def themed_shot(theme: str) -> Callable[[Path], Awaitable[Path]]:
    return lambda out: shoot(f"theme-{theme}", out, themed, theme=theme)


async def run(out: Path, only: list[str] | None) -> None:
    table = shots()
    unknown = sorted(set(only or []) - set(table))
    if unknown:
        raise SystemExit(f"unknown screenshot(s): {', '.join(unknown)} (known: {', '.join(table)})")
    for name in only or list(table):
        path = await table[name](out)
        print(path, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots", help="output directory")
    parser.add_argument("--only", action="append", metavar="NAME", help="just this screenshot")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    try:
        anyio.run(run, out, args.only)
    finally:
        shutil.rmtree(PLACE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
