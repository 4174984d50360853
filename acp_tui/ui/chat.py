"""Provides ChatScreen: the live session's status line, transcript, options bar and prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from acp_tui.client.errors import AgentError
from acp_tui.client.session import LiveSession
from acp_tui.client.transcript import Change
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.store.history import history_for_project
from acp_tui.ui.browser.panel import SessionBrowser
from acp_tui.ui.render import sanitize
from acp_tui.ui.transcript_view import TranscriptView
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.session_options import SessionOptions

if TYPE_CHECKING:
    from acp_tui.ui.app import AcpApp

STATE_LABELS = {"idle": "ready", "running": "working…", "requires_action": "waiting for you"}


class ChatScreen(Screen[None]):
    """The chat with the agent: a status line, the transcript and the prompt editor."""

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+o", "copy_last_reply", "Copy reply"),
        Binding("ctrl+t", "toggle_thoughts", "Thoughts", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: LiveSession | None = None
        self.agent_status = "starting the agent…"
        self._unsubscribe: object = None

    @property
    def acp(self) -> AcpApp:
        """The app, typed (the chat screen only ever runs inside AcpApp)."""
        from acp_tui.ui.app import AcpApp

        app = self.app
        assert isinstance(app, AcpApp)
        return app

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield SessionBrowser(id="browser")  # the session browser (Ctrl+B), hidden at first
            with Vertical(id="chat"):
                yield Static(self.status_text(), id="status")
                yield TranscriptView(id="transcript")
                yield SessionOptions(id="session-options")
                yield PromptInput(id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        prompt = self.query_one(PromptInput)
        # The prompt history is kept per project.
        prompt.prompt_history = history_for_project(self.acp.launch.cwd, self.acp.paths)
        prompt.focus()
        self.query_one(TranscriptView).show_thoughts = self.acp.launch.settings.show_thoughts
        if self.session is not None:
            self.show_session(self.session)

    # -- status ------------------------------------------------------------------------------

    def status_text(self) -> str:
        """Agent, protocol, cwd, extra roots, then the turn state (or the agent's state)."""
        app = self.acp
        launch = app.launch
        parts = [app.agent_display_name, f"ACP v{app.protocol_version}", str(launch.cwd)]
        roots = (
            self.session.additional_directories if self.session else launch.additional_directories
        )
        if roots:
            parts.append("+ " + ", ".join(p.name or str(p) for p in roots))
        if self.session is not None and app.agent_alive:
            transcript = self.session.transcript
            parts.append(STATE_LABELS.get(transcript.state, transcript.state))
        else:
            parts.append(self.agent_status)
        if self.session is not None and self.session.title:
            parts.append(self.session.title)
        return sanitize("  ·  ".join(parts))

    def refresh_status(self) -> None:
        for status in self.query("#status").results(Static):
            status.update(self.status_text())

    def set_agent_status(self, text: str) -> None:
        self.agent_status = text
        self.refresh_status()

    # -- the session ---------------------------------------------------------------------------

    def show_session(self, session: LiveSession) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()
        self.session = session
        if self.is_mounted:
            self.query_one(TranscriptView).show(session.transcript, session.terminal_output)
            self.query_one(PromptInput).set_session(session)
            self.query_one(SessionOptions).show(session.transcript)
        self._unsubscribe = session.transcript.subscribe(self.on_transcript_change)
        self.refresh_status()

    def on_transcript_change(self, change: Change) -> None:
        if change.kind in ("state", "meta"):
            self.refresh_status()

    @on(PromptInput.Submitted)
    def send_prompt(self, event: PromptInput.Submitted) -> None:
        if self.acp.submit_prompt(event.text, event.attachments):
            event.prompt_input.clear()

    def action_cancel_turn(self) -> None:
        self.acp.cancel_turn()

    def action_copy_last_reply(self) -> None:
        """Copy the agent's last reply (its markdown source) to the clipboard."""
        self.query_one(TranscriptView).action_copy_last_reply()

    def action_toggle_thoughts(self) -> None:
        """Show or hide the agent's thoughts (the show_thoughts setting is the default)."""
        view = self.query_one(TranscriptView)
        view.show_thoughts = not view.show_thoughts

    # -- modes and config options --------------------------------------------------------------

    @on(SessionOptions.ConfigChanged)
    def change_config_option(self, event: SessionOptions.ConfigChanged) -> None:
        self.apply_session_option(event.config_id, event.value)

    @on(SessionOptions.ModeChanged)
    def change_mode(self, event: SessionOptions.ModeChanged) -> None:
        self.apply_session_option(None, event.mode_id)

    @work(group="session-options", exit_on_error=False)
    async def apply_session_option(self, config_id: str | None, value: str | bool) -> None:
        """`session/set_config_option` (or `set_mode` when ``config_id`` is None)."""
        client, session = self.acp.client, self.acp.session
        if client is None or session is None:
            return
        try:
            if config_id is None:
                await client.set_mode(session.session_id, str(value))
            else:
                await client.set_config_option(session.session_id, config_id, value)
        except (AgentError, RpcError) as exc:
            session.transcript.add_notice(f"Could not change the setting: {exc}", "error")
            self.query_one(SessionOptions).refresh_from_transcript()
