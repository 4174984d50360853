"""The session browser against the real demo agent: paging, filters, actions, gating, history."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Static
from textual.worker import WorkerState

from acp_tui.client.history.recorder import SessionRecorder, agent_key_for
from acp_tui.client.history.restore import LOCAL_COPY_NOTICE
from acp_tui.client.history.session_text import display_title
from acp_tui.config.paths import get_paths
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.transcripts import TranscriptCache
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.browser.rows import SessionRows
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from tests import in_process
from tests.app.helpers import wait_for_screen
from tests.app.test_app_smoke import screen_text, wait_for

SIZE = (120, 36)

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
"""The representative browser tests run on ACP v1 and on the v2 draft."""


async def seed(
    app: AcpApp, prompts: list[str], *, cwd: Path | None = None, record: bool = False
) -> list[str]:
    """Create sessions with the demo agent before the app starts (one prompt each, its title)."""
    ids: list[str] = []
    async with in_process.current(app.launch) as client:
        recorder = None
        if record:
            cache = TranscriptCache(get_paths().data_dir / "transcripts")
            recorder = SessionRecorder(cache, agent_key_for(app.launch))
            recorder.attach(client)
        for text in prompts:
            session = await client.new_session(cwd or app.launch.cwd)
            blocks = [TextContent(text=text)]
            if recorder is not None:
                recorder.note(session, created=True)
                recorder.record_prompt(session.session_id, blocks)
            await client.prompt(session.session_id, blocks)
            ids.append(session.session_id)
    return ids


def trace(app: AcpApp) -> list[dict[str, Any]]:
    """Every request the client sends from now on."""
    sent: list[dict[str, Any]] = []
    assert app.client is not None

    def tracer(direction: str, message: Any) -> None:
        if direction == "send" and isinstance(message, dict) and "method" in message:
            sent.append(message)

    app.client.connection.tracer = tracer
    return sent


def calls(sent: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [m.get("params") or {} for m in sent if m["method"] == method]


def browser(app: AcpApp) -> SessionBrowser:
    return app.chat.query_one(SessionBrowser)


def row_titles(app: AcpApp) -> list[str]:
    return [display_title(i) for i in browser(app).lister.visible()]


def settled(app: AcpApp) -> bool:
    panel = browser(app)
    return panel.inflight is None and not panel.lister.loading


def static_text(app: AcpApp, selector: str) -> str:
    return str(app.chat.query_one(selector, Static).render())


async def open_browser(pilot: Pilot[int], app: AcpApp) -> list[dict[str, Any]]:
    await wait_for(pilot, lambda: app.session is not None)
    sent = trace(app)
    await pilot.press("ctrl+b")
    await wait_for(pilot, lambda: settled(app) and bool(browser(app).lister.rows))
    return sent


async def highlight(pilot: Pilot[int], app: AcpApp, session_id: str) -> None:
    rows = app.chat.query_one(SessionRows)
    rows.focus()
    rows.highlighted = rows.get_option_index(session_id)
    await pilot.pause()


@PROTOCOLS
async def test_toggle_cycles_the_panel_and_shows_titles(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    await seed(app, ["alpha topic", "beta topic"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, app.startup.ready.is_set)  # the views arrive after frame one
        await app.chat.open_browser()  # mounted (hidden) the first time it is wanted
        assert not browser(app).display
        sent = await open_browser(pilot, app)
        panel = browser(app)
        assert panel.display
        assert panel.has_class("-narrow")
        assert panel.region.width > 0
        assert app.focused is app.chat.query_one(SessionRows)
        assert {"alpha topic", "beta topic"} <= set(row_titles(app))
        assert calls(sent, "session/list")[0]["cwd"] == str(app.launch.cwd)
        await pilot.press("ctrl+b")
        assert panel.has_class("-wide")
        await pilot.press("ctrl+b")
        assert not panel.display
        assert app.focused is app.chat.current_pane.query_one("#prompt")
        titles = [c.title for c in app.get_system_commands(app.chat)]
        assert "Sessions: toggle browser" in titles


@PROTOCOLS
async def test_scrolling_to_the_end_loads_the_next_pages(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app("--page-size", "3", protocol=protocol)
    await seed(app, [f"topic {n}" for n in range(14)])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        panel = browser(app)
        first = len(calls(sent, "session/list"))
        assert not panel.lister.exhausted  # 15 sessions do not all fit: paging is lazy
        assert first < 5
        rows = app.chat.query_one(SessionRows)
        for _ in range(40):
            if panel.lister.exhausted and settled(app):
                break
            await pilot.press("down")
            await wait_for(pilot, lambda: settled(app))
        assert panel.lister.exhausted
        listed = calls(sent, "session/list")
        assert len(listed) == 5  # 15 sessions, 3 a page
        assert "cursor" not in listed[0]
        assert all("cursor" in c for c in listed[1:])
        assert len(panel.lister.rows) == 15
        assert rows.option_count == 16  # and the end row


async def test_end_lands_on_the_last_session_not_on_the_count_line(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    await seed(app, [f"topic {n}" for n in range(4)])
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        panel = browser(app)
        await wait_for(pilot, lambda: panel.lister.exhausted and settled(app))
        rows = app.chat.query_one(SessionRows)
        rows.focus()
        await pilot.press("end")
        last = panel.lister.visible()[-1].session_id
        assert rows.highlighted_id == last
        assert rows.get_option_at_index(rows.option_count - 1).id == "state:end"  # still shown
        await pilot.press("home", "end")
        assert rows.highlighted_id == last


async def test_cwd_filter_by_default_and_all_directories(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    other = tmp_path / "other"
    other.mkdir()
    await seed(app, ["here one"])
    await seed(app, ["elsewhere one"], cwd=other)
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        assert "here one" in row_titles(app)
        assert "elsewhere one" not in row_titles(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: "elsewhere one" in row_titles(app) and settled(app))
        assert "cwd" not in calls(sent, "session/list")[-1]
        assert "all directories" in static_text(app, "#browser-header")
        await pilot.press("a")
        await wait_for(pilot, lambda: "elsewhere one" not in row_titles(app) and settled(app))
        assert calls(sent, "session/list")[-1]["cwd"] == str(app.launch.cwd)


async def test_without_the_library_the_search_filters_the_loaded_titles(
    make_app: Callable[..., AcpApp],
) -> None:
    """Before the history library is open (just after start) the search is local and instant;
    with it, it goes through every session (see test_browser_search)."""
    app = make_app()
    await seed(app, ["fix the parser", "write the docs"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        assert app.workspace is not None
        app.workspace.cache.library = None
        before = len(calls(sent, "session/list"))
        await pilot.press("slash", *"PARSER")
        assert row_titles(app) == ["fix the parser"]
        loaded = len(app.chat.browser.lister.rows)  # type: ignore[union-attr]
        header = static_text(app, "#browser-header")
        assert f"1 of {loaded} loaded match \u201cPARSER\u201d" in header
        assert len(calls(sent, "session/list")) == before
        await pilot.press("escape")
        assert app.focused is app.chat.current_pane.query_one("#prompt")


@PROTOCOLS
async def test_enter_resumes_with_replay(make_app: Callable[..., AcpApp], protocol: int) -> None:
    """v1: through `session/load`; v2: `session/resume` with ``replayFrom`` (no load exists)."""
    app = make_app(protocol=protocol)
    [sid] = await seed(app, ["remember the lighthouse"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, sid)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is not None and app.session.session_id == sid)
        await wait_for(pilot, lambda: "remember the lighthouse" in screen_text(app))
        replayed, other = (
            ("session/load", "session/resume")
            if protocol == 1
            else ("session/resume", "session/load")
        )
        [load] = calls(sent, replayed)
        assert load["sessionId"] == sid
        assert load["additionalDirectories"] == []  # always the complete list
        if protocol == 2:
            assert load["replayFrom"] == {"type": "start"}
        assert not calls(sent, other)
        assert "Resumed without replay" not in screen_text(app)
        assert "chat" in browser(app).tags()[sid]
        assert app.focused is app.chat.current_pane.query_one("#prompt")


@PROTOCOLS
async def test_shift_r_resumes_without_replay(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    [sid] = await seed(app, ["remember the lighthouse"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, sid)
        await pilot.press("R")
        await wait_for(pilot, lambda: app.session is not None and app.session.session_id == sid)
        await wait_for(pilot, lambda: "Resumed without replay" in screen_text(app))
        assert "remember the lighthouse" not in screen_text(app)
        [resume] = calls(sent, "session/resume")
        assert resume["additionalDirectories"] == []
        assert "replayFrom" not in resume
        assert not calls(sent, "session/load")
        assert "remember the lighthouse" in app.chat.status_text()  # the title, from the list


async def test_resume_only_agent_replays_the_local_copy_and_says_so(
    make_app: Callable[..., AcpApp],
) -> None:
    # v1 only: on v2 every agent with sessions replays (session/resume with replayFrom).
    app = make_app("--capabilities", "list,resume")
    [recorded] = await seed(app, ["kept locally"], record=True)
    [unrecorded] = await seed(app, ["never recorded"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, recorded)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.session_id == recorded
        )
        await wait_for(pilot, lambda: LOCAL_COPY_NOTICE in screen_text(app))
        assert "kept locally" in screen_text(app)
        assert calls(sent, "session/resume")
        assert not calls(sent, "session/load")

        await highlight(pilot, app, unrecorded)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.session_id == unrecorded
        )
        await wait_for(pilot, lambda: "no local copy" in screen_text(app))


@PROTOCOLS
async def test_delete_asks_first_then_removes_the_row(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    [keep, doomed] = await seed(app, ["keep me", "delete me"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, doomed)
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmDialog)
        assert "delete me" in str(app.screen.query_one("#confirm-items", Static).render())
        await pilot.press("escape")  # cancel: nothing is sent
        await wait_for(pilot, lambda: "Nothing was deleted" in static_text(app, "#browser-status"))
        assert not calls(sent, "session/delete")
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for(pilot, lambda: doomed not in browser(app).lister.rows)
        assert [c["sessionId"] for c in calls(sent, "session/delete")] == [doomed]
        assert keep in browser(app).lister.rows
        assert len(calls(sent, "session/list")) == 1  # no full reload


async def test_marked_rows_are_deleted_with_progress(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    ids = await seed(app, ["one", "two", "three", "four"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        panel = browser(app)
        statuses: list[str] = []
        original = panel.set_status

        def spy(text: str, level: Any = "info") -> None:
            statuses.append(text)
            original(text, level)

        panel.set_status = spy  # type: ignore[method-assign]
        for sid in ids[:3]:
            await highlight(pilot, app, sid)
            await pilot.press("space")
        assert app.chat.query_one(SessionRows).marked == set(ids[:3])
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for(pilot, lambda: any(s.startswith("Deleted 3") for s in statuses))
        assert {c["sessionId"] for c in calls(sent, "session/delete")} == set(ids[:3])
        assert [s for s in statuses if s.startswith("Deleting")] == [
            "Deleting 1/3…",
            "Deleting 2/3…",
            "Deleting 3/3…",
        ]
        assert ids[3] in panel.lister.rows
        assert not set(ids[:3]) & set(panel.lister.rows)


async def test_deleting_the_chat_session_says_so_and_the_next_prompt_starts_anew(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        live = app.session.session_id
        sent = await open_browser(pilot, app)
        assert "chat" in browser(app).tags()[live]
        await highlight(pilot, app, live)
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for(pilot, lambda: "This session is gone" in screen_text(app))
        assert calls(sent, "session/delete")[0]["sessionId"] == live
        await pilot.press("escape")
        await pilot.press(*"hello again", "enter")
        await wait_for(pilot, lambda: app.session is not None and app.session.session_id != live)
        await wait_for(pilot, lambda: "hello again" in screen_text(app))
        assert calls(sent, "session/new")


async def test_closing_the_chat_session_keeps_the_chat_usable(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    [other] = await seed(app, ["not open here"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        live = app.session.session_id
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, other)
        await pilot.press("c")
        assert "only sessions open in acp-tui" in static_text(app, "#browser-status")
        await highlight(pilot, app, live)
        await pilot.press("c")
        await wait_for(pilot, lambda: "This session was closed" in screen_text(app))
        assert calls(sent, "session/close")[0]["sessionId"] == live
        await pilot.press("escape", *"after close", "enter")
        await wait_for(pilot, lambda: "after close" in screen_text(app))
        assert app.session is not None
        assert app.session.session_id != live


@PROTOCOLS
async def test_fork_opens_the_fork_in_the_chat(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    app = make_app(protocol=protocol)
    [source] = await seed(app, ["the original"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        await highlight(pilot, app, source)
        await pilot.press("f")
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session.session_id not in ("", source)
                and bool(calls(sent, "session/fork"))
            ),
        )
        assert app.session is not None
        fork = calls(sent, "session/fork")[0]
        assert fork["sessionId"] == source
        assert fork["additionalDirectories"] == []
        assert "Forked from the original" in screen_text(app)
        assert row_titles(app)[0] == "Fork of the original"


@PROTOCOLS
async def test_unadvertised_actions_are_disabled_with_the_reason(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    """On v2 resume (and so replay) is part of the baseline: only delete and fork are gated."""
    app = make_app("--capabilities", "list", protocol=protocol)
    await seed(app, ["listed only"])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        delete = app.chat.query_one("#act-delete", Button)
        assert delete.disabled
        assert delete.tooltip == "acp-tui demo agent does not support session/delete"
        assert app.chat.query_one("#act-fork", Button).disabled
        reasons = static_text(app, "#browser-reasons")
        assert "does not support session/delete" in reasons
        assert "does not support session/fork" in reasons
        reopen = "does not support session/load or session/resume"
        assert (reopen in reasons) == (protocol == 1)
        await pilot.press("d")
        assert "does not support session/delete" in static_text(app, "#browser-status")
        await pilot.press("f")
        assert "does not support session/fork" in static_text(app, "#browser-status")
        if protocol == 1:
            await pilot.press("enter")
            assert "session/load or session/resume" in static_text(app, "#browser-status")
        assert not isinstance(app.screen, ConfirmDialog)
        assert {m["method"] for m in sent} <= {"session/list"}


async def test_agent_without_list_shows_the_local_history(make_app: Callable[..., AcpApp]) -> None:
    # v1 only: session/list is part of v2's baseline.
    app = make_app("--capabilities", "load")
    [recorded] = await seed(app, ["from an earlier run"], record=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        live = app.session.session_id
        sent = trace(app)
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: live in browser(app).lister.rows)
        assert recorded in browser(app).lister.rows
        assert "from an earlier run" in row_titles(app)
        assert "From acp-tui's local history" in static_text(app, "#browser-header")
        assert "local" in browser(app).tags()[recorded]
        assert not calls(sent, "session/list")
        await highlight(pilot, app, recorded)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.session_id == recorded
        )
        await wait_for(pilot, lambda: "from an earlier run" in screen_text(app))


async def test_titles_follow_session_info_updates_live(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        live = app.session.session_id
        await open_browser(pilot, app)
        await pilot.press("escape", *"title Brand new name", "enter")
        await wait_for(pilot, lambda: browser(app).lister.rows[live].title == "Brand new name")
        rows = app.chat.query_one(SessionRows)
        assert "Brand new name" in str(rows.get_option(live).prompt)


async def test_open_errors_are_shown_and_the_rows_stay(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    await seed(app, ["a real one"])
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        panel = browser(app)
        assert app.session is not None
        chat_id = app.session.session_id
        ghost = SessionInfo(session_id="demo-ghost", cwd=str(app.launch.cwd), title="ghost")
        panel.lister.rows["demo-ghost"] = ghost
        panel.render_rows()
        before = list(panel.lister.rows)
        await highlight(pilot, app, "demo-ghost")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Could not open ghost" in static_text(app, "#browser-status"))
        assert "does not know this session" in static_text(app, "#browser-status")
        assert list(panel.lister.rows) == before
        assert app.session is not None
        assert app.session.session_id == chat_id


async def test_extra_roots_need_the_capability(make_app: Callable[..., AcpApp]) -> None:
    app = make_app("--capabilities", "list,load,resume,fork")
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)  # (and lets the options bar finish mounting)
        rooted = SessionInfo(
            session_id="demo-x", cwd=str(app.launch.cwd), additional_directories=["/elsewhere"]
        )
        assert app.workspace is not None
        assert app.slot is not None
        ws, agent = app.workspace, app.slot.agent
        reason = ws.sessions.why_unavailable(agent, "replay", rooted)
        assert reason is not None
        assert "extra roots" in reason
        assert "additionalDirectories" in reason
        assert ws.sessions.why_unavailable(agent, "fork", rooted) == reason
        plain = rooted.model_copy(update={"additional_directories": []})
        assert ws.sessions.why_unavailable(agent, "replay", plain) is None


async def test_an_expired_cursor_shows_an_error_row_and_reloads(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app("--page-size", "2")
    await seed(app, [f"topic {n}" for n in range(12)])
    async with app.run_test(size=SIZE) as pilot:
        sent = await open_browser(pilot, app)
        panel = browser(app)
        assert not panel.lister.exhausted
        panel.lister.next_cursor = "not-a-cursor"
        panel.request_page()
        await wait_for(pilot, lambda: panel.lister.error is not None and settled(app))
        assert panel.lister.cursor_expired
        rows = app.chat.query_one(SessionRows)
        last = rows.get_option_at_index(rows.option_count - 1)
        assert last.id == "state:error"
        assert "invalid cursor" in str(last.prompt)
        kept = len(panel.lister.rows)
        assert kept > 0
        rows.highlighted = rows.option_count - 1
        listed = len(calls(sent, "session/list"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(calls(sent, "session/list")) > listed and settled(app))
        assert panel.lister.error is None
        assert "cursor" not in calls(sent, "session/list")[listed]


async def test_a_page_arriving_while_the_app_quits_is_dropped(
    make_app: Callable[..., AcpApp],
) -> None:
    """On the way out the rows go before the panel: a page that arrives then is not shown (it
    failed the page's worker, and the app with it, under load)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        panel = browser(app)
        await app.chat.query_one(SessionRows).remove()
        panel.render_rows()  # what the page's worker does when the page is in
        assert not panel.query(SessionRows)


async def test_a_next_page_arriving_while_the_app_quits_ends_its_worker_quietly(
    make_app: Callable[..., AcpApp],
) -> None:
    """The worker of a page that comes in after the rows went must not look for them to ask
    for the next page: that failed the worker, and the app with it (seen with quicker tests)."""
    app = make_app("--page-size", "2")
    await seed(app, [f"topic {n}" for n in range(12)])
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        panel = browser(app)
        assert not panel.lister.exhausted
        loaded = len(panel.lister.rows)
        await app.chat.query_one(SessionRows).remove()
        panel.request_page()
        worker = next(w for w in app.workers if w.group == "browser-page")
        await worker.wait()
        assert worker.state == WorkerState.SUCCESS, worker.error
        assert len(panel.lister.rows) > loaded  # the page did come in
