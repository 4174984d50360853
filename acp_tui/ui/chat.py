"""Provides ChatScreen: the session browser, the tabs and one chat pane per open session.

The screen keeps the panes, the tabs and the browser in step with the Workspace: each Workspace
event arrives as its own message (`acp_tui.ui.messages`, posted by the App) and has its own
handler here, which renders what that change touches, once; nothing else changes what is shown.
Panes act on their own slot; the screen handles what spans them: which tab is shown, the keys
that switch tabs, and the keys that act on the current pane.

The first frame has one pane (status line, prompt) and stand-ins for the rest; `views_arrived`
puts the views in once the core is imported (see `acp_tui.ui.startup`). The session browser
comes the first time it is shown (`open_browser`): hidden until then, it was a third of the
widgets mounted at start.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import ContentSwitcher, Footer

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.config.paths import Paths
from acp_tui.store.history import history_for_project
from acp_tui.ui import messages
from acp_tui.ui.memory import settle_memory
from acp_tui.ui.messages import TabChosen
from acp_tui.ui.startup import StandIn, Startup, replace_stand_in
from acp_tui.ui.widgets.chat_pane import ChatPane
from acp_tui.ui.widgets.footer import QuietFooter

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.startup import Core
    from acp_tui.ui.widgets.session_tabs import SessionTabs

__all__ = ["ChatScreen"]

FIRST_PANE = "pane-first"


PREVIOUS_TAB = "alt+left,ctrl+pageup,super+left"


class ChatScreen(Screen[None]):
    """The chat: tabs of sessions, each a pane, and the session browser beside them."""

    HORIZONTAL_BREAKPOINTS = [(0, "-cramped"), (100, "-roomy")]
    """Under 100 columns the wide browser takes the whole screen (see app.tcss)."""

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+o", "copy_last_reply", "Copy", tooltip="Copy the last reply"),
        # A priority key: the app runs it as it reads it, so the keys read with it (a terminal
        # sends fast typing in one read) go to the prompt, not to what had the focus.
        Binding("ctrl+l", "focus_prompt", "Prompt", tooltip="Back to the prompt", priority=True),
        Binding("ctrl+t", "toggle_thoughts", "Thoughts", show=False),
        # Alt+arrows first: GNOME Terminal, Konsole and Windows Terminal keep Ctrl+PageUp/Down
        # for their own tabs. super+: iTerm2 sends its Option key as xterm's modifier 9.
        # Priority keys too, and the tab's prompt has the focus at once (see `show_tab`).
        Binding("alt+right,ctrl+pagedown,super+right", "step_tab(1)", "Next tab", priority=True),
        Binding(PREVIOUS_TAB, "step_tab(-1)", "Previous tab", show=False, priority=True),
        *(Binding(f"alt+{n}", f"go_to_tab({n})", show=False, priority=True) for n in range(1, 10)),
    ]

    def __init__(self, launch: LaunchSpec, paths: Paths, startup: Startup) -> None:
        super().__init__()
        self.launch = launch
        self.paths = paths
        self.startup = startup
        self.workspace: Workspace | None = None
        self.panes: dict[int, ChatPane] = {}
        self.history = history_for_project(launch.cwd, paths)
        self.browser: SessionBrowser | None = None
        """The session browser, once it was first shown (see `open_browser`)."""
        self._browser_arriving = asyncio.Lock()
        self.tabs: SessionTabs | None = None
        """The tab bar, once the core is loaded."""
        self.registry_offered = not launch.offer_registry
        """Whether the first-run offer of the agent registry was made (or is not wanted)."""
        self.typed = False
        """Whether the user has typed since the app started (the app sees every key first)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"), Vertical(id="chat"):
            yield StandIn("tabs")
            with ContentSwitcher(id="panes", initial=FIRST_PANE):
                yield ChatPane(self.launch, core=None, history=self.history, id=FIRST_PANE)
        yield QuietFooter()  # the keys that fit, whole; redrawn only when they change

    def on_mount(self) -> None:
        self.call_after_refresh(self.current_pane.prompt_arrives)  # focused as it arrives
        self.app.screen_change_signal.subscribe(self, give_dialog_its_keys)

    async def views_arrived(self, core: Core) -> None:
        """The core is imported: the tabs and the first pane's views go in."""
        for stand_in in list(self.query(StandIn).results()):
            if stand_in.kind == "tabs":
                tabs = core.session_tabs(id="tabs")
                await replace_stand_in(stand_in, tabs)
                self.tabs = tabs
        await self.query_one(f"#{FIRST_PANE}", ChatPane).views_arrived(core)

    def attach(self, workspace: Workspace) -> None:
        self.workspace = workspace
        workspace.opening.previews_shown = True  # the panes say when (see `ChatPane`)

    # -- what is shown -----------------------------------------------------------------------

    @property
    def current_pane(self) -> ChatPane:
        switcher = self.query_one("#panes", ContentSwitcher)
        return self.query_one(f"#{switcher.current or FIRST_PANE}", ChatPane)

    @property
    def agent_status(self) -> str:
        """What the current tab's agent or session is doing (see `ChatPane.agent_status`)."""
        return self.current_pane.agent_status

    def status_text(self) -> str:
        return self.current_pane.status_text()

    def pane_of(self, slot: SessionSlot) -> ChatPane | None:
        return self.panes.get(slot.id)

    # -- Workspace events: one handler per kind ----------------------------------------------

    @on(messages.SlotAdded)
    async def slot_added(self, message: messages.SlotAdded) -> None:
        if self.workspace is not None:
            await self.add_pane(message.event.slot, self.workspace)
        self.refresh_bindings()  # the tab keys, from two tabs on

    @on(messages.SlotRemoved)
    async def slot_removed(self, message: messages.SlotRemoved) -> None:
        await self.remove_pane(message.event.slot)
        self.refresh_bindings()

    @on(messages.CurrentChanged)
    def current_changed(self, message: messages.CurrentChanged) -> None:
        if self.workspace is not None:
            self.show_current(message.event.slot, self.workspace)

    @on(messages.SlotStateChanged)
    def slot_state_changed(self, message: messages.SlotStateChanged) -> None:
        """Its status line, its queue's reason, its tab and its row's tags follow the state."""
        slot = message.event.slot
        message.take()
        pane = self.pane_of(slot)
        if pane is not None:
            pane.refresh_status()
            pane.refresh_queue()
        self.refresh_tab(slot)
        if self.browser is not None:
            self.browser.render_rows()

    @on(messages.QueueChanged)
    def queue_changed(self, message: messages.QueueChanged) -> None:
        slot = message.event.slot
        message.take()
        pane = self.pane_of(slot)
        if pane is not None:
            pane.refresh_queue()
        self.refresh_tab(slot)

    @on(messages.AttentionChanged)
    def attention_changed(self, message: messages.AttentionChanged) -> None:
        """A tab in the background wants the user: its tab and row say why, with a bell."""
        slot = message.event.slot
        self.refresh_tab(slot)
        if slot.attention is not None:
            self.app.bell()
        if self.browser is not None:
            self.browser.render_rows()

    @on(messages.TurnChanged)
    def turn_changed(self, message: messages.TurnChanged) -> None:
        message.take()
        self.refresh_slot_status(message.event.slot)

    @on(messages.SessionInfoChanged)
    def session_info_changed(self, message: messages.SessionInfoChanged) -> None:
        """A session's title: its tab and status line where it is shown, and its row (a flood
        of titles: once, with the last)."""
        event, ws = message.merged(), self.workspace
        slot = ws.board.slot_showing(event.agent, event.session_id) if ws is not None else None
        if slot is not None:
            self.refresh_slot_status(slot)
        if self.browser is not None:
            self.browser.session_info_changed(event)

    @on(messages.SessionRenamed)
    def session_renamed(self, message: messages.SessionRenamed) -> None:
        """A local title: the tab and status line of the session, and its row."""
        event, ws = message.event, self.workspace
        slot = ws.board.slot_showing(event.agent, event.session_id) if ws is not None else None
        if slot is not None:
            self.refresh_slot_status(slot)
        if self.browser is not None:
            self.browser.render_rows()

    @on(messages.SessionShown)
    async def session_shown(self, message: messages.SessionShown) -> None:
        slot = message.event.slot
        pane = self.pane_of(slot)
        if pane is not None:
            pane.show_session()
        self.refresh_tab(slot)
        if self.browser is not None:
            self.browser.agent_ready()
        settle_memory()  # startup and any replayed history are long-lived from here on
        if not self.registry_offered:  # once, after the demo agent is up: it never waits
            from acp_tui.ui.registry_offer import first_run_offer

            self.registry_offered = True
            busy = pane is not None and (pane.prompt.text.strip() or slot.prompted or slot.queue)
            await first_run_offer(self.app, typing=self.typed or bool(busy))

    @on(messages.RevealRequested)
    def reveal_requested(self, message: messages.RevealRequested) -> None:
        from acp_tui.ui.library.opening import reveal_when_open

        if self.workspace is not None:
            reveal_when_open(self.app, self.workspace, message.slot, message.hit, self.pane_of)

    @on(messages.AgentChanged)
    def agent_changed(self, message: messages.AgentChanged) -> None:
        """The tabs of the agent show its status; the browser lists it afresh once it is back."""
        agent, ws = message.event.agent, self.workspace
        if ws is None:
            return
        for slot in ws.board.slots_of(agent):
            self.refresh_slot_status(slot)
        if self.browser is not None and self.browser.agent is agent:
            self.browser.agent_ready()

    @on(messages.Notice)
    def notice(self, message: messages.Notice) -> None:
        """Every notice that came since the last were said (a toast each, bounded)."""
        for event in message.take():
            severity: SeverityLevel = "information" if event.level == "info" else event.level
            self.app.notify(event.text, severity=severity, timeout=10, markup=False)

    @on(messages.DraftsReturned)
    def drafts_returned(self, message: messages.DraftsReturned) -> None:
        pane = self.pane_of(message.event.slot)
        if pane is not None:
            pane.return_drafts(message.event.texts)

    @on(messages.ActionProgress)
    def action_progress(self, message: messages.ActionProgress) -> None:
        if self.browser is not None:
            self.browser.show_progress_of(message.event)

    @on(messages.SessionsChanged)
    def sessions_changed(self, message: messages.SessionsChanged) -> None:
        if self.browser is not None:
            self.browser.sessions_changed(message.event)

    async def add_pane(self, slot: SessionSlot, ws: Workspace) -> None:
        first = self.query_one(f"#{FIRST_PANE}", ChatPane)
        if first.slot is None and not self.panes:
            pane = first  # the first frame's pane takes the first slot, draft and all
        else:
            pane = ChatPane(self.launch, core=self.startup.core, history=self.history)
            pane.id = f"pane-{slot.id}"
            await self.query_one("#panes", ContentSwitcher).mount(pane)
        self.panes[slot.id] = pane
        pane.bind(slot, ws)
        self.refresh_tab(slot)

    async def remove_pane(self, slot: SessionSlot) -> None:
        pane = self.panes.pop(slot.id, None)
        if self.tabs is not None:
            self.tabs.remove_slot(slot.id)
        if pane is not None and pane.id != FIRST_PANE:
            await pane.remove()
        elif pane is not None:
            pane.display = False  # the first pane stays: the switcher's initial child

    def show_current(self, slot: SessionSlot | None, ws: Workspace) -> None:
        if slot is None or not self.show_tab(slot):
            return
        if self.tabs is not None:
            self.tabs.show_slot(slot.id)
        if self.browser is not None:
            self.browser.bind(ws, slot.agent)
            if self.browser.width != "hidden":  # else it renders when shown
                self.browser.render_rows()

    def refresh_slot_status(self, slot: SessionSlot) -> None:
        """Render the slot's status line and its tab again."""
        pane = self.pane_of(slot)
        if pane is not None:
            pane.refresh_status()
        self.refresh_tab(slot)

    def refresh_tab(self, slot: SessionSlot) -> None:
        from acp_tui.ui.widgets.session_tabs import tab_label

        tabs, ws = self.tabs, self.workspace
        if tabs is None or ws is None or slot not in ws.slots:
            return
        several_agents = len({s.agent.key for s in ws.slots}) > 1
        number = ws.slots.index(slot) + 1
        tabs.set_tab(slot.id, tab_label(slot, number, with_agent=several_agents))

    @on(TabChosen)
    def tab_chosen(self, event: TabChosen) -> None:
        """A tab was clicked: make its slot the current one."""
        ws = self.workspace
        if ws is not None:
            ws.board.focus(next((s for s in ws.slots if s.id == event.slot_id), None))

    # -- keys --------------------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        self.current_pane.cancel_turn()

    def action_copy_last_reply(self) -> None:
        """Copy the agent's last reply (its markdown source) to the clipboard."""
        view = self.current_pane.transcript_view
        if view is not None:
            view.action_copy_last_reply()

    def action_focus_prompt(self) -> None:
        """Give the current tab's prompt the focus, from anywhere on the screen: at once, not
        after the keys already read (a real terminal delivers Ctrl+L and what is typed next in
        one read, and those keys belong to the prompt)."""
        self.set_focus(self.current_pane.prompt)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_prompt":  # shown in the footer only where it does something
            return self.focused is None or self.focused.id != "prompt"  # runs on every switch
        if action == "step_tab":  # shown (and taken from the focused widget) with two tabs
            return self.workspace is not None and len(self.workspace.slots) > 1
        return True

    def action_toggle_thoughts(self) -> None:
        """Show or hide the agent's thoughts (the show_thoughts setting is the default)."""
        view = self.current_pane.transcript_view
        if view is not None:
            view.show_thoughts = not view.show_thoughts

    def action_step_tab(self, step: int) -> None:
        if self.workspace is not None:
            self.workspace.board.focus_step(step)
            self.show_tab(self.workspace.board.current)

    def action_go_to_tab(self, number: int) -> None:
        ws = self.workspace
        if ws is not None and 0 < number <= len(ws.slots):
            ws.board.focus(ws.slots[number - 1])
            self.show_tab(ws.board.current)

    def show_tab(self, slot: SessionSlot | None) -> bool:
        """Show the pane of ``slot`` and focus its prompt, at once (the tab keys call it before
        the Workspace's event arrives: the keys read with a tab key are the new tab's)."""
        pane = self.pane_of(slot) if slot is not None else None
        if pane is not None:
            pane.display = True
            self.query_one("#panes", ContentSwitcher).current = pane.id
            self.set_focus(pane.prompt)
        return pane is not None

    async def open_browser(self) -> SessionBrowser | None:
        """The session browser, mounted (hidden, listing the current tab's agent) the first time
        it is wanted; None until the core is loaded."""
        async with self._browser_arriving:  # two quick Ctrl+B: one browser
            core = self.startup.core
            if self.browser is None and core is not None:
                browser = core.session_browser(self.launch.cwd, id="browser")
                await self.query_one("#main", Horizontal).mount(browser, before="#chat")
                self.browser = browser
                ws = self.workspace
                if ws is not None and ws.board.current is not None:
                    browser.bind(ws, ws.board.current.agent)
        return self.browser

    async def toggle_browser(self) -> None:
        """Show the session browser, widen it, hide it."""
        browser = await self.open_browser()
        if browser is not None:  # else it is a few frames from arriving
            browser.cycle()


def give_dialog_its_keys(screen: Screen[object]) -> None:
    """A dialog over the chat shows its own keys in a footer of its own, not the chat's."""
    if isinstance(screen, ModalScreen) and not screen.query(Footer):
        screen.mount(QuietFooter())
