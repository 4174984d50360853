"""Provides ChatScreen: the live session's status line, transcript, options bar and prompt.

The first frame shows the status line, the prompt editor (usable at once) and the footer. The
transcript view, the options bar and the session browser need the protocol models, which take
longer to import than Textual itself, so a thread imports them after the first frame and the
screen puts them in place; `views_ready` is set then, and the agent is started after it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from acp_tui.client.errors import AgentError
from acp_tui.protocol.errors import RpcError
from acp_tui.store.history import history_for_project
from acp_tui.ui.memory import resume_collection
from acp_tui.ui.safe_text import NAME_LIMIT, sanitize
from acp_tui.ui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from acp_tui.client.session import LiveSession
    from acp_tui.client.transcript import Change
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.transcript_view import TranscriptView
    from acp_tui.ui.widgets.session_options import SessionOptions

STATE_LABELS = {"idle": "ready", "running": "working…", "requires_action": "waiting for you"}


class ChatScreen(Screen[None]):
    """The chat with the agent: a status line, the transcript and the prompt editor."""

    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+o", "copy_last_reply", "Copy", tooltip="Copy the last reply"),
        Binding("ctrl+t", "toggle_thoughts", "Thoughts", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: LiveSession | None = None
        self.agent_status = "starting the agent…"
        self._unsubscribe: object = None
        self.views_ready = asyncio.Event()
        """Set once the transcript view, the options bar and the session browser are in place."""

    @property
    def acp(self) -> AcpApp:
        """The app, typed (the chat screen only ever runs inside AcpApp)."""
        from acp_tui.ui.app import AcpApp

        app = self.app
        assert isinstance(app, AcpApp)
        return app

    def compose(self) -> ComposeResult:
        # The session browser (Ctrl+B, hidden at first) arrives with the views, left of #chat;
        # until then stand-ins look like the empty transcript and options bar.
        with Horizontal(id="main"), Vertical(id="chat"):
            yield Static(Content(self.status_text()), id="status")
            yield Static(id="transcript-stand-in", classes="stand-in")
            yield Static(id="session-options-stand-in", classes="stand-in")
            yield PromptInput(id="prompt")
        yield Footer(compact=True)  # every key fits in 80 columns

    def on_mount(self) -> None:
        prompt = self.query_one(PromptInput)
        # The prompt history is kept per project.
        prompt.prompt_history = history_for_project(self.acp.launch.cwd, self.acp.paths)
        prompt.focus()
        self.call_after_refresh(self.load_views)  # not before the first frame is out

    @work(group="chat-views")
    async def load_views(self) -> None:
        """Import the views in a thread (typing goes on meanwhile), then swap them in."""
        browser_cls, transcript_cls, options_cls = await asyncio.to_thread(_view_classes)
        view = transcript_cls(id="transcript")
        view.show_thoughts = self.acp.launch.settings.show_thoughts
        with self.app.batch_update():
            await self.query_one("#main").mount(browser_cls(id="browser"), before="#chat")
            await self.query_one("#chat").mount_all(
                [view, options_cls(id="session-options")], before="#transcript-stand-in"
            )
            await self.query(".stand-in").remove()
        resume_collection()  # startup is over (see pause_collection)
        self.views_ready.set()
        if self.session is not None:
            self.show_session(self.session)

    @property
    def transcript_view(self) -> TranscriptView:
        from acp_tui.ui.transcript_view import TranscriptView

        return self.query_one(TranscriptView)

    @property
    def session_options(self) -> SessionOptions:
        from acp_tui.ui.widgets.session_options import SessionOptions

        return self.query_one(SessionOptions)

    @property
    def browser(self) -> SessionBrowser:
        from acp_tui.ui.browser.panel import SessionBrowser

        return self.query_one(SessionBrowser)

    # -- status ------------------------------------------------------------------------------

    def status_text(self) -> str:
        """Agent, protocol, cwd, extra roots, then the turn state (or the agent's state).

        Sanitised plain text (agent and session titles come from the agent): shown as
        ``Content``, never parsed as markup.
        """
        app = self.acp
        launch = app.launch
        name = sanitize(app.agent_display_name, NAME_LIMIT)
        parts = [name, f"ACP v{app.protocol_version}", sanitize(str(launch.cwd))]
        roots = (
            self.session.additional_directories if self.session else launch.additional_directories
        )
        if roots:
            parts.append("+ " + ", ".join(sanitize(p.name or str(p), NAME_LIMIT) for p in roots))
        if self.session is not None and app.agent_alive:
            transcript = self.session.transcript
            parts.append(sanitize(STATE_LABELS.get(transcript.state, transcript.state)))
        else:
            parts.append(sanitize(self.agent_status, NAME_LIMIT))
        if self.session is not None and self.session.title:
            parts.append(sanitize(self.session.title, NAME_LIMIT))
        return "  ·  ".join(parts)

    def refresh_status(self) -> None:
        for status in self.query("#status").results(Static):
            status.update(Content(self.status_text()))

    def set_agent_status(self, text: str) -> None:
        self.agent_status = text
        self.refresh_status()

    # -- the session ---------------------------------------------------------------------------

    def show_session(self, session: LiveSession) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()
        self.session = session
        if self.views_ready.is_set():
            self.transcript_view.show(session.transcript, session.terminal_output)
            self.query_one(PromptInput).set_session(session)
            self.session_options.show(session.transcript)
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
        if self.views_ready.is_set():
            self.transcript_view.action_copy_last_reply()

    def action_toggle_thoughts(self) -> None:
        """Show or hide the agent's thoughts (the show_thoughts setting is the default)."""
        if self.views_ready.is_set():
            view = self.transcript_view
            view.show_thoughts = not view.show_thoughts

    # -- modes and config options --------------------------------------------------------------

    # (Handlers by name: SessionOptions is not imported before the first frame.)
    def on_session_options_config_changed(self, event: SessionOptions.ConfigChanged) -> None:
        self.apply_session_option(event.config_id, event.value)

    def on_session_options_mode_changed(self, event: SessionOptions.ModeChanged) -> None:
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
            self.session_options.refresh_from_transcript()


def _view_classes() -> tuple[type[SessionBrowser], type[TranscriptView], type[SessionOptions]]:
    """The view classes, imported (in a worker thread) after the first frame."""
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.transcript_view import TranscriptView
    from acp_tui.ui.widgets.session_options import SessionOptions

    return SessionBrowser, TranscriptView, SessionOptions
