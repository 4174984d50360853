"""Provides ChatScreen: the transcript of the live session, its status line and the prompt."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from acp_tui.client.session import LiveSession
from acp_tui.client.transcript import Change
from acp_tui.store.history import history_for_project
from acp_tui.ui.render import sanitize
from acp_tui.ui.transcript_view import TranscriptView
from acp_tui.ui.widgets.prompt_input import PromptInput

STATE_LABELS = {"idle": "ready", "running": "working…", "requires_action": "waiting for you"}


class ChatScreen(Screen[None]):
    """The chat with the agent: a status line, the transcript and the prompt editor."""

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: LiveSession | None = None
        self.agent_status = "starting the agent…"
        self._unsubscribe: object = None

    def compose(self) -> ComposeResult:
        with Vertical(id="chat"):
            yield Static(self.status_text(), id="status")
            yield TranscriptView(id="transcript")
            yield PromptInput(id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        from acp_tui.ui.app import AcpApp

        prompt = self.query_one(PromptInput)
        if isinstance(self.app, AcpApp):  # the prompt history is kept per project
            prompt.prompt_history = history_for_project(self.app.launch.cwd, self.app.paths)
        prompt.focus()
        if self.session is not None:
            self.show_session(self.session)

    def status_text(self) -> str:
        from acp_tui.ui.app import AcpApp

        app = self.app
        launch = app.launch if isinstance(app, AcpApp) else None
        parts = []
        if launch is not None:
            name = app.agent_display_name if isinstance(app, AcpApp) else launch.agent.name
            parts.append(name)
            parts.append(f"ACP v{launch.protocol_version}")
            parts.append(str(launch.cwd))
            if launch.additional_directories:
                parts.append(f"+{len(launch.additional_directories)} roots")
        if self.session is not None:
            parts.append(
                STATE_LABELS.get(self.session.transcript.state, self.session.transcript.state)
            )
            if self.session.title:
                parts.append(self.session.title)
        else:
            parts.append(self.agent_status)
        return sanitize("  ·  ".join(parts))

    def refresh_status(self) -> None:
        for status in self.query("#status").results(Static):
            status.update(self.status_text())

    def show_session(self, session: LiveSession) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()
        self.session = session
        if self.is_mounted:
            self.query_one(TranscriptView).show(session.transcript, session.terminal_output)
            self.query_one(PromptInput).set_session(session)
        self._unsubscribe = session.transcript.subscribe(self._on_change)
        self.refresh_status()

    def set_agent_status(self, text: str) -> None:
        self.agent_status = text
        self.refresh_status()

    def _on_change(self, change: Change) -> None:
        if change.kind in ("state", "meta"):
            self.refresh_status()

    @on(PromptInput.Submitted)
    def send_prompt(self, event: PromptInput.Submitted) -> None:
        from acp_tui.ui.app import AcpApp

        app = self.app
        if isinstance(app, AcpApp) and app.submit_prompt(event.text, event.attachments):
            event.prompt_input.clear()

    def action_cancel_turn(self) -> None:
        from acp_tui.ui.app import AcpApp

        if isinstance(self.app, AcpApp):
            self.app.cancel_turn()
