"""Provides AgentHost: the App base that owns the agent for the app's whole life.

One long-lived worker launches the agent, logs in when it asks (agent methods through
`authenticate`, terminal methods by suspending the app and running the agent's own login),
opens or reopens the session, and on a crash offers a restart that reattaches the session.
Textual cancels workers without awaiting them, so the host waits for the agent's process
group on unmount. Screens subclass nothing here: they read `client` and `session`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
from collections.abc import Awaitable, Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual import work
from textual.app import SuspendNotSupported
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.launch import LaunchSpec
from acp_tui.config.paths import Paths, get_paths
from acp_tui.protocol.errors import RpcError
from acp_tui.store.recent_roots import recent_roots_for_project
from acp_tui.ui.chat import ChatScreen
from acp_tui.ui.memory import settle_memory
from acp_tui.ui.toasts import PlainToasts

if TYPE_CHECKING:
    # The client and the protocol models are imported where used: this module is loaded
    # before the first frame and they are not (the chat screen imports them in a thread).
    from acp_tui.client.agent import AgentClient
    from acp_tui.client.capabilities import AuthMethodInfo
    from acp_tui.client.permissions import PermissionQueue
    from acp_tui.client.recorder import SessionRecorder
    from acp_tui.client.session import LiveSession
    from acp_tui.protocol.client_methods import RequestPermissionOutcome, RequestPermissionRequest
    from acp_tui.store.transcripts import TranscriptCache

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")
InteractiveRunner = Callable[[list[str], dict[str, str], Path], Awaitable[int]]


class NeedsTerminalLogin(Exception):
    """The user chose a terminal login: it runs with the app suspended, then we reconnect."""

    def __init__(self, method: AuthMethodInfo) -> None:
        super().__init__(method.name)
        self.method = method


class AgentHost(PlainToasts):
    """Owns the agent connection and the live session; subclasses add the user's actions."""

    def __init__(self, launch: LaunchSpec, *, paths: Paths | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.paths = paths or get_paths()
        self.client: AgentClient | None = None
        self.session: LiveSession | None = None
        self.chat = ChatScreen()
        self.agent_alive = False
        self.restart_requested = False
        self.pending_login: AuthMethodInfo | None = None
        self.extra_roots: tuple[Path, ...] = launch.additional_directories
        """The extra roots new sessions get (the user may go on without them)."""
        self.run_interactive: InteractiveRunner = self.run_in_terminal
        self._quit: asyncio.Event | None = None
        self._stopping = False
        self._restart: asyncio.Event | None = None
        self._agent_worker: Worker[None] | None = None

    # Every session is recorded locally as it streams: nothing is lost on a crash, and agents
    # that can only resume (or cannot list) still get replay and a browser.

    @cached_property
    def transcripts(self) -> TranscriptCache:
        """The local copies of the sessions' transcripts."""
        from acp_tui.store.transcripts import TranscriptCache

        return TranscriptCache(self.paths.data_dir / "transcripts")

    @cached_property
    def agent_key(self) -> str:
        """Which agent the local copies belong to."""
        from acp_tui.client.recorder import agent_key_for

        return agent_key_for(self.launch)

    @cached_property
    def recorder(self) -> SessionRecorder:
        """Writes every session's updates to `transcripts` as they stream."""
        from acp_tui.client.recorder import SessionRecorder

        return SessionRecorder(self.transcripts, self.agent_key)

    @cached_property
    def permissions(self) -> PermissionQueue:
        """The agents' permission requests, asked one at a time (by `ask_permission`)."""
        from acp_tui.client.permissions import PermissionQueue

        return PermissionQueue(self.ask_permission)

    @property
    def agent_display_name(self) -> str:
        if self.client is not None:
            return self.client.capabilities.display_name
        return self.launch.display_name or self.launch.agent.name

    @property
    def protocol_version(self) -> int:
        """The negotiated version once connected, else the one we will offer."""
        if self.client is not None:
            return self.client.capabilities.protocol_version
        return self.launch.protocol_version

    def on_mount(self) -> None:
        self._agent_worker = self.run_agent()

    async def on_unmount(self) -> None:
        await self.stop_agent()
        if "transcripts" in self.__dict__:  # opened (a cached_property), so close it
            self.transcripts.close()

    async def stop_agent(self, within: float = 10.0) -> None:
        """Close the agent gracefully (stdin, then signals) and wait for it, boundedly.

        Textual cancels workers without waiting for them, so the app waits here, while its
        loop still runs, for the agent's process group to be gone.
        """
        self._stopping = True
        if self._quit is not None:
            self._quit.set()
        worker = self._agent_worker
        if worker is not None and not worker.is_finished:
            with contextlib.suppress(Exception):  # TimeoutError included
                await asyncio.wait_for(worker.wait(), within)

    # -- the agent ---------------------------------------------------------------------------

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def run_agent(self) -> None:
        """Launch the agent and keep it for the life of the app; log in and restart on demand."""
        # The client's modules arrive with the chat's views, after the first frame.
        await self.chat.views_ready.wait()
        if self._stopping:
            return
        if self._quit is None:
            self._quit = asyncio.Event()
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
        from acp_tui.client.agent import connect

        self.chat.set_agent_status("starting the agent…")
        self._restart = asyncio.Event()
        async with connect(
            self.launch, permission_handler=self.permissions.ask, paths=self.paths
        ) as client:
            self.client = client
            self.recorder.attach(client)
            self.agent_alive = True
            self.refresh_bindings()
            self.chat.set_agent_status("opening a session…")
            try:
                session = await self.authenticated(client, lambda: self.open_session(client))
            except NeedsTerminalLogin as need:
                return need.method
            if session is not None:
                self.session = session
                self.session_opened(session)
            else:
                self.chat.set_agent_status("no session open: Ctrl+N starts one")
            assert self._quit is not None
            await first_of(self._quit.wait(), self._restart.wait(), client.exited.wait())
            self.agent_alive = False
            if client.exited.is_set() and not self._quit.is_set():
                raise client.process.exit_error()
        return None

    async def open_session(self, client: AgentClient) -> LiveSession | None:
        """A new session, or after a restart the same one again when the agent can reopen it.

        None when the user declined to go on without extra roots the agent cannot take, or
        the agent refused them: the app stays up with no session.
        """
        old = self.session
        caps = client.capabilities
        if old is None:
            return await self.create_session(client, self.launch.cwd, self.extra_roots)
        if caps.can_resume:
            session = await client.resume_session(
                old.session_id, old.cwd, old.additional_directories, transcript=old.transcript
            )
            session.transcript.add_notice("Reconnected to the session (resumed).")
            return session
        if caps.can_load:
            self.recorder.expect_replay(old.session_id)
            session = await client.load_session(old.session_id, old.cwd, old.additional_directories)
            self.recorder.note(session)  # also writes out the replay it recorded in batches
            session.transcript.add_notice("Reconnected to the session (history replayed).")
            return session
        session = await client.new_session(old.cwd, old.additional_directories)
        self.recorder.note(session, created=True)
        session.transcript.add_notice(
            f"{caps.display_name} cannot reopen sessions (no session/load or session/resume): "
            "this is a new session.",
            "warning",
        )
        return session

    async def create_session(
        self, client: AgentClient, cwd: Path, roots: tuple[Path, ...]
    ) -> LiveSession | None:
        """`session/new` with extra roots, never dropping them silently.

        An agent that cannot take extra roots gets the roots dialog's explicit choice (go on
        without them, or cancel: None); an agent that refuses them (e.g. -32602) is named with
        its message, and None is returned. Roots that were used become recent roots.
        """
        caps = client.capabilities
        if roots and not caps.additional_directories:
            from acp_tui.ui.dialogs.roots import RootsDialog

            answer = await self.ask(
                RootsDialog(
                    cwd, roots, supported=False, reason=caps.why_not("additional_directories")
                )
            )
            if answer is None or not answer.proceed_without:
                self.notify(
                    "No session opened: the extra roots were not sent. Ctrl+N starts a session.",
                    severity="warning",
                    timeout=20,
                )
                return None
            roots = ()
            self.extra_roots = ()
        try:
            session = await client.new_session(cwd, roots)
        except RpcError as exc:
            if not roots or exc.is_auth_required:
                raise
            self.notify(
                f"{caps.display_name} refused the extra roots: {exc.message} (code {exc.code})",
                severity="error",
                timeout=30,
                markup=False,
            )
            return None
        if roots:
            recent_roots_for_project(cwd, self.paths).record(roots)
        self.recorder.note(session, created=True)
        return session

    def offer_restart(self) -> None:
        self.agent_alive = False
        self.call_after_refresh(self.refresh_bindings)  # once the agent worker has ended
        if self.session is not None:
            self.session.transcript.add_notice("Press Ctrl+R to restart the agent.", "warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "restart_agent":  # offered once the agent has stopped, not while starting
            worker = self._agent_worker
            return True if worker is None or worker.is_finished else None
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
        from acp_tui.ui.dialogs.auth import AuthDialog

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
            result = await asyncio.to_thread(subprocess.run, argv, env=env, cwd=cwd, check=False)
        return result.returncode

    async def ask(self, dialog: ModalScreen[R]) -> R | None:
        """Show ``dialog`` and wait for its answer (from any task, not only workers)."""
        answered = asyncio.Event()
        answers: list[R | None] = []

        def done(answer: R | None) -> None:
            answers.append(answer)
            answered.set()

        self.push_screen(dialog, callback=done)
        try:
            await answered.wait()
        finally:
            if not answered.is_set() and dialog.is_attached:
                self.withdraw(dialog)
        return answers[0] if answers else None

    def withdraw(self, dialog: ModalScreen[R]) -> None:
        """Close a dialog nobody waits for any more: now if it is on top, else once it is.

        (Dismissing a covered dialog would close the screen above it, e.g. the palette.)
        """
        if dialog is self.screen:
            dialog.dismiss(None)
            return

        def uncovered(screen: Screen[object]) -> None:
            if screen is dialog:
                self.screen_change_signal.unsubscribe(dialog)
                dialog.dismiss(None)

        self.screen_change_signal.subscribe(dialog, uncovered)

    def report_failure(self, what: str, exc: BaseException) -> None:
        if isinstance(exc, AgentExited):
            message = f"The {exc.args[0].splitlines()[0].strip()}."
            if exc.stderr_tail:
                message += " Its last words on stderr:\n" + "\n".join(exc.stderr_tail)
            message += f"\n(The agent's full stderr is logged in {self.paths.log_dir}.)"
        else:
            message = f"{what}: {exc}"
        self.chat.set_agent_status(what.lower())
        if self.session is not None:
            self.session.transcript.add_notice(message, "error")
        else:
            self.notify(message, severity="error", timeout=30)

    # -- hooks for the app -----------------------------------------------------------------

    def session_opened(self, session: LiveSession) -> None:
        """The session is open (or reopened): show it (the app also sends queued prompts)."""
        self.chat.show_session(session)
        settle_memory()  # startup and any replayed history are long-lived from here on

    async def ask_permission(
        self, session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        """Without a dialog to ask with, nothing is approved (the app overrides this)."""
        from acp_tui.protocol.client_methods import CancelledPermissionOutcome

        return CancelledPermissionOutcome()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker failed in a way nobody expected: say so instead of failing silently."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            log.error("worker %s failed", event.worker.name, exc_info=error)
            self.report_failure(f"Internal error in {event.worker.name}", error)


async def first_of(*waits: Awaitable[object]) -> None:
    """Wait until any of ``waits`` is done; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
