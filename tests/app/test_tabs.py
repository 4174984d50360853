"""Several live sessions in tabs, and the prompt queue, through the real app (Pilot, demo agent)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, OptionList

from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, save_settings
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.dialogs.agent_choice import AgentChoiceDialog
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.transcript.view import TranscriptView
from acp_tui.ui.widgets.chat_pane import ChatPane
from acp_tui.ui.widgets.queue_view import QueueView
from acp_tui.ui.widgets.session_tabs import SessionTabs, tab_id
from tests.app.helpers import wait_for, wait_for_screen

SIZE = (120, 36)


def pane_text(pane: ChatPane) -> str:
    return "\n".join(pane.query_one(TranscriptView).plain_lines())


def slots(app: AcpApp) -> list[SessionSlot]:
    assert app.workspace is not None
    return app.workspace.slots


def ready(slot: SessionSlot) -> bool:
    return slot.state == "ready" and not slot.busy and not slot.queue


async def new_tab(pilot: Pilot[int], app: AcpApp) -> SessionSlot:
    """Ctrl+N, keep the roots as they are, and wait for the new tab's session."""
    before = len(slots(app))
    await pilot.press("ctrl+n")
    dialog = await wait_for_screen(pilot, RootsDialog)
    dialog.query_one("#roots-ok", Button).press()
    await wait_for(pilot, lambda: len(slots(app)) == before + 1)
    slot = slots(app)[-1]
    await wait_for(pilot, lambda: ready(slot))
    return slot


def shown(app: AcpApp, slot: SessionSlot, pane: ChatPane) -> bool:
    """Whether the chat shows ``slot``'s tab: its pane, its prompt focused, its tab active."""
    tabs = app.chat.query_one(SessionTabs)
    return (
        app.chat.current_pane is pane and pane.prompt.has_focus and tabs.active == tab_id(slot.id)
    )


async def test_each_tab_keeps_its_own_transcript_and_draft(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        first = slots(app)[0]
        await pilot.press(*"first tab", "enter")
        pane = app.chat.current_pane
        await wait_for(pilot, lambda: ready(first) and "first tab" in pane_text(pane))
        await pilot.press(*"a draft")
        first_pane = app.chat.current_pane

        second = await new_tab(pilot, app)
        assert app.slot is second
        # The chat shows a tab from the message the Workspace's change posts: wait for it.
        await wait_for(pilot, lambda: shown(app, second, app.chat.current_pane))
        second_pane = app.chat.current_pane
        assert second_pane is not first_pane
        assert second_pane.prompt.has_focus
        tabs = app.chat.query_one(SessionTabs)
        await wait_for(pilot, lambda: tabs.has_class("-several"))
        assert tabs.active == tab_id(second.id)
        await pilot.press(*"second tab", "enter")
        await wait_for(pilot, lambda: ready(second) and "second tab" in pane_text(second_pane))
        assert "first tab" not in pane_text(second_pane)

        await pilot.press("ctrl+pageup")  # back to the first: as it was left
        await wait_for(pilot, lambda: app.slot is first and shown(app, first, first_pane))
        assert app.chat.current_pane is first_pane
        assert first_pane.prompt.text == "a draft"
        assert first_pane.prompt.has_focus
        assert tabs.active == tab_id(first.id)
        await pilot.press("alt+2")
        await wait_for(pilot, lambda: app.slot is second)
        assert second_pane.prompt.text == ""
        await pilot.click(f"#{tab_id(first.id)}")  # and with the mouse
        await wait_for(pilot, lambda: app.slot is first)
        assert first.session_id != second.session_id


async def test_a_background_tab_is_marked_when_its_turn_ends(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    bells: list[int] = []
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        first = slots(app)[0]
        # Three seconds of reply, so the new tab is surely open before the turn ends.
        await pilot.press(*"slow stream 60", "enter")
        await wait_for(pilot, lambda: first.busy)
        await new_tab(pilot, app)
        assert first.busy
        tabs = app.chat.query_one(SessionTabs)

        def label() -> str:
            return str(tabs.query_one(f"#{tab_id(first.id)}").label.plain)  # type: ignore[attr-defined]

        # The tab is relabelled from a message the slot's change posts: wait for it too.
        await wait_for(pilot, lambda: first.attention == "finished" and "✓" in label())
        assert "✓" in label()
        assert bells
        await pilot.press("ctrl+b")  # the browser's row of that session says so too
        browser = app.chat.query_one(SessionBrowser)
        session_id = first.session_id
        await wait_for(pilot, lambda: "done" in browser.rows.tags.get(session_id or "", ()))
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.slot is first and first.attention is None)


async def test_closing_a_tab_closes_its_session_and_shows_a_neighbour(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        first = slots(app)[0]
        second = await new_tab(pilot, app)
        assert app.client is not None
        closed_id = second.session_id
        assert app.workspace is not None
        await app.workspace.close_slot(second)
        await wait_for(pilot, lambda: app.slot is first)
        assert slots(app) == [first]
        assert closed_id not in app.client.sessions
        await wait_for(pilot, lambda: not app.chat.query(f"#pane-{second.id}"))


async def test_prompts_sent_during_a_turn_are_queued_shown_and_editable(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        slot = slots(app)[0]
        pane = app.chat.current_pane
        queue = pane.query_one(QueueView)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: slot.busy)
        await pilot.press(*"one", "enter", *"two", "enter")
        assert [p.text for p in slot.queue] == ["one", "two"]
        await wait_for(pilot, lambda: queue.display and len(queue.queued) == 2)
        assert pane.prompt.text == ""  # taken and cleared at once

        await pilot.press("ctrl+up")
        assert queue.has_focus
        await pilot.press("x")  # "one" goes
        await wait_for(pilot, lambda: [p.text for p in slot.queue] == ["two"])
        await pilot.press("e")  # "two" into the prompt; it keeps its place, marked
        await wait_for(pilot, lambda: pane.prompt.text == "two" and slot.queue[0].editing)
        assert pane.prompt.has_focus
        await pilot.press(*" edited", "enter")
        assert [(p.text, p.editing) for p in slot.queue] == [("two edited", False)]
        await pilot.press("escape")  # cancels the hanging turn; the queue is paused
        await wait_for(pilot, lambda: queue.paused and not slot.busy)
        assert [p.text for p in slot.queue] == ["two edited"]
        await pilot.press("ctrl+up", "enter")  # Enter on the paused queue sends it on
        await wait_for(pilot, lambda: ready(slot) and not slot.queue)
        assert "two edited" in pane_text(pane)
        assert "one" not in [m.text for m in slot.transcript.entries if hasattr(m, "role")]


async def test_ctrl_n_offers_the_agent_and_runs_two_agents_side_by_side(
    make_app: Callable[..., AcpApp], tmp_path: Path, acp_home: Paths
) -> None:
    other = AgentConfig(
        command=sys.executable,
        args=["-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "other")],
        title="Other agent",
    )
    settings = Settings(agents={"other": other})
    save_settings(settings, acp_home.config_file)  # Ctrl+N reads the file again
    base = make_app()
    app = AcpApp(replace(base.launch, settings=settings))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        first = slots(app)[0]
        await pilot.press("ctrl+n")
        choice = await wait_for_screen(pilot, AgentChoiceDialog)
        names = [str(o.prompt) for o in choice.query_one(OptionList).options]
        assert any("Other agent" in name for name in names)
        choice.query_one(OptionList).highlighted = 1  # "other" (the current agent is first)
        await pilot.press("enter")
        dialog = await wait_for_screen(pilot, RootsDialog)
        dialog.query_one("#roots-ok", Button).press()
        await wait_for(pilot, lambda: len(slots(app)) == 2)
        second = slots(app)[1]
        await wait_for(pilot, lambda: ready(second))
        assert second.agent is not first.agent
        assert second.agent.launch.command.name == "other"
        label = app.chat.query_one(SessionTabs).query_one(f"#{tab_id(second.id)}")
        await wait_for(pilot, lambda: "Other agent" in label.label.plain)  # type: ignore[attr-defined]
        await pilot.press(*"hello other", "enter")
        await wait_for(
            pilot, lambda: ready(second) and "hello other" in pane_text(app.chat.current_pane)
        )


async def test_a_queued_prompt_comes_back_when_its_session_is_deleted(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        slot = slots(app)[0]
        pane = app.chat.current_pane
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: slot.busy)
        await pilot.press(*"keep me", "enter")
        assert [p.text for p in slot.queue] == ["keep me"]
        assert app.workspace is not None
        assert slot.session_id is not None
        info = SessionInfo(session_id=slot.session_id, cwd=str(slot.cwd))
        assert await app.workspace.sessions.delete_listed(slot.agent, [info]) == []
        await wait_for(pilot, lambda: pane.prompt.text == "keep me")
        assert slot.queue == []
        assert slot.state == "closed"
        assert "it was deleted" in pane_text(pane)


async def test_a_tab_told_its_label_again_does_not_lay_the_screen_out() -> None:
    """A tab is told its label on every change of its turn's state (two per question refused
    in a flood): each new label laid the whole screen out, the same label too."""
    from textual.app import App, ComposeResult
    from textual.content import Content
    from textual.widgets import Tab

    class TabsApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SessionTabs()

    app = TabsApp()
    async with app.run_test(size=(80, 10)) as pilot:
        tabs = app.query_one(SessionTabs)
        tabs.set_tab(1, Content("1 new session"))
        await pilot.pause()
        tab = tabs.query_one(f"#{tab_id(1)}", Tab)
        layouts: list[bool] = []
        refresh = tab.refresh

        def counted(*regions: object, layout: bool = False, **kwargs: object) -> object:
            layouts.append(layout)
            return refresh(*regions, layout=layout, **kwargs)  # type: ignore[arg-type]

        tab.refresh = counted  # type: ignore[method-assign,assignment]
        for _ in range(100):
            tabs.set_tab(1, Content("1 new session"))
        assert not any(layouts)
        tabs.set_tab(1, Content("1 new session") + Content.styled(" ●", "bold"))
        assert any(layouts)
        assert tab.label.plain == "1 new session ●"
