"""Provides AgentClient: a launched ACP agent, initialized, with typed calls for every method.

``async with connect(launch) as client:`` spawns the agent in its own process group, wraps its
stdio in one JSON-RPC connection, runs ``initialize`` within a bounded wait, and on exit closes
every live session and shuts the process group down. Calls are gated on what the agent
advertised (:class:`Unsupported` names the missing capability before anything is sent), and a
dead agent surfaces as :class:`AgentExited` with its exit code and last stderr lines. What the
agent sends is served here (its requests) or applied by the `UpdateInbox` (its updates).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from pydantic import ValidationError

from acp_tui import __version__
from acp_tui.client.agent.calls import SessionCalls
from acp_tui.client.agent.capabilities import Capabilities
from acp_tui.client.agent.dialects import Dialect, dialect_for
from acp_tui.client.agent.inbox import UpdateInbox, off_loop_if_big, warm_up_updates
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.waits import CallClock
from acp_tui.client.agent.wire import MalformedResponse
from acp_tui.client.errors import InitializeTimeout, ProtocolMismatch
from acp_tui.client.listeners import Listeners
from acp_tui.client.process.agent_process import AgentProcess, spawn_agent
from acp_tui.client.session.elicitation import (
    Elicitation,
    ElicitationHandler,
    UrlQuestions,
    cancel_elicitation,
    check_request,
)
from acp_tui.client.session.live_session import LiveSession, PermissionHandler, refuse_permission
from acp_tui.client.tools.terminal_gate import TerminalPolicy
from acp_tui.config.paths import Paths, get_paths
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.capabilities import ClientCapabilities, Implementation
from acp_tui.protocol.client_methods import CompleteElicitationNotification
from acp_tui.protocol.connection import Connection, Tap, describe_validation_error
from acp_tui.protocol.jsonrpc import ConnectionClosed, RpcError
from acp_tui.protocol.updates import SessionUpdate
from acp_tui.protocol.versions import SUPPORTED_PROTOCOLS

log = logging.getLogger(__name__)

CLIENT_INFO = Implementation(name="acp-tui", title="acp-tui", version=__version__)

UpdateListener = Callable[[str, SessionUpdate], object]
"""Sees every `session/update` of every session, as ``(session_id, update)``."""


def client_capabilities() -> ClientCapabilities:
    """What acp-tui serves, honestly: fs, terminals, terminal login, boolean config options,
    elicitation forms and URLs.

    ``_meta["terminal-auth"]`` is the older way agents (claude-agent-acp, opencode, kimi) ask
    whether a client runs terminal logins; without it some offer no terminal login at all.
    """
    return ClientCapabilities.model_validate(
        {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "auth": {"terminal": True},
            "session": {"configOptions": {"boolean": {}}},
            "elicitation": {"form": {}, "url": {}},
            "_meta": {"terminal-auth": True},
        }
    )


class AgentClient(SessionCalls):
    """One connected agent. Build it with :func:`connect`."""

    def __init__(
        self,
        launch: LaunchSpec,
        process: AgentProcess,
        *,
        permission_handler: PermissionHandler = refuse_permission,
        elicitation_handler: ElicitationHandler = cancel_elicitation,
        tap: Tap | None = None,
        terminal_policy: TerminalPolicy | None = None,
    ) -> None:
        self.launch = launch
        self.permission_handler = permission_handler
        self.elicitation_handler = elicitation_handler
        self.url_questions = UrlQuestions()
        """URL elicitations being asked (`elicitation/complete` finds them by id)."""
        self.terminal_policy = terminal_policy or TerminalPolicy()
        """Which agent commands run, with which env (the Workspace's follows the settings)."""
        self.sessions = {}
        self.mcp_servers = launch.mcp_servers
        self.dialect = dialect_for(1, client_capabilities())
        """How the negotiated protocol version spells every call (set by ``initialize``)."""
        self.turns = {}
        self.inbox = UpdateInbox(self.sessions, self.turns, self.dialect)
        # The inbox's: what the session calls and the recorder use of it.
        self.settle_updates = self.inbox.apply_held
        self.early_updates = self.inbox.early_updates
        self.gone = self.inbox.gone
        self.updates: Listeners[[str, SessionUpdate]] = self.inbox.updates
        self.own_turn_ends: Listeners[[str, str | None]] = self.inbox.own_turn_ends
        connection = Connection(
            process.stdout,
            process.stdin,
            on_request=self._on_request,
            on_notification=self._on_notification,
            name="agent",
        )
        connection.on_drain = self.inbox.apply_held
        connection.on_notification_now = self.inbox.take_now
        connection.tap = tap
        super().__init__(
            process, connection, CallClock(launch.settings.request_timeout, self.updates)
        )
        self.capabilities = Capabilities(protocol_version=launch.protocol_version)
        self.initialize_result: WireModel | None = None
        """The parsed `initialize` result: a v1 or a v2 ``InitializeResponse``."""
        self.task_group = None

    # -- initialize ----------------------------------------------------------------------------

    async def initialize(self, within: float) -> Capabilities:
        """Offer the launch's protocol version and go on with the one the agent answers.

        The answer must be a version this client speaks and not above the offer (v2 is opt-in):
        offered 2 and answered 1 goes on in v1, and ``capabilities.protocol_version`` says so.
        Anything else is :class:`ProtocolMismatch`.
        """
        offered = self.launch.protocol_version
        params = dialect_for(offered, client_capabilities()).initialize_request(CLIENT_INFO)
        try:
            with anyio.fail_after(within):
                raw = await self.connection.request("initialize", params.to_wire())
        except TimeoutError:
            raise InitializeTimeout(within, self.process.stderr_tail()) from None
        except ConnectionClosed:
            raise await self.exit_error("before answering initialize") from None
        if not isinstance(raw, dict) or "protocolVersion" not in raw:
            raise MalformedResponse(
                "the agent's initialize answer does not fit the protocol: "
                f"expected an object with a protocolVersion, got {str(raw)[:200]!r}"
            )
        version = raw["protocolVersion"]
        acceptable = tuple(v for v in SUPPORTED_PROTOCOLS if v <= offered)
        # bool is an int to Python (True == 1), never a protocol version on the wire.
        if isinstance(version, bool) or version not in acceptable:
            raise ProtocolMismatch(offered, version, acceptable)
        dialect = dialect_for(version, client_capabilities())
        try:
            result, capabilities = dialect.parse_initialize(raw)
        except ValidationError as exc:
            raise MalformedResponse(
                f"the agent's initialize answer does not fit the protocol: "
                f"{describe_validation_error(exc)}"
            ) from exc
        if version != offered:
            log.info("offered ACP protocol %s, going on with %s", offered, version)
        self.dialect = self.inbox.dialect = dialect
        self.initialize_result = result
        # An agent that sends no agentInfo is called what the user started it by.
        self.capabilities = capabilities.named(self.launch.display_name or self.launch.command.name)
        return self.capabilities

    def subscribe(self, listener: UpdateListener, *, first: bool = False) -> Callable[[], None]:
        """Call ``listener(session_id, update)`` for every update; returns the unsubscriber.

        ``first`` serves it before every other listener (the recorder); a listener that raises
        is logged and stops neither the others nor the read loop.
        """
        return self.updates.subscribe(listener, first=first)

    # -- incoming ------------------------------------------------------------------------------

    def _session_for(self, params: Any) -> LiveSession:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str):
            raise RpcError.invalid_params("sessionId is required")
        session = self.sessions.get(session_id)
        if session is None or session.closed:
            raise RpcError.not_found(f"No live session {session_id!r} in this client")
        return session

    async def _on_request(self, method: str, params: Any) -> Any:
        if method == "session/request_permission":
            request = await off_loop_if_big(self.dialect.permission_request, params)
            session = self.sessions.get(request.session_id)
            if session is None or session.closed:
                log.warning(
                    "permission request for unknown session %s: cancelled", request.session_id
                )
                return {"outcome": {"outcome": "cancelled"}}
            return await session.ask_permission(self.permission_handler, request)
        if method == "elicitation/create":
            return await self.elicit(params)
        if not self.dialect.serves_client_methods:
            raise RpcError.method_not_found(method)
        if method == "fs/read_text_file":
            return await self._session_for(params).read_text_file(params)
        if method == "fs/write_text_file":
            return await self._session_for(params).write_text_file(params)
        if method.startswith("terminal/"):
            session = self._session_for(params)
            return await session.handle_terminal(method, params, self.terminal_policy)
        raise RpcError.method_not_found(method)

    async def elicit(self, params: Any) -> dict[str, Any]:
        """`elicitation/create`: ask the user through the elicitation handler.

        A session-scoped question for a session this client does not have open is refused with
        -32002 (resource not found), as every other session request is; what this client cannot
        ask (an unknown mode, a form without a schema...) with -32602.
        """
        request, form = check_request(params)
        elicitation = Elicitation(request, request.session_id, form=form)
        session = None
        if request.session_id is not None:
            session = self._session_for(params)
            if request.tool_call_id:
                entry = session.transcript.tool_call(request.tool_call_id)
                elicitation.tool_title = entry.title if entry is not None else None
        else:
            elicitation.during = self.connection.pending_method(request.request_id)
        with self.url_questions.asking(elicitation):
            if session is not None:
                answer = await session.ask_elicitation(self.elicitation_handler, elicitation)
            else:
                answer = await self.elicitation_handler(elicitation)
        return answer.to_wire()

    def elicitation_complete(self, params: Any) -> None:
        """`elicitation/complete`: the URL elicitation it names is done (see `UrlQuestions`)."""
        try:
            note = CompleteElicitationNotification.model_validate(params)
        except ValidationError as exc:
            log.warning(
                "skipping a malformed elicitation/complete: %s", describe_validation_error(exc)
            )
            return
        self.url_questions.complete(note.elicitation_id)

    async def _on_notification(self, method: str, params: Any) -> None:
        if method == "session/update":
            await self.inbox.receive(params)
            return
        self.inbox.apply_held()
        if method == "elicitation/complete":
            self.elicitation_complete(params)
            return
        log.debug("ignoring notification %s", method)

    # -- shutdown --------------------------------------------------------------------------------

    async def aclose(self) -> None:
        for session in list(self.sessions.values()):
            await session.aclose()


@asynccontextmanager
async def connect(
    launch: LaunchSpec,
    *,
    permission_handler: PermissionHandler = refuse_permission,
    elicitation_handler: ElicitationHandler = cancel_elicitation,
    terminal_policy: TerminalPolicy | None = None,
    paths: Paths | None = None,
    init_timeout: float = 30.0,
    tap: Tap | None = None,
) -> AsyncIterator[AgentClient]:
    """Launch the agent, initialize it, and yield the client; shut everything down on exit.

    ``tap`` sees every line of the wire from `initialize` on (see ``Connection.tap``).
    """
    paths = paths or get_paths()
    async with (
        spawn_agent(launch.command, log_dir=paths.log_dir) as process,
        connect_over(
            process,
            launch,
            permission_handler=permission_handler,
            elicitation_handler=elicitation_handler,
            terminal_policy=terminal_policy,
            init_timeout=init_timeout,
            tap=tap,
        ) as client,
    ):
        yield client


@asynccontextmanager
async def connect_over(
    process: AgentProcess,
    launch: LaunchSpec,
    *,
    permission_handler: PermissionHandler = refuse_permission,
    elicitation_handler: ElicitationHandler = cancel_elicitation,
    terminal_policy: TerminalPolicy | None = None,
    init_timeout: float = 30.0,
    tap: Tap | None = None,
) -> AsyncIterator[AgentClient]:
    """Initialize a client of the agent ``process`` runs and yield it; close its sessions on
    exit (stopping the process is its owner's part).

    `connect` is this over a process it spawns; tests give it a demo agent running in their own
    event loop instead (``tests/in_process.py``).
    """
    client = AgentClient(
        launch,
        process,
        permission_handler=permission_handler,
        elicitation_handler=elicitation_handler,
        tap=tap,
        terminal_policy=terminal_policy,
    )
    # Raised after the task group is left, so callers get the error itself (AgentExited,
    # InitializeTimeout, their own...) rather than an ExceptionGroup wrapping it.
    failure: Exception | None = None
    async with anyio.create_task_group() as tg:
        client.task_group = tg
        tg.start_soon(client.run_connection)
        try:
            await client.initialize(init_timeout)
            tg.start_soon(_warm_up, client.dialect)
            yield client
            client.ending = True  # left without an error: the owner is done with it
        except Exception as exc:
            failure = exc
        finally:
            with anyio.CancelScope(shield=True):
                await client.aclose()
            tg.cancel_scope.cancel()
    if failure is not None:
        raise failure


async def _warm_up(dialect: Dialect) -> None:
    await anyio.to_thread.run_sync(warm_up_updates, dialect, abandon_on_cancel=True)
