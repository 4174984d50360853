"""Provides AcpApp, the Textual application, and run_app, its entry point from the CLI.

The app owns one long-lived worker per agent: it launches the agent, opens a session and keeps
the connection until the app exits (the worker's cancellation shuts the agent's process group
down). Screens render from the client's transcript model and never see wire JSON.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

import anyio
from textual import work
from textual.app import App, SuspendNotSupported
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from acp_tui.client.agent import AgentClient, connect
from acp_tui.client.capabilities import AuthMethodInfo
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.launch import LaunchSpec
from acp_tui.client.prompt import build_prompt_blocks, resolve_mentions
from acp_tui.client.session import LiveSession
from acp_tui.config.paths import Paths, get_paths
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.ui.chat import ChatScreen
from acp_tui.ui.dialogs.auth import AuthDialog
from acp_tui.ui.dialogs.permission import PermissionDialog

log = logging.getLogger(__name__)


T = TypeVar("T")
R = TypeVar("R")
InteractiveRunner = Callable[[list[str], dict[str, str], Path], Awaitable[int]]


class NeedsTerminalLogin(Exception):
    """The user chose a terminal login: it runs with the app suspended, then we reconnect."""

    def __init__(self, method: AuthMethodInfo) -> None:
        super().__init__(method.name)
        self.method = method


class AcpApp(App[int]):
    """acp-tui: chat with an ACP agent."""

    TITLE = "acp-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+r", "restart_agent", "Restart agent"),
    ]

    def __init__(self, launch: LaunchSpec, *, paths: Paths | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.paths = paths or get_paths()
        self.client: AgentClient | None = None
        self.session: LiveSession | None = None
        self.chat = ChatScreen()
        self.pending_prompts: list[str] = []
        self._quit: anyio.Event | None = None
        self._restart: anyio.Event | None = None
        self.agent_alive = False
        self.restart_requested = False
        self.pending_login: AuthMethodInfo | None = None
        self.run_interactive: InteractiveRunner = self.run_in_terminal
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
        """Launch the agent and keep it for the life of the app; log in and restart on demand."""
        while True:
            login, self.pending_login = self.pending_login, None
            if login is not None and not await self.run_terminal_login(login):
                return
            try:
                self.pending_login = await self.agent_lifetime()
            except AgentExited as exc:
                self.report_failure("The agent exited", exc)
                self.offer_restart()
                return
            except (AgentError, RpcError) as exc:
                self.report_failure("Could not talk to the agent", exc)
                self.offer_restart()
                return
            restart, self.restart_requested = self.restart_requested, False
            if self.pending_login is None and not restart:
                return

    async def agent_lifetime(self) -> AuthMethodInfo | None:
        """One connection to the agent. Returns a terminal login to run before reconnecting."""
        self.chat.set_agent_status("starting the agent…")
        self._restart = anyio.Event()
        async with connect(
            self.launch, permission_handler=self.ask_permission, paths=self.paths
        ) as client:
            self.client = client
            self.agent_alive = True
            self.refresh_bindings()
            self.chat.set_agent_status("opening a session…")
            try:
                session = await self.authenticated(client, lambda: self.open_session(client))
            except NeedsTerminalLogin as need:
                return need.method
            self.session = session
            self.chat.show_session(session)
            self.send_pending_prompts()
            assert self._quit is not None
            await first_of(self._quit, self._restart, client.exited)
            self.agent_alive = False
            if client.exited.is_set() and not self._quit.is_set():
                raise client.process.exit_error()
        return None

    async def open_session(self, client: AgentClient) -> LiveSession:
        """A new session, or after a restart the same one again when the agent can reopen it."""
        old = self.session
        caps = client.capabilities
        if old is None:
            return await client.new_session(self.launch.cwd, self.launch.additional_directories)
        if caps.can_resume:
            session = await client.resume_session(
                old.session_id, old.cwd, old.additional_directories, transcript=old.transcript
            )
            session.transcript.add_notice("Reconnected to the session (resumed).")
            return session
        if caps.can_load:
            session = await client.load_session(old.session_id, old.cwd, old.additional_directories)
            session.transcript.add_notice("Reconnected to the session (history replayed).")
            return session
        session = await client.new_session(old.cwd, old.additional_directories)
        session.transcript.add_notice(
            f"{caps.display_name} cannot reopen sessions (no session/load or session/resume): "
            "this is a new session.",
            "warning",
        )
        return session

    def offer_restart(self) -> None:
        self.agent_alive = False
        self.refresh_bindings()
        if self.session is not None:
            self.session.transcript.add_notice("Press Ctrl+R to restart the agent.", "warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "restart_agent":
            return True if not self.agent_alive else None
        return True

    def action_restart_agent(self) -> None:
        """Start the agent again; the session is reattached when the agent can reopen it."""
        worker = self._agent_worker
        if worker is not None and not worker.is_finished:
            self.restart_requested = True
            if self._restart is not None:
                self._restart.set()
            return
        self._agent_worker = self.run_agent()

    # -- authentication ------------------------------------------------------------------

    async def authenticated(self, client: AgentClient, call: Callable[[], Awaitable[T]]) -> T:
        """Run ``call``; when the agent answers "authentication required", log in and retry."""
        for _attempt in range(3):
            try:
                return await call()
            except RpcError as exc:
                if not exc.is_auth_required:
                    raise
                method = await self.choose_auth_method(client, exc)
                if method.terminal:
                    raise NeedsTerminalLogin(method) from exc
                self.chat.set_agent_status(f"logging in with {method.name}…")
                await client.authenticate(method.id)
        raise AgentError("the agent still asks for a login after three attempts")

    async def choose_auth_method(self, client: AgentClient, exc: RpcError) -> AuthMethodInfo:
        caps = client.capabilities
        if not caps.auth_methods:
            raise AgentError(
                f"{caps.display_name} needs a login but offers no way to log in: {exc}"
            )
        chosen = await self.ask(AuthDialog(caps.display_name, caps.auth_methods, exc.message))
        if chosen is None:
            raise AgentError(f"login cancelled; {caps.display_name} cannot be used without it")
        return chosen

    async def run_terminal_login(self, method: AuthMethodInfo) -> bool:
        """Run the agent's own login in the real terminal (the app is suspended meanwhile)."""
        agent = self.launch.agent
        argv = [*agent.argv, *method.args]
        env = {**os.environ, **agent.env, **dict(method.env)}
        self.chat.set_agent_status(f"logging in: {method.name}…")
        try:
            code = await self.run_interactive(argv, env, agent.cwd or self.launch.cwd)
        except (OSError, SuspendNotSupported) as exc:
            self.report_failure("Could not run the login", exc)
            self.offer_restart()
            return False
        if code != 0:
            self.report_failure("The login did not succeed", AgentError(f"exit code {code}"))
            self.offer_restart()
            return False
        return True

    async def run_in_terminal(self, argv: list[str], env: dict[str, str], cwd: Path) -> int:
        """Suspend the app and run ``argv`` on the real terminal; returns its exit code."""
        with self.suspend():
            result = await anyio.to_thread.run_sync(
                lambda: subprocess.run(argv, env=env, cwd=cwd, check=False)
            )
        return result.returncode

    async def ask(self, dialog: ModalScreen[R]) -> R | None:
        """Show ``dialog`` and wait for its answer (from any task, not only workers)."""
        answered = anyio.Event()
        answers: list[R | None] = []

        def done(answer: R | None) -> None:
            answers.append(answer)
            answered.set()

        self.push_screen(dialog, callback=done)
        try:
            await answered.wait()
        finally:
            if not answered.is_set() and dialog.is_attached:
                dialog.dismiss(None)
        return answers[0] if answers else None

    def report_failure(self, what: str, exc: BaseException) -> None:
        message = f"{what}: {exc}"
        self.chat.set_agent_status(what.lower())
        if self.session is not None:
            self.session.transcript.add_notice(message, "error")
        else:
            self.notify(message, severity="error", timeout=30)

    # -- prompts -----------------------------------------------------------------------------

    def submit_prompt(self, text: str, attachments: Sequence[Path] = ()) -> bool:
        """Send ``text`` and its attached files now, or once the session is open; False: refused."""
        if self.session is None:
            self.pending_prompts.append(text)  # its @mentions are resolved once it is open
            self.notify("The agent is still starting; your message will be sent when it is ready.")
            return True
        if self.session.prompt_pending:
            self.notify("The agent is still working: wait, or press Esc to cancel the turn.")
            return False
        self.run_prompt(text, attachments)
        return True

    def send_pending_prompts(self) -> None:
        if self.pending_prompts and self.session is not None:
            text = "\n\n".join(self.pending_prompts)
            self.pending_prompts.clear()
            self.run_prompt(text, resolve_mentions(text, self.session.roots, self.session.cwd))

    @work(group="prompt", exit_on_error=False)
    async def run_prompt(self, text: str, attachments: Sequence[Path] = ()) -> None:
        client, session = self.client, self.session
        if client is None or session is None:
            return
        blocks = build_prompt_blocks(
            text, attachments, embedded_context=client.capabilities.prompt_embedded_context
        )
        try:
            await self.authenticated(client, lambda: client.prompt(session.session_id, blocks))
        except NeedsTerminalLogin as need:
            session.transcript.add_notice(
                "Log in from the terminal; then send your message again.", "warning"
            )
            self.pending_login = need.method
            self.action_restart_agent()
        except AgentExited:
            pass  # the agent worker reports the exit, with its code and stderr
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
        """Show the permission dialog; Esc there cancels the turn (and so answers `cancelled`)."""
        option_id = await self.ask(PermissionDialog(request))
        if option_id is None:
            if session.prompt_pending and self.client is not None:
                self.run_cancel(self.client, session)
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
