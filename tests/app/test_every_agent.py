"""The every-agent view: every configured agent's sessions merged from the history library at
once, each agent listed in the background with its status, search over all of them, and a row
opened in a tab with its own agent."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from acp_tui.client.history.recorder import agent_key_for
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.library import Library, LibraryRow
from acp_tui.store.library import worker as library_worker
from acp_tui.store.library.catchup import Step
from acp_tui.store.transcripts import TranscriptCache
from acp_tui.ui.app import AcpApp
from acp_tui.ui.library.opening import agent_launches
from acp_tui.ui.library.screen import LibraryScreen
from tests.app.helpers import wait_for_screen
from tests.app.test_app_smoke import wait_for
from tests.unit.library.helpers import AGENT, turn
from tests.unit.test_cli_all_agents import seed

SIZE = (140, 40)
GONE = ["/nonexistent/acp-agent-xyz"]
MARK = re.compile(r"listed (\d+[dhm] ago|just now)")


def demo(data: Path) -> AgentConfig:
    return AgentConfig(
        command=sys.executable, args=["-m", "acp_tui.demo_agent", "--data-dir", str(data)]
    )


def options(screen: LibraryScreen) -> list[str]:
    listed = screen.query_one(OptionList)
    return [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]


def status(screen: LibraryScreen) -> str:
    return str(screen.query_one("#library-status", Static).render())


async def test_every_agent_merged_listed_searched_and_opened(
    make_app: Callable[..., AcpApp], tmp_path: Path, project: Path
) -> None:
    seed(tmp_path / "a", [("alpha-0001", str(project), "2024-03-01T00:00:00Z")])
    seed(tmp_path / "b", [("beta-0001", str(project), "2024-02-01T00:00:00Z")])
    settings = Settings(
        agents={
            "alpha": demo(tmp_path / "a"),
            "beta": demo(tmp_path / "b"),
            "gone": AgentConfig(command=GONE[0]),
        }
    )
    app = make_app()
    app.launch = replace(app.launch, settings=settings)
    launches = agent_launches(app.launch, get_paths())
    keys = {name: agent_key_for(launch) for name, launch in launches.items()}
    assert set(keys) == {"alpha", "beta", "gone", "demo"}

    # What the library knew before: a session of "gone", listed a day ago.
    before = Library.under(get_paths().data_dir)
    before.start()
    old = SessionInfo(session_id="g-1", cwd=str(project), title="gone lighthouse")
    old = old.model_copy(update={"updated_at": "2024-01-01T00:00:00Z"})
    before.record_page(keys["gone"], [old], agent_name="gone", listed_at=1.0).result(30)
    before.close()

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        app.action_every_agent()
        screen = await wait_for_screen(pilot, LibraryScreen)

        def settled() -> bool:
            states = {s.name: s.state for s in screen.statuses.values()}
            wanted = {"alpha": "done", "beta": "done", "gone": "failed"}
            return all(states.get(name) == state for name, state in wanted.items())

        await wait_for(pilot, settled, seconds=60)
        await wait_for(pilot, lambda: any("[beta]" in o for o in options(screen)))
        shown = options(screen)
        alpha, beta, gone = (
            next(i for i, o in enumerate(shown) if f"[{name}]" in o)
            for name in ("alpha", "beta", "gone")
        )
        assert alpha < beta < gone  # newest first, whatever the agent
        assert MARK.search(shown[gone])  # not listed here: when it last was
        assert not MARK.search(shown[alpha])
        assert "gone: failed:" in status(screen)
        assert "alpha: 1 new" in status(screen)

        while screen.agent != keys["beta"]:  # Ctrl+G: the next agent
            await pilot.press("ctrl+g")
        only_beta = lambda: bool(options(screen)) and all("[beta]" in o for o in options(screen))  # noqa: E731
        await wait_for(pilot, only_beta)
        assert "beta ·" in str(screen.query_one("#library-filters", Static).render())
        while screen.agent is not None:
            await pilot.press("ctrl+g")
        await pilot.press("ctrl+t")  # exactly the tab's extra roots: none
        assert screen.dirs == ()
        await pilot.press("ctrl+o")  # all directories
        assert screen.cwd is None
        await wait_for(pilot, lambda: any("[beta]" in o for o in options(screen)))

        screen.query_one(Input).value = "lighthouse"
        await wait_for(pilot, lambda: screen.searching and len(screen.hits) == 1)
        assert screen.hits[0].row.session_id == "g-1"
        screen.query_one(Input).value = "alpha-000"
        await wait_for(pilot, lambda: [h.row.session_id for h in screen.hits] == ["alpha-0001"])

        screen.query_one(Input).focus()
        await pilot.press("enter")
        assert app.workspace is not None
        await wait_for(pilot, lambda: app.slot is not None and app.slot.session_id == "alpha-0001")
        assert app.slot is not None
        assert app.slot.agent.key == keys["alpha"]


def test_rows_and_snippets_show_hostile_text_literally() -> None:
    from acp_tui.store.library import LibraryRow, Snippet
    from acp_tui.ui.library.rows import row_content, snippet_content

    row = LibraryRow(
        agent_key='["evil"]',
        agent_name="[b]evil[/b]",
        session_id="s-1",
        cwd="/w\x1b]0;pwned\x07",
        additional_directories=(),
        title="[@click=app.quit]Quit[/] \x1b[2J" + "x" * 100_000,
        agent_title=None,
        local_title=None,
        first_prompt=None,
        updated_at=None,
        listed_at=None,
        agent_listed_at=None,
        in_local_index=True,
        has_local_copy=True,
    )
    text = str(row_content(row, {}, {}))
    assert "[@click=app.quit]Quit[/]" in text
    assert "[[b]evil[/b]]" in text
    assert "\x1b" not in text
    assert "\x07" not in text
    assert len(text) < 2000
    assert "local copy only" in text

    content = snippet_content(Snippet("say [b]lighthouse[/b] \x1b[31m", ((7, 17),)))
    assert "\x1b" not in content.plain
    assert "[b]lighthouse[/b]" in content.plain
    marked = [
        content.plain[span.start : span.end] for span in content.spans if "bold" in str(span.style)
    ]
    assert marked == ["lighthouse"]


async def test_a_search_hit_opens_scrolled_to_what_was_said(
    make_app: Callable[..., AcpApp],
) -> None:
    from tests.app.test_browser import seed as seed_recorded

    app = make_app()
    filler = [f"question number {n}" for n in range(12)]
    (first,) = await seed_recorded(app, [" ".join(filler) + " about the barnacle"], record=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.workspace is not None
        app.action_every_agent()
        screen = await wait_for_screen(pilot, LibraryScreen)
        screen.query_one(Input).value = "barnacle"

        def found() -> bool:
            return any(h.row.session_id == first and h.field == "text" for h in screen.hits)

        await wait_for(pilot, found, seconds=30)
        screen.hits = [h for h in screen.hits if h.row.session_id == first]
        screen.render_options()
        screen.query_one(Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.slot is not None and app.slot.session_id == first)
        slot = app.slot
        assert slot is not None
        pane = app.chat.pane_of(slot)
        assert pane is not None
        await wait_for(pilot, lambda: pane.find_bar.is_open and pane.find_bar.total > 0)
        assert pane.find_bar.query_text == "barnacle"
        view = pane.transcript_view
        assert view is not None
        await wait_for(pilot, lambda: view.match_line() is not None)
        line = view.match_line()
        assert line is not None
        assert view.scroll_offset.y <= line < view.scroll_offset.y + view.size.height  # in view


def library_row(number: int, prefix: str = "s") -> LibraryRow:
    return LibraryRow(
        agent_key='["some-agent", "--acp"]',
        agent_name="some",
        session_id=f"{prefix}-{number:04}",
        cwd="/work/project",
        additional_directories=(),
        title=f"{prefix} session {number}",
        agent_title=None,
        local_title=None,
        first_prompt=None,
        updated_at="2024-03-01T00:00:00Z",
        listed_at=None,
        agent_listed_at=None,
        in_local_index=True,
        has_local_copy=True,
    )


async def test_a_long_page_is_laid_out_a_slice_at_a_time(make_app: Callable[..., AcpApp]) -> None:
    """200 rows laid out at once hold the loop (and the keys) for ~100 ms: the view shows the
    first screenfuls at once and adds the rest from timers, and a newer list drops the rest
    of an older one."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        app.action_every_agent()
        screen = await wait_for_screen(pilot, LibraryScreen)

        def quiet() -> bool:  # listed, and read again: nothing will replace the rows below
            states = [s.state for s in screen.statuses.values()]
            reading = [w for w in app.workers if w.group == "library-read" and not w.is_finished]
            return bool(states) and set(states) <= {"done", "failed"} and not reading

        await wait_for(pilot, quiet, seconds=30)
        listed = screen.query_one(OptionList)
        screen.searching = False
        screen.rows = [library_row(n) for n in range(200)]
        screen.render_options()
        assert 0 < listed.option_count < 200  # the rest come later, from timers
        await wait_for(pilot, lambda: listed.option_count == 200)
        assert [listed.get_option_at_index(i).id for i in range(200)] == [
            f"row:{i}" for i in range(200)
        ]
        assert "s session 199" in str(listed.get_option_at_index(199).prompt)

        screen.rows = [library_row(n) for n in range(200)]
        screen.render_options()
        screen.rows = [library_row(n, "new") for n in range(3)]
        screen.render_options()  # before the first list was laid out in full
        for _ in range(20):
            await pilot.pause(0.01)
        assert listed.option_count == 3
        assert all("new session" in str(listed.get_option_at_index(i).prompt) for i in range(3))


# -- the first build ------------------------------------------------------------------------------


@pytest.fixture
def held_build(monkeypatch: pytest.MonkeyPatch, project: Path) -> Iterator[threading.Event]:
    """Two sessions known only from their transcripts, which the library's first build
    indexes; after its first step the build makes no headway until the event is set. As in a
    long build, the library goes on serving between two steps (an agent's listing is written
    meanwhile, and the view shows it)."""
    root = get_paths().data_dir / "transcripts"
    cache = TranscriptCache(root)
    for sid in ("s-1", "s-2"):
        cache.note_session(AGENT, sid, cwd=str(project), title=f"harbour {sid}")
        turn(cache, sid, "where is the lighthouse", f"by the harbour, {sid}")
    cache.close()
    (seeded_dir,) = [path for path in root.iterdir() if path.is_dir()]
    release = threading.Event()
    steps = 0
    step = library_worker.catch_up_step

    def held_step(conn: Any, session: int, path: Path) -> Step:
        """The seeded sessions' steps after the first; the app's own session goes on."""
        nonlocal steps
        if path.parent == seeded_dir:
            steps += 1
            if steps > 1 and not release.wait(0.01):
                return Step(done=False, read=0, size=0)
        return step(conn, session, path)

    monkeypatch.setattr(library_worker, "catch_up_step", held_step)
    try:
        yield release
    finally:
        release.set()


async def every_agent_view(app: AcpApp, pilot: Pilot[Any]) -> LibraryScreen:
    """The every-agent view, opened once the app's session is."""
    await wait_for(pilot, lambda: app.session is not None)
    app.action_every_agent()
    return await wait_for_screen(pilot, LibraryScreen)


def seeded(ids: Iterable[str]) -> list[str]:
    return sorted(sid for sid in ids if sid in ("s-1", "s-2"))


async def test_the_view_opened_during_the_first_build_says_how_far_it_is_until_it_is_done(
    make_app: Callable[..., AcpApp], held_build: threading.Event
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await every_agent_view(app, pilot)
        # Two sessions, or three if the app's own was recorded before the build began.
        indexing = re.compile(r"indexing the local history: [01] of [23] sessions \(\d+%\)…")
        await wait_for(pilot, lambda: indexing.search(status(screen)) is not None)
        held_build.set()
        await wait_for(pilot, lambda: "indexing" not in status(screen))
        assert seeded(row.session_id for row in screen.rows) == ["s-1", "s-2"]


async def test_a_search_during_the_first_build_is_made_again_when_it_is_done(
    make_app: Callable[..., AcpApp], held_build: threading.Event
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await every_agent_view(app, pilot)
        await wait_for(pilot, lambda: "indexing the local history" in status(screen))
        await pilot.press(*"lighthouse")
        await wait_for(pilot, lambda: screen.searching and not screen.searcher.pending)
        assert len(seeded(hit.row.session_id for hit in screen.hits)) < 2
        held_build.set()
        await wait_for(
            pilot, lambda: seeded(hit.row.session_id for hit in screen.hits) == ["s-1", "s-2"]
        )
        assert screen.query_one(Input).value == "lighthouse"
