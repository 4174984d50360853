"""Provides ChatPane: one session's tab: status line, transcript, options bar, queue and prompt.

Each open session has its own pane, so its draft, prompt-history position, scroll position and
rendered transcript stay as they were while another tab is shown, and switching back is instant.
The pane shows its slot (state down) and acts on it through the Workspace it is given: Enter
submits (the Workspace sends or queues), the queue's rows are edited or removed there, a picked
option is applied there. Before the Workspace exists (the first frame), Enter keeps the text in
the pane's own queue, shown the same way, and hands it over once the slot is bound.

The keys that act on the transcript work from anywhere in the pane: PageUp/PageDown and
Ctrl+Home/End scroll it (from the prompt too, unless its draft is taller than it, see
`PromptInput`), Ctrl+F opens the find bar over it, and Esc goes back to the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content

from acp_tui.ui.messages import CommandTyped, OptionChosen
from acp_tui.ui.startup import StandIn, replace_stand_in
from acp_tui.ui.widgets.pane_queue import PaneQueue
from acp_tui.ui.widgets.pane_views import PANE_VIEWS, PLACEHOLDER, new_view
from acp_tui.ui.widgets.status_line import StatusLine
from acp_tui.ui.widgets.status_text import agent_status, status_text, waited

if TYPE_CHECKING:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.store.history import PromptHistory
    from acp_tui.ui.startup import Core
    from acp_tui.ui.transcript.view import TranscriptView
    from acp_tui.ui.widgets.context_bar import ContextBar
    from acp_tui.ui.widgets.find_bar import FindBar
    from acp_tui.ui.widgets.prompt_input import PromptInput
    from acp_tui.ui.widgets.queue_view import QueueView
    from acp_tui.ui.widgets.session_options import SessionOptions

__all__ = ["ChatPane"]


class ChatPane(Vertical):
    """The chat of one slot; see the module docstring."""

    DEFAULT_CSS = """
    ChatPane {
        height: 1fr;
        #status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
        #transcript { height: 1fr; }
        #prompt { margin: 0 0; }
    }
    """

    BINDINGS = [
        Binding("ctrl+up", "focus_queue", "Queued", tooltip="Edit the queued messages"),
        Binding("ctrl+f", "find", "Find"),
        Binding("shift+tab", "cycle_mode", "Mode", show=False, tooltip="The session's next mode"),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("ctrl+home", "transcript_edge(False)", "Top", show=False),
        Binding("ctrl+end", "transcript_edge(True)", "End", show=False),
        Binding("escape", "back_to_prompt", "Prompt", show=False),
    ]

    def __init__(
        self,
        launch: LaunchSpec,
        *,
        core: Core | None,
        history: PromptHistory | None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.launch = launch
        self.core = core
        self.history = history
        self.slot: SessionSlot | None = None
        self.workspace: Workspace | None = None
        self.queue = PaneQueue()
        """The prompts waiting to be sent (kept here before the Workspace exists)."""
        self._status_line: StatusLine | None = None
        self._status_shown = ""

    def compose(self) -> ComposeResult:
        self._status_shown = self.status_text()
        self._status_line = StatusLine(Content(self._status_shown), id="status")
        yield self._status_line
        core = self.core
        if core is None:
            # The first frame: what it does not show (the views, and the find bar, the queue
            # and the context bar, hidden while empty) comes after it (`views_arrived`), and
            # the prompt just after it (`prompt_arrives`): keys typed meanwhile wait for it.
            for kind in PANE_VIEWS:
                yield StandIn(kind)
            yield StandIn("prompt", PLACEHOLDER)
        else:
            for kind in PANE_VIEWS:
                yield new_view(kind, core, self.launch)
            yield self.new_prompt()

    def new_prompt(self) -> PromptInput:
        from acp_tui.ui.widgets.prompt_input import PromptInput  # after the first frame

        return PromptInput(history=self.history, id="prompt")

    async def prompt_arrives(self) -> None:
        """The first pane's prompt for its stand-in, focused (`AcpApp.replay_early_input` gives
        it the keys typed before); in the pane at once, and only the first call adds it."""
        for stand_in in list(self.query(StandIn)):
            if stand_in.kind == "prompt":
                stand_in.kind = "prompt, replaced"
                prompt = self.new_prompt()
                with self.app.batch_update():
                    mounted = self.mount(prompt, before=stand_in)
                    prompt.focus()
                    await mounted
                    await stand_in.remove()

    async def views_arrived(self, core: Core) -> None:
        """Replace the stand-ins by the views (the first pane, once the core is loaded)."""
        await self.prompt_arrives()  # (it has, unless the core came first)
        self.core = core
        with self.app.batch_update():
            for stand_in in list(self.query(StandIn)):
                if stand_in.kind in PANE_VIEWS:  # (the prompt's may still be on its way out)
                    await replace_stand_in(stand_in, new_view(stand_in.kind, core, self.launch))
        if self.slot is not None:
            self.show_session()
        else:
            self.refresh_queue()

    async def queue_arrives(self) -> None:
        """The queue, just after the first frame: prompts sent before the Workspace exists
        wait in it (it shows them when it arrives)."""
        for stand_in in list(self.query(StandIn)):
            if stand_in.kind == "queue":
                await replace_stand_in(stand_in, new_view("queue", self.core, self.launch))
                self.refresh_queue()

    @property
    def prompt(self) -> PromptInput:
        return cast("PromptInput", self.query_one("#prompt"))  # no stand-in: it has no id

    @property
    def transcript_view(self) -> TranscriptView | None:
        if self.core is None:
            return None
        views = self.query(self.core.transcript_view)
        return views.first() if views else None

    @property
    def find_bar(self) -> FindBar:
        return cast("FindBar", self.query_one("#find"))  # not a stand-in once the core is in

    @property
    def queue_view(self) -> QueueView | None:
        """The queue, once it has arrived (see `queue_arrives`)."""
        from acp_tui.ui.widgets.queue_view import QueueView  # it comes after the first frame

        queues = self.query(QueueView)
        return queues.first() if queues else None

    @property
    def session_options(self) -> SessionOptions | None:
        if self.core is None:
            return None
        bars = self.query(self.core.session_options)
        return bars.first() if bars else None

    # -- the slot --------------------------------------------------------------------------

    def bind(self, slot: SessionSlot, workspace: Workspace) -> None:
        """Show ``slot`` from now on; prompts sent before are handed to the Workspace."""
        self.slot, self.workspace = slot, workspace
        self.queue.bind(slot, workspace)
        self.show_session()

    def show_session(self) -> None:
        """The slot shows a (new) transcript: show it.

        The status line follows the Workspace's events (the screen calls `refresh_status` on a
        turn or a title change), not the transcript, so that each change renders it once.
        """
        slot = self.slot
        if slot is None:
            return
        transcript = slot.transcript
        view, options = self.transcript_view, self.session_options
        lookup = slot.session.terminal_output if slot.session is not None else None
        if view is not None:
            view.show(transcript, lookup)
            if self.find_bar.is_open:  # the same query, in the transcript shown now
                self.find_bar.search(self.find_bar.query_text)
            if slot.preview is not None and slot.session is None and self.workspace is not None:
                self.call_after_refresh(self.workspace.opening.preview_shown, slot)
        if options is not None:
            options.show(transcript)
        if slot.session is not None:
            self.prompt.set_session(slot.session)
        self.refresh_status()
        self.refresh_queue()

    # -- status and queue ------------------------------------------------------------------

    @property
    def agent_status(self) -> str:
        """What the agent or the slot is doing, while the session is not simply open."""
        return agent_status(self.slot)

    def status_text(self) -> str:
        """The status line (see `acp_tui.ui.widgets.status_line`)."""
        return status_text(self.launch, self.slot, self.workspace)

    def waited(self) -> str:
        return waited(self.slot, self.workspace)

    def on_mount(self) -> None:
        self.set_interval(1.0, self.tick)
        if self.core is None:
            self.call_after_refresh(self.queue_arrives)

    def tick(self) -> None:
        """Once a second: a running turn's time, or how long an opening has waited, on the
        status line (nothing otherwise)."""
        slot = self.slot
        if slot is not None and (slot.transcript.turn_started is not None or self.waited()):
            self.refresh_status()

    def refresh_status(self) -> None:
        """Show the status line afresh, if it changed (a flood of turn changes, each question
        refused at once two of them, redrew it each time)."""
        text = self.status_text()
        if self._status_line is not None and text != self._status_shown:
            self._status_shown = text
            self._status_line.update(Content(text), layout=False)  # one line, whatever it says

    def refresh_queue(self) -> None:
        from acp_tui.ui.widgets.context_bar import ContextBar
        from acp_tui.ui.widgets.queue_view import Queued

        slot, queue = self.slot, self.queue_view
        if queue is None:
            return  # it has not arrived yet (see `queue_arrives`)
        shown = self.queue.shown()
        queued = [Queued(*prompt) for prompt in shown.prompts]
        queue.show_queue(queued, shown.reason, paused=shown.paused)
        if slot is not None:
            self.query_one(ContextBar).show_context(
                [f"!{c.command} · {c.lines} lines · {c.how_it_ended}" for c in slot.context]
            )
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_queue":  # offered while something waits (the queue or its stand-in)
            return any(getattr(queue, "queued", None) for queue in self.query("#queue"))
        if action == "cycle_mode":  # from the prompt, for a session with modes; else Shift+Tab
            session = self.slot.session if self.slot is not None else None
            if session is None or not self.prompt.has_focus:  # moves the focus back, as ever
                return False
            from acp_tui.client.session.modes import mode_picker  # the core is loaded by now

            return mode_picker(session.transcript) is not None
        return True

    def action_cycle_mode(self) -> None:
        """Shift+Tab in the prompt: ask for the session's next mode (the options bar shows it
        once the agent agrees)."""
        slot, ws = self.slot, self.workspace
        if slot is None or ws is None or ws.prompts.cycle_mode(slot) is None:
            raise SkipAction()

    def action_focus_queue(self) -> None:
        """Into the queued messages: Enter or e edits one, Delete removes it, Esc returns."""
        queue = self.queue_view
        if queue is not None:
            queue.focus()

    # -- what the user does ----------------------------------------------------------------

    # The prompt's, queue's, context and find bars' messages by name: the first frame has none.

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        from acp_tui.ui.slash import parse_prompt

        event.stop()
        view = self.transcript_view
        if view is not None:
            view.jump(None)  # what was sent, and the reply, are at the end
        commands = self.slot.transcript.commands if self.slot is not None else []
        parsed = parse_prompt(event.text, {command.name for command in commands})
        if parsed.kind != "text":  # acp-tui's command, or a ! command: the App runs it
            self.post_message(CommandTyped(parsed, event.text))
            return
        self.queue.send(event.text, event.attachments)
        if self.slot is None:
            self.refresh_queue()  # kept here: the Workspace's events show the others

    def on_queue_view_resume_requested(self, event: QueueView.ResumeRequested) -> None:
        event.stop()
        self.queue.resume()
        self.prompt.focus()

    def on_queue_view_edit_requested(self, event: QueueView.EditRequested) -> None:
        """Into the editor, after the draft; sent, it replaces the queued one in its place."""
        event.stop()
        text = self.queue.take_for_edit(event.prompt_id)
        if self.slot is None:
            self.refresh_queue()
        if text is not None:
            prompt = self.prompt
            prompt.load_text(text if not prompt.text.strip() else f"{prompt.text}\n{text}")
            prompt.move_cursor(prompt.document.end)
            prompt.focus()

    def on_queue_view_remove_requested(self, event: QueueView.RemoveRequested) -> None:
        event.stop()
        self.queue.take(event.prompt_id)
        if self.slot is None:
            self.refresh_queue()

    def on_prompt_input_take_off_attachment(self, event: PromptInput.TakeOffAttachment) -> None:
        """Backspace in the empty prompt: the last ``!`` output is taken off the next message."""
        event.stop()
        self.take_off_attachment(-1)

    def on_context_bar_remove_requested(self, event: ContextBar.RemoveRequested) -> None:
        event.stop()
        self.take_off_attachment(event.index)

    def take_off_attachment(self, index: int) -> None:
        """Take a ``!`` command's output off the next message."""
        if self.slot is not None and self.workspace is not None:
            self.workspace.shell.remove_context(self.slot, index)

    def on_queue_view_back(self, event: QueueView.Back | ContextBar.Back) -> None:
        event.stop()
        self.prompt.focus()

    on_context_bar_back = on_queue_view_back  # Esc in the context bar: the same

    # -- keys over the transcript -----------------------------------------------------------

    def action_find(self) -> None:
        view = self.transcript_view
        if view is not None:
            self.find_bar.open(view)

    def on_find_bar_closed(self, event: FindBar.Closed) -> None:
        event.stop()
        self.prompt.focus()

    def action_page(self, step: int) -> None:
        view = self.transcript_view
        if view is not None:
            view.page(step)

    def action_transcript_edge(self, end: bool) -> None:
        view = self.transcript_view
        if view is not None:
            view.jump(None if end else 0)

    def action_back_to_prompt(self) -> None:
        if self.prompt.has_focus:
            raise SkipAction()  # Esc in the prompt is the screen's: it cancels the turn
        self.screen.set_focus(self.prompt)  # at once: the keys typed next are the prompt's

    @on(OptionChosen)
    def apply_option(self, event: OptionChosen) -> None:
        event.stop()
        if self.slot is not None and self.workspace is not None:
            self.workspace.prompts.set_option(self.slot, event.config_id, event.value)

    @property
    def interruptible(self) -> bool:
        """A turn runs here, or a login is under way: Esc or Ctrl+C stops it."""
        slot = self.slot
        return slot is not None and (slot.busy or slot.agent.login_cancel is not None)

    def cancel_turn(self) -> None:
        """Esc: give up a login under way, or the opening of the session, else stop the !
        commands running, else cancel the running turn."""
        slot, ws = self.slot, self.workspace
        if slot is None or ws is None or ws.login.cancel_login(slot.agent):
            return
        if not ws.opening.cancel(slot) and not ws.shell.cancel(slot):
            ws.prompts.cancel_turn(slot)

    def return_drafts(self, texts: tuple[str, ...]) -> None:
        """Queued prompts came back: put them in the editor, after what is there."""
        prompt = self.prompt
        parts = [prompt.text.rstrip()] if prompt.text.strip() else []
        prompt.load_text("\n\n".join([*parts, *texts]))
        prompt.move_cursor(prompt.document.end)
