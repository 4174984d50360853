"""Provides DemoAgent: the ACP v1 method dispatch and session lifecycle of the demo agent.

The method table is built per protocol dialect: ``_v1_methods`` here, the v2 draft's by the
dialect the agent is given (``acp_tui.demo_agent.v2``, which builds on this module; chosen at
`initialize` when the agent runs with ``--protocol 2`` and the client offers 2); the store, paging
and turn script stay shared. A capability left out on the command line is neither advertised nor
served: its method answers -32601.
"""

from __future__ import annotations

import logging
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import anyio
import anyio.lowlevel
from anyio.abc import TaskGroup

from acp_tui import __version__
from acp_tui.demo_agent import params as P
from acp_tui.demo_agent.auth import (
    AUTH_DATA_MESSAGE,
    AUTH_METHOD_ID,
    ENV_AUTH_METHOD_ID,
    auth_methods,
    forget_credentials,
    has_credentials,
)
from acp_tui.demo_agent.faults import Faults
from acp_tui.demo_agent.options import PROTOCOL_VERSION, AgentOptions, ClientCaps
from acp_tui.demo_agent.paging import list_sessions
from acp_tui.demo_agent.script import COMMANDS, run_turn
from acp_tui.demo_agent.settings import (
    DEFAULT_MODEL,
    config_options,
    session_state,
    set_config_option,
    set_mode,
)
from acp_tui.demo_agent.stdio import ExitNow, Output, exit_process
from acp_tui.demo_agent.store import SessionRecord, SessionStore
from acp_tui.demo_agent.turn import TurnContext
from acp_tui.protocol.connection import Connection, incoming_request_id
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

log = logging.getLogger(__name__)

AUTH_ELICIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "account": {"type": "string", "title": "Account", "minLength": 1, "default": "demo"},
        "remember": {"type": "boolean", "title": "Remember me", "default": False},
    },
    "required": ["account"],
}

Handler = Callable[[P.Params], Awaitable[Any]]
Requester = Callable[[str, Any], Awaitable[Any]]


class Dialect(Protocol):
    """Another protocol version's spelling of an agent's methods, taken on at `initialize`."""

    def methods(self) -> dict[str, tuple[str | None, Handler]]:
        """Method name -> (required capability, handler)."""
        ...

    async def initialize(self, params: P.Params) -> Any: ...


@dataclass(slots=True)
class LiveSession:
    """A session created, loaded, resumed or forked by this process."""

    record: SessionRecord
    turn: anyio.CancelScope | None = None
    mcp_servers: tuple[str, ...] = ()
    """The MCP servers the client gave (described, secrets left out), for the ``mcp`` keyword."""


class DemoAgent:
    """Serves one client over one Connection."""

    def __init__(
        self,
        options: AgentOptions,
        store: SessionStore,
        output: Output,
        v2: Callable[[DemoAgent], Dialect] | None = None,
        exit_now: ExitNow = exit_process,
    ) -> None:
        """``v2`` builds the v2 draft's dialect, needed when ``options.protocol`` is 2;
        ``exit_now`` ends the agent when it crashes on purpose (its process, unless it runs
        inside another program's event loop)."""
        if options.protocol >= 2 and v2 is None:
            raise ValueError("serving protocol 2 needs the v2 dialect")
        self.options = options
        self.v2 = v2
        self.store = store
        self.output = output
        self.exit_now = exit_now
        self.client = ClientCaps()
        self.authenticated = not options.require_auth or has_credentials(options.data_dir)
        self.live: dict[str, LiveSession] = {}
        self._conn: Connection | None = None
        self._tg: TaskGroup | None = None
        self._methods: dict[str, tuple[str | None, Handler]] = self._v1_methods()
        self.outgoing: Callable[[dict[str, Any]], dict[str, Any] | None] = lambda update: update
        """Rewrites each update before it is recorded and sent (the v2 dialect's shapes);
        None drops it."""
        self.login_method = "authenticate"
        """The method that logs in (``auth/login`` in v2), for error messages."""
        self.logout_method = "logout"
        self.protocol_version = PROTOCOL_VERSION
        """The version spoken since `initialize` (2 once the v2 dialect was chosen)."""
        self._busy = 0
        self._idle = anyio.Event()
        self._idle.set()
        self.faults = Faults(self)

    def attach(self, conn: Connection, tg: TaskGroup) -> None:
        self._conn = conn
        self._tg = tg

    @property
    def conn(self) -> Connection:
        if self._conn is None:
            raise RuntimeError("the agent is not attached to a connection")
        return self._conn

    @property
    def task_group(self) -> TaskGroup:
        """Where background work (a v2 turn) runs; an internal error before `attach`."""
        if self._tg is None:
            raise RpcError.internal("the agent is not running")
        return self._tg

    def _v1_methods(self) -> dict[str, tuple[str | None, Handler]]:
        """Method name -> (required capability, handler)."""
        return {
            "initialize": (None, self.initialize),
            "authenticate": (None, self.authenticate),
            "logout": (None, self.logout),
            "session/new": (None, self.new_session),
            "session/load": ("load", self.load_session),
            "session/list": ("list", self.list_sessions),
            "session/resume": ("resume", self.resume_session),
            "session/close": ("close", self.close_session),
            "session/delete": ("delete", self.delete_session),
            "session/fork": ("fork", self.fork_session),
            "session/set_mode": (None, self.set_mode),
            "session/set_config_option": (None, self.set_config_option),
            "session/prompt": (None, self.prompt),
        }

    # -- dispatch -------------------------------------------------------------------------

    async def handle_request(self, method: str, params: Any) -> Any:
        entry = self._methods.get(method)
        if entry is None or (entry[0] is not None and not self.options.has(entry[0])):
            raise RpcError.method_not_found(method)
        if not self.authenticated and self.options.needs_login(method):
            raise self.auth_required()
        await self.faults.before(method)
        if method == "session/prompt":
            result = await entry[1](P.as_object(params))
        else:
            self._busy += 1
            self._idle = anyio.Event() if self._busy == 1 else self._idle
            try:
                result = await entry[1](P.as_object(params))
            finally:
                self._busy -= 1
                if self._busy == 0:
                    self._idle.set()
        self.faults.after(method, params, result)
        return result

    async def drain(self, grace: float = 1.0) -> None:
        """At the end of input, briefly let requests already received (but prompts) finish.

        Best effort: wait until no handler runs, then until the output stayed quiet for a few
        scheduling rounds (the replies are written by the connection after the handlers return).
        """
        with anyio.move_on_after(grace):
            await anyio.lowlevel.checkpoint()  # let just-dispatched requests start
            await self._idle.wait()
            quiet, written = 0, self.output.writes
            while quiet < 5:
                await anyio.lowlevel.checkpoint()
                still = self.output.writes == written and not self.output.writing
                quiet = quiet + 1 if still else 0
                written = self.output.writes

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == "session/cancel" and isinstance(params, dict):
            live = self.live.get(str(params.get("sessionId")))
            if live is not None and live.turn is not None:
                log.info("cancelling the turn of %s", params.get("sessionId"))
                live.turn.cancel()
        else:
            log.debug("ignoring notification %s", method)

    # -- helpers --------------------------------------------------------------------------

    def _dirs(self, params: P.Params) -> list[str] | None:
        """``additionalDirectories`` when served; ignored like real agents do otherwise."""
        if not self.options.has("additionalDirectories"):
            return None
        return P.additional_directories(params)

    def _stored(self, session_id: str) -> SessionRecord:
        record = self.store.get(session_id)
        if record is None:
            raise RpcError.not_found(f"Session not found: {session_id}", session_id)
        return record

    def live_session(self, session_id: str) -> LiveSession:
        """The session ``session_id`` if it is live here, else a not-found error."""
        live = self.live.get(session_id)
        if live is None:
            if self.store.get(session_id) is not None:
                raise RpcError.not_found(
                    f"Session {session_id} is not active here: load or resume it first",
                    session_id,
                )
            raise RpcError.not_found(f"Session not found: {session_id}", session_id)
        return live

    def _state(self, record: SessionRecord) -> dict[str, Any]:
        return session_state(record, boolean=self.client.boolean_config)

    def _activate(self, record: SessionRecord) -> LiveSession:
        live = self.live.get(record.session_id)
        if live is None:
            live = self.live[record.session_id] = LiveSession(record)
        live.record = record
        return live

    def _end(self, session_id: str) -> None:
        live = self.live.pop(session_id, None)
        if live is not None and live.turn is not None:
            live.turn.cancel()

    def rewrite(self, update: dict[str, Any]) -> dict[str, Any] | None:
        """An update as this dialect spells it, and as the faults want it; None drops it."""
        rewritten = self.outgoing(update)
        return self.faults.rewrite(rewritten) if rewritten is not None else None

    async def send_history(self, session_id: str) -> None:
        """Replay the stored history, many updates per write (one write each is the bottleneck)."""
        updates = (self.rewrite(update) for update in self.store.read_history(session_id))
        params = ({"sessionId": session_id, "update": u} for u in updates if u is not None)
        with anyio.CancelScope(shield=True):
            await self.conn.notify_many("session/update", params)

    async def send_update(self, session_id: str, update: dict[str, Any], *, record: bool) -> None:
        """Send one ``session/update``; ``record`` appends it to the history first."""
        rewritten = self.rewrite(update)
        if rewritten is None:
            return
        update = rewritten
        if record:
            if self.store.get(session_id) is None:
                return  # deleted while its turn was winding down
            self.store.append_history(session_id, update)
        # Shielded so that a cancelled turn never leaves a sent update out of the history.
        with anyio.CancelScope(shield=True):
            await self.conn.notify("session/update", {"sessionId": session_id, "update": update})
        self.faults.sent(session_id, update)

    async def _send_commands(self, session_id: str) -> None:
        update = {"sessionUpdate": "available_commands_update", "availableCommands": COMMANDS}
        await self.send_update(session_id, update, record=False)

    def _commands_after_reply(self, session_id: str) -> None:
        """Send the commands once the reply naming this new session has been written."""
        written = self.output.after(f'"result":{{"sessionId":"{session_id}"'.encode())

        async def send() -> None:
            with anyio.move_on_after(5):
                await written.wait()
            if session_id in self.live:
                await self._send_commands(session_id)

        if self._tg is not None:
            self._tg.start_soon(send)

    # -- initialize and auth --------------------------------------------------------------

    async def initialize(self, params: P.Params) -> Any:
        version = params.get("protocolVersion")
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise RpcError.invalid_params(f"protocolVersion must be an integer, got {version!r}")
        if self.options.faulty("hang-initialize"):
            log.warning("fault hang-initialize: never answering initialize")
            await anyio.sleep_forever()
        if version >= 2 and self.options.protocol >= 2 and self.v2 is not None:
            dialect = self.v2(self)
            self.protocol_version = 2
            self._methods = dialect.methods()
            return await dialect.initialize(params)
        self.client = ClientCaps.from_wire(params.get("clientCapabilities"))
        log.info("client offered protocol %s, capabilities %s", version, self.client)
        markers = ("list", "resume", "close", "delete", "additionalDirectories", "fork")
        result: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": self.options.has("load"),
                "promptCapabilities": {
                    "image": self.options.image,
                    "audio": False,
                    "embeddedContext": True,
                },
                "mcpCapabilities": {t: t in self.options.mcp_transports for t in ("http", "sse")},
                "sessionCapabilities": {m: {} for m in markers if self.options.has(m)},
            },
            "agentInfo": {
                "name": "acp-tui-demo",
                "title": "acp-tui demo agent",
                "version": __version__,
            },
            "authMethods": [],
        }
        if self.options.faulty("no-agent-info"):
            del result["agentInfo"]
        if self.options.require_auth and self.options.auth_style != "error-data":
            result["authMethods"] = self.offered_auth_methods(1, self.client.terminal_auth)
        if self.options.require_auth:
            result["agentCapabilities"]["auth"] = {"logout": {}}
        return result

    def offered_auth_methods(self, version: int, terminal: bool) -> list[dict[str, Any]]:
        data_dir = str(self.options.data_dir)
        login = (sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", data_dir, "--login")
        return auth_methods(
            version,
            terminal=terminal,
            style=self.options.auth_style,
            login_command=login,
            env_var=self.options.auth_env,
        )

    def auth_required(self) -> RpcError:
        """-32000, and with ``--auth-style error-data`` the methods in its data."""
        data = None
        if self.options.auth_style == "error-data":
            version = 2 if self.login_method == "auth/login" else 1
            methods = self.offered_auth_methods(version, self.client.terminal_auth)
            data = {"message": AUTH_DATA_MESSAGE, "authMethods": methods}
        return RpcError(
            ErrorCode.AUTH_REQUIRED,
            f"Authentication required: call {self.login_method} with methodId {AUTH_METHOD_ID!r}",
            data,
        )

    async def authenticate(self, params: P.Params) -> Any:
        method_id = P.required_str(params, "methodId")
        env_var = self.options.auth_env
        if self.options.require_auth and env_var is not None and method_id == ENV_AUTH_METHOD_ID:
            if not os.environ.get(env_var):  # the value is a secret: never said back
                raise RpcError(
                    ErrorCode.AUTH_REQUIRED, f"{env_var} is not set in the agent's environment"
                )
        elif not self.options.require_auth or method_id != AUTH_METHOD_ID:
            raise RpcError.invalid_params(f"unknown auth methodId {method_id!r}")
        if self.options.faulty("login-hangs"):
            log.warning("fault login-hangs: never answering %s", self.login_method)
            await anyio.sleep_forever()  # until the client cancels the request
        if self.options.auth_elicit and self.client.elicitation_form:
            await self._ask_account()
        if self.options.faulty("login-exits"):
            await self.exit_now(3, "acp-tui demo agent: the login crashed (fault login-exits)")
        self.authenticated = True
        return {}

    async def _ask_account(self) -> None:
        """``--auth-elicit``: a question tied to this `authenticate` (before any session)."""
        params = {
            "requestId": incoming_request_id.get(),
            "mode": "form",
            "message": "Which demo account should I log in as?",
            "requestedSchema": AUTH_ELICIT_SCHEMA,
        }
        answer = await self.conn.request("elicitation/create", params)
        action = answer.get("action") if isinstance(answer, dict) else None
        if action != "accept":
            raise RpcError(ErrorCode.AUTH_REQUIRED, f"Not logged in: the answer was {action!r}")

    async def logout(self, params: P.Params) -> Any:
        """Forget the login (and a terminal login's credential): the next gated call asks."""
        if not self.options.require_auth:
            raise RpcError.method_not_found(self.logout_method)
        self.authenticated = False
        forget_credentials(self.options.data_dir)
        return {}

    # -- session lifecycle ----------------------------------------------------------------

    def _where(self, params: P.Params) -> tuple[str, list[str]]:
        """The request's ``cwd`` and served extra roots (its ``mcpServers`` checked too)."""
        cwd = P.absolute_path(params, "cwd")
        assert cwd is not None
        self.mcp_servers(params)
        return cwd, self._dirs(params) or []

    def mcp_servers(self, params: P.Params) -> tuple[str, ...]:
        """The request's ``mcpServers``, checked against what was advertised, described."""
        transports = {"stdio", *self.options.mcp_transports}
        if self.logout_method == "auth/logout":
            transports.discard("sse")  # v2 has no SSE
        return P.describe_mcp_servers(P.mcp_servers(params, frozenset(transports)))

    def _new_record(self, cwd: str, dirs: list[str]) -> SessionRecord:
        """A session created now, with a new id."""
        now = self.store.now()
        return SessionRecord(
            session_id=self.faults.session_id(f"demo-{uuid.uuid4().hex}"),
            cwd=cwd,
            additional_directories=dirs,
            created_at=now,
            updated_at=now,
        )

    def _start(self, record: SessionRecord, params: P.Params) -> dict[str, Any]:
        """Store and activate a session just created; its setup result."""
        self.store.put(record)
        self._activate(record).mcp_servers = self.mcp_servers(params)
        self._commands_after_reply(record.session_id)
        return {"sessionId": record.session_id, **self._state(record)}

    async def new_session(self, params: P.Params) -> Any:
        record = self._new_record(*self._where(params))
        record.config = {"model": DEFAULT_MODEL}
        return self._start(record, params)

    async def reattach(self, params: P.Params, *, replay: bool) -> Any:
        """Load (``replay``) or resume a stored session: its setup result."""
        session_id = P.session_id(params)
        if replay:
            instead = self.faults.replay(session_id, active=session_id in self.live)
            if instead is not None:
                return instead
        cwd, dirs = self._where(params)
        record = self._stored(session_id)
        if record.cwd != cwd or (
            self.options.has("additionalDirectories") and record.additional_directories != dirs
        ):
            # Explicit-list semantics: the request states the session's roots from now on.
            record.cwd = cwd
            if self.options.has("additionalDirectories"):
                record.additional_directories = dirs
            self.store.put(record)
        if replay:
            await self.send_history(session_id)
        self._activate(record).mcp_servers = self.mcp_servers(params)
        await self._send_commands(session_id)
        return self._state(record)

    async def load_session(self, params: P.Params) -> Any:
        return await self.reattach(params, replay=True)

    async def resume_session(self, params: P.Params) -> Any:
        # Some agents (fast-agent, pydantic-acp) replay the history on resume anyway.
        return await self.reattach(params, replay=self.options.faulty("replay-on-resume"))

    async def close_session(self, params: P.Params) -> Any:
        session_id = P.session_id(params)
        self._stored(session_id)
        self._end(session_id)
        return {}

    async def delete_session(self, params: P.Params) -> Any:
        session_id = P.session_id(params)
        self._end(session_id)
        self.store.delete(session_id)
        return {}

    async def fork_session(self, params: P.Params) -> Any:
        session_id = P.session_id(params)
        cwd, dirs = self._where(params)
        source = self._stored(session_id)
        record = replace(
            self._new_record(cwd, dirs),
            title=f"Fork of {source.title or 'an untitled session'}",
            mode=source.mode,
            config=dict(source.config),
            tokens=source.tokens,
            prompts=source.prompts,
        )
        self.store.copy_history(source.session_id, record.session_id)
        return self._start(record, params)

    # -- list -----------------------------------------------------------------------------

    async def list_sessions(self, params: P.Params) -> Any:
        cwd = P.absolute_path(params, "cwd", required=False)
        return list_sessions(
            self.store.ascending(),
            cwd=cwd,
            additional_directories=self._dirs(params),
            cursor=params.get("cursor"),
            page_size=self.options.page_size,
            with_directories=self.options.has("additionalDirectories"),
        )

    # -- modes and config -----------------------------------------------------------------

    async def _mode_changed(self, record: SessionRecord) -> None:
        update = {"sessionUpdate": "current_mode_update", "currentModeId": record.mode}
        await self.send_update(record.session_id, update, record=False)

    async def set_mode(self, params: P.Params) -> Any:
        record = self.live_session(P.session_id(params)).record
        set_mode(record, params.get("modeId"))
        self.store.put(record)
        await self._mode_changed(record)
        return {}

    async def set_config_option(self, params: P.Params) -> Any:
        record = self.live_session(P.session_id(params)).record
        before = record.mode
        set_config_option(
            record,
            params.get("configId"),
            params.get("value"),
            params.get("type"),
            boolean=self.client.boolean_config,
        )
        self.store.put(record)
        if record.mode != before:
            await self._mode_changed(record)
        return {"configOptions": config_options(record, boolean=self.client.boolean_config)}

    # -- prompt ---------------------------------------------------------------------------

    async def prompt(self, params: P.Params) -> Any:
        session_id = P.session_id(params)
        live = self.live_session(session_id)
        blocks = P.prompt_blocks(params, image=self.options.image)
        if live.turn is not None:
            raise RpcError.invalid_params(f"a prompt turn is already running in {session_id}")

        ctx = self.turn_context(live.record, self.conn.request)
        stop_reason = "cancelled"
        with anyio.CancelScope() as scope:
            live.turn = scope
            try:
                stop_reason = await run_turn(ctx, blocks)
            finally:
                live.turn = None
        if scope.cancelled_caught:
            log.info("turn of %s cancelled", session_id)
            stop_reason = "cancelled"
        return {"stopReason": stop_reason}

    def turn_context(self, record: SessionRecord, request: Requester) -> TurnContext:
        """What a turn of ``record`` talks through: its updates are recorded, then sent."""
        session_id = record.session_id

        async def emit(update: dict[str, Any]) -> None:
            await self.send_update(session_id, update, record=True)

        async def send_live(update: dict[str, Any]) -> None:
            await self.send_update(session_id, update, record=False)

        live = self.live.get(session_id)
        return TurnContext(
            record=record,
            store=self.store,
            client=self.client,
            emit=emit,
            request=request,
            write_raw=self.output.send,
            notify=self.conn.notify,
            delay=self.options.delay_ms / 1000,
            send_live=send_live,
            mcp_servers=live.mcp_servers if live is not None else (),
            exit_now=self.exit_now,
        )
