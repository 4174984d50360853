"""SVG snapshots of the session browser, against the demo agent as a real subprocess.

As in test_chat_snapshots: everything the screen shows lives at fixed paths (a fixed project,
fixed extra roots and a fixed ACP_TUI_HOME), the cursors do not blink, and run_before waits on
predicates; only the final settle sleeps. The sessions are created through the client API before
the app starts, one fixed prompt each (which becomes the title), and the chat's own session gets
a fixed first prompt too, so that no random session id shows as an "untitled" row; rows that
show ids (the local history) show fixed ones. Relative times are frozen: the rows format
``updatedAt`` against a clock five minutes after it.

``fixed_place`` and ``build_app`` are shared with the dialog and theme snapshots. A lock file per
module keeps two runs of the same snapshots (two checkouts, two people) from clearing each
other's fixed directories.
"""

from __future__ import annotations

import fcntl
import shutil
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input

import acp_tui.client.history.session_text as session_text
import acp_tui.ui.browser.rows as rows
from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.history.recorder import SessionRecorder, agent_key_for
from acp_tui.client.history.session_text import relative_time
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import HOME_ENV, get_paths
from acp_tui.config.settings import Settings
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp
from acp_tui.store.transcripts import TranscriptCache
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.controls import RootsFilterDialog
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.widgets.root_tree import PathInput, RootTree
from tests.snapshots.test_chat_snapshots import Compare, Step, app_of, settle, turn, until

SIZE = (120, 36)


# -- shared with the other snapshot modules ------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """The fixed directories of one snapshot module: the project and two extra roots."""

    root: Path

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def lib(self) -> Path:
        return self.root / "lib"

    @property
    def sub(self) -> Path:
        return self.lib / "sub"

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def home(self) -> Path:
        """ACP_TUI_HOME: beside ``root``, so the roots dialog's tree never lists it."""
        return self.root.with_name(self.root.name + "-home")


@contextmanager
def fixed_place(name: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    """``/tmp/acp-snap-<name>`` (short: the rows show it), made afresh and locked until the end."""
    place = Place(Path(f"/tmp/acp-snap-{name}"))
    with open(f"{place.root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for directory in (place.root, place.home):
            shutil.rmtree(directory, ignore_errors=True)
        for directory in (place.project, place.sub, place.docs):
            directory.mkdir(parents=True)
        (place.project / "README.md").write_text("# Snapshot project\n\nA fixed place.\n")
        monkeypatch.setenv(HOME_ENV, str(place.home))
        yield place


def build_app(
    place: Place,
    data_dir: Path,
    *agent_args: str,
    additional: tuple[Path, ...] = (),
    settings: Settings | None = None,
) -> AcpApp:
    """The app on the demo agent (sessions kept in ``data_dir``), in the fixed project."""
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data_dir), *agent_args]
    launch = LaunchSpec(
        command=AgentCommand(argv, cwd=place.project, name="demo"),
        cwd=place.project,
        additional_directories=additional,
        display_name="demo",
        settings=settings or Settings(),
    )
    return AcpApp(launch)


# -- this module ----------------------------------------------------------------------------------


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with fixed_place("browser", monkeypatch) as fixed:
        yield fixed


@pytest.fixture(autouse=True)
def frozen_relative_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row's time reads "5 min ago", however long the test took.

    The formatters are patched where the rows look them up: ``relative_time`` and, where it
    exists, ``age_text`` (the part that compares a parsed time with "now").
    """
    real_age = getattr(session_text, "age_text", None)

    def five_minutes_later(value: str | None, now: object = None) -> str:
        when = parse_timestamp(value)
        return relative_time(value, when + timedelta(minutes=5) if when is not None else None)

    monkeypatch.setattr(rows, "relative_time", five_minutes_later)
    if real_age is not None:

        def age_five_minutes(when: datetime, now: datetime) -> str:
            return str(real_age(when, when + timedelta(minutes=5)))

        monkeypatch.setattr(session_text, "age_text", age_five_minutes)
        if hasattr(rows, "age_text"):
            monkeypatch.setattr(rows, "age_text", age_five_minutes)


@pytest.fixture(autouse=True)
def stable_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows that show session ids (the local history) show fixed ones: the demo agent's are
    random. Each id seen becomes ``demo-`` and its number in order of appearance (the rows come
    in a fixed order)."""
    real_row_content, real_distinct_prefix = rows.row_content, rows.distinct_prefix
    stable: dict[str, str] = {}

    def fixed(session_id: str) -> str:
        return stable.setdefault(session_id, f"demo-{len(stable) + 1}{'f' * 31}")

    def row_content(info: SessionInfo, *args: Any, **kwargs: Any) -> Content:
        update = {"session_id": fixed(info.session_id)}
        return real_row_content(info.model_copy(update=update), *args, **kwargs)

    def distinct_prefix(session_ids: Iterable[str], *args: Any, **kwargs: Any) -> int:
        # How much of the ids to show is worked out from the fixed ones too: from the random
        # ones, it showed one character more whenever two of them began alike.
        return real_distinct_prefix([fixed(s) for s in session_ids], *args, **kwargs)

    monkeypatch.setattr(rows, "row_content", row_content)
    monkeypatch.setattr(rows, "distinct_prefix", distinct_prefix)


Seeds = Sequence[tuple[str, tuple[Path, ...]]]


def seeds(place: Place) -> Seeds:
    """Three sessions in the project: without extra roots, with one, with two."""
    return [
        ("fix the parser", ()),
        ("write the docs", (place.docs,)),
        ("plan the release", (place.lib, place.docs)),
    ]


def seed(app: AcpApp, sessions: Seeds, *, record: bool = False) -> None:
    """Create the sessions (one prompt each) before the app starts; optionally record them."""

    async def create() -> None:
        async with connect(app.launch) as client:
            recorder = None
            if record:
                cache = TranscriptCache(get_paths().data_dir / "transcripts")
                recorder = SessionRecorder(cache, agent_key_for(app.launch))
                recorder.attach(client)
            for text, roots in sessions:
                session = await client.new_session(app.launch.cwd, roots)
                blocks = [TextContent(text=text)]
                if recorder is not None:
                    recorder.note(session, created=True)
                    recorder.record_prompt(session.session_id, blocks)
                await client.prompt(session.session_id, blocks)

    anyio.run(create)


def panel(pilot: Pilot[int]) -> SessionBrowser:
    return app_of(pilot).chat.query_one(SessionBrowser)


def steps(*parts: Step) -> Step:
    async def run(pilot: Pilot[int]) -> None:
        for part in parts:
            await part(pilot)

    return run


def open_browser(count: int, presses: int = 1) -> Step:
    """Ctrl+B ``presses`` times, once ``count`` sessions are listed and nothing is in flight."""

    async def run(pilot: Pilot[int]) -> None:
        await turn("current work")(pilot)  # the chat's session gets a title, and a row
        await app_of(pilot).chat.open_browser()  # mounted, still hidden: Ctrl+B shows it
        browser = panel(pilot)
        browser.query_one("#browser-search", Input).cursor_blink = False
        await pilot.press("ctrl+b")
        await until(
            pilot,
            lambda: (
                browser.inflight is None
                and browser.lister.exhausted
                and len(browser.lister.rows) == count
            ),
        )
        for _ in range(presses - 1):
            await pilot.press("ctrl+b")

    return run


async def final(pilot: Pilot[int]) -> None:
    await settle(pilot)


def check(snap_compare: Compare, app: AcpApp, *parts: Step) -> bool:
    result: bool = snap_compare(app, terminal_size=SIZE, run_before=steps(*parts, final))
    return result


def test_browser_narrow(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))
    assert check(snap_compare, app, open_browser(4))


def test_browser_wide(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))
    assert check(snap_compare, app, open_browser(4, presses=2))


def searched(browser: SessionBrowser, text: str, count: int) -> bool:
    """The browser shows what its search for ``text`` found, ``count`` sessions, and the
    agent's listing for the search is over."""
    search, listing = browser.search, browser.search.listing
    return (
        search.searcher.text == text
        and not search.searcher.pending
        and search.found is not None
        and len(search.found.hits) == count
        and listing is not None
        and listing.state in ("done", "failed")
    )


def test_browser_text_search(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))

    async def search(pilot: Pilot[int]) -> None:
        browser = panel(pilot)
        await pilot.press("slash", *"the")
        await until(pilot, lambda: searched(browser, "the", 3))
        await pilot.press(*" parser")
        await until(pilot, lambda: searched(browser, "the parser", 1))

    assert check(snap_compare, app, open_browser(4), search)


def test_browser_delete_two_marked(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))

    async def delete(pilot: Pilot[int]) -> None:
        await pilot.press("down", "space", "down", "space")
        await until(pilot, lambda: len(panel(pilot).rows.marked) == 2)
        await pilot.press("d")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))

    assert check(snap_compare, app, open_browser(4), delete)


def test_browser_actions_unavailable(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo", "--capabilities", "list")
    seed(app, [("listed only", ()), ("also listed", ())])

    async def delete(pilot: Pilot[int]) -> None:
        await pilot.press("d")  # refused: the status line says why
        await until(
            pilot,
            lambda: "session/delete" in str(panel(pilot).query_one("#browser-status").render()),
        )

    assert check(snap_compare, app, open_browser(3), delete)


def test_browser_local_history(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo", "--capabilities", "load")
    seed(app, [("from an earlier run", ()), ("from the run before", ())], record=True)
    assert check(snap_compare, app, open_browser(3))


def test_browser_bad_cursor_error_row(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))

    async def bad_cursor(pilot: Pilot[int]) -> None:
        browser = panel(pilot)
        browser.lister.exhausted = False  # as if a next page had been announced…
        browser.lister.next_cursor = "not-a-cursor"  # …with a cursor the agent does not know
        browser.request_page()
        await until(pilot, lambda: browser.lister.error is not None and browser.inflight is None)

    assert check(snap_compare, app, open_browser(4), bad_cursor)


async def open_roots_filter(pilot: Pilot[int]) -> None:
    await pilot.press("e")
    await until(pilot, lambda: isinstance(pilot.app.screen, RootsFilterDialog))
    dialog = pilot.app.screen
    assert isinstance(dialog, RootsDialog)
    dialog.query_one(PathInput).cursor_blink = False
    tree = dialog.query_one(RootTree)
    await until(pilot, lambda: len(tree.root.children) == 3)  # docs, lib, project


def test_browser_roots_filter_dialog(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))

    async def choose(pilot: Pilot[int]) -> None:
        await open_roots_filter(pilot)
        await pilot.press(*str(place.lib), "enter")
        await until(
            pilot, lambda: "Added" in str(pilot.app.screen.query_one("#roots-message").render())
        )

    assert check(snap_compare, app, open_browser(4), choose)


def test_browser_filtered_by_roots(snap_compare: Compare, place: Place, tmp_path: Path) -> None:
    app = build_app(place, tmp_path / "demo")
    seed(app, seeds(place))

    async def filtered(pilot: Pilot[int]) -> None:
        await open_roots_filter(pilot)
        await pilot.press(*str(place.lib), "enter", *str(place.docs), "enter")
        await pilot.click("#roots-ok")
        browser = panel(pilot)
        await until(
            pilot,
            lambda: (
                browser.lister.additional_directories == (place.lib, place.docs)
                and browser.lister.exhausted
                and browser.inflight is None
            ),
        )

    assert check(snap_compare, app, open_browser(4), filtered)
