"""Provides AcpApp, the Textual application, and run_app, its entry point from the CLI.

The app owns one long-lived worker per agent: it launches the agent, opens a session and keeps
the connection until the app exits (the worker's cancellation shuts the agent's process group
down). Screens render from the client's transcript model and never see wire JSON.
"""

from __future__ import annotations

import contextlib
import logging

import anyio
from textual import work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from acp_tui.client.agent import AgentClient, connect
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.launch import LaunchSpec
from acp_tui.client.session import LiveSession
from acp_tui.config.paths import Paths, get_paths
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.ui.chat import ChatScreen
from acp_tui.ui.dialogs.permission import PermissionDialog

log = logging.getLogger(__name__)


class AcpApp(App[int]):
    """acp-tui: chat with an ACP agent."""

    TITLE = "acp-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, launch: LaunchSpec, *, paths: Paths | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.paths = paths or get_paths()
        self.client: AgentClient | None = None
        self.session: LiveSession | None = None
        self.chat = ChatScreen()
        self.pending_prompts: list[str] = []
        self._quit: anyio.Event | None = None
        self._agent_worker: Worker[None] | None = None

    @property
    def agent_display_name(self) -> str:
        if self.client is not None:
            return self.client.capabilities.display_name
        return self.launch.display_name or self.launch.agent.name

    def get_default_screen(self) -> Screen[None]:
        return self.chat

    def on_mount(self) -> None:
        self._quit = anyio.Event()
        self._agent_worker = self.run_agent()

    async def on_unmount(self) -> None:
        await self.stop_agent()

    async def stop_agent(self, within: float = 10.0) -> None:
        """Close the agent gracefully (stdin, then signals) and wait for it, boundedly.

        Textual cancels workers without waiting for them, so the app waits here, while its
        loop still runs, for the agent's process group to be gone.
        """
        if self._quit is not None:
            self._quit.set()
        worker = self._agent_worker
        if worker is not None and not worker.is_finished:
            with anyio.move_on_after(within), contextlib.suppress(Exception):
                await worker.wait()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker failed in a way nobody expected: say so instead of failing silently."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            log.error("worker %s failed", event.worker.name, exc_info=error)
            self.report_failure(f"Internal error in {event.worker.name}", error)

    # -- the agent ---------------------------------------------------------------------------

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def run_agent(self) -> None:
        """Launch the agent and keep it for the life of the app."""
        chat = self.chat
        chat.set_agent_status("starting the agent…")
        try:
            async with connect(
                self.launch, permission_handler=self.ask_permission, paths=self.paths
            ) as client:
                self.client = client
                chat.set_agent_status("opening a session…")
                session = await client.new_session(
                    self.launch.cwd, self.launch.additional_directories
                )
                self.session = session
                chat.show_session(session)
                self.send_pending_prompts()
                assert self._quit is not None
                await first_of(self._quit, client.exited)
                if not self._quit.is_set():
                    raise client.process.exit_error()
        except AgentExited as exc:
            self.report_failure("The agent exited", exc)
        except (AgentError, RpcError) as exc:
            self.report_failure("Could not talk to the agent", exc)

    def report_failure(self, what: str, exc: BaseException) -> None:
        message = f"{what}: {exc}"
        self.chat.set_agent_status(what.lower())
        if self.session is not None:
            self.session.transcript.add_notice(message, "error")
        else:
            self.notify(message, severity="error", timeout=30)

    # -- prompts -----------------------------------------------------------------------------

    def submit_prompt(self, text: str) -> bool:
        """Send ``text`` now, or as soon as the session is open. False if it cannot be taken."""
        if self.session is None:
            self.pending_prompts.append(text)
            self.notify("The agent is still starting; your message will be sent when it is ready.")
            return True
        if self.session.prompt_pending:
            self.notify("The agent is still working: wait, or press Esc to cancel the turn.")
            return False
        self.run_prompt(text)
        return True

    def send_pending_prompts(self) -> None:
        if self.pending_prompts:
            text = "\n\n".join(self.pending_prompts)
            self.pending_prompts.clear()
            self.run_prompt(text)

    @work(group="prompt", exit_on_error=False)
    async def run_prompt(self, text: str) -> None:
        client, session = self.client, self.session
        if client is None or session is None:
            return
        try:
            await client.prompt(session.session_id, [TextContent(text=text)])
        except (AgentError, RpcError) as exc:
            session.transcript.add_notice(f"The prompt failed: {exc}", "error")

    def cancel_turn(self) -> None:
        if self.client is not None and self.session is not None and self.session.prompt_pending:
            self.run_cancel(self.client, self.session)

    @work(group="cancel", exit_on_error=False)
    async def run_cancel(self, client: AgentClient, session: LiveSession) -> None:
        try:
            await client.cancel(session.session_id)
        except AgentError as exc:
            session.transcript.add_notice(f"Could not cancel: {exc}", "error")

    # -- permission --------------------------------------------------------------------------

    async def ask_permission(
        self, session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        """Show the permission dialog; cancellation (session/cancel) closes it unanswered."""
        answered = anyio.Event()
        choice: list[str | None] = []

        def done(option_id: str | None) -> None:
            choice.append(option_id)
            answered.set()

        dialog = PermissionDialog(request)
        self.push_screen(dialog, callback=done)
        try:
            await answered.wait()
        finally:
            if not answered.is_set() and dialog.is_attached:
                dialog.dismiss(None)
        option_id = choice[0] if choice else None
        if option_id is None:
            return CancelledPermissionOutcome()
        return SelectedPermissionOutcome(option_id=option_id)


async def first_of(*events: anyio.Event) -> None:
    """Wait until any of ``events`` is set."""
    async with anyio.create_task_group() as tg:

        async def wait_one(event: anyio.Event) -> None:
            await event.wait()
            tg.cancel_scope.cancel()

        for event in events:
            tg.start_soon(wait_one, event)


def run_app(launch: LaunchSpec) -> int:
    """Run the app until the user quits; the return value is the process exit status."""
    app = AcpApp(launch)
    result = app.run()
    return result if isinstance(result, int) else 0
