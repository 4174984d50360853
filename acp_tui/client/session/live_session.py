"""Provides LiveSession: a session open in this client, and what the agent may ask of it.

A live session owns its transcript, its root set (``[cwd, *additionalDirectories]``) and the
services the client offers the agent on it: file reads and writes confined to the roots,
terminals, and permission prompts (answered by a handler the UI supplies).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup, TaskStatus

from acp_tui.client.session.elicitation import CANCELLED, Answer, Elicitation, ElicitationHandler
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.tools.fs import FileSystem
from acp_tui.client.tools.roots import RootSet
from acp_tui.client.tools.terminal_gate import Approval, TerminalAsk, TerminalPolicy, refused
from acp_tui.client.tools.terminals import TerminalManager, TerminalOutput
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    CreateTerminalRequest,
    CreateTerminalResponse,
    KillTerminalRequest,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SelectedPermissionOutcome,
    TerminalExitStatus,
    TerminalOutputRequest,
    TerminalOutputResponse,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
)
from acp_tui.protocol.jsonrpc import RpcError

_T = TypeVar("_T")

PermissionHandler = Callable[
    ["LiveSession", RequestPermissionRequest], Awaitable[RequestPermissionOutcome]
]
"""Asks the user; cancelled (by `session/cancel`) it is answered ``cancelled`` for it."""


async def refuse_permission(
    session: LiveSession, request: RequestPermissionRequest
) -> RequestPermissionOutcome:
    """The default when no UI is attached: nothing is approved."""
    return CancelledPermissionOutcome()


def permission_refusal(request: RequestPermissionRequest) -> RequestPermissionOutcome:
    """The agent's own "reject once" option (else "reject always"), or cancelled if it offers
    neither."""
    for kind in ("reject_once", "reject_always"):
        for option in request.options:
            if option.kind == kind:
                return SelectedPermissionOutcome(option_id=option.option_id)
    return CancelledPermissionOutcome()


@dataclass(eq=False)
class LiveSession:
    """A session this client has open (created, loaded, resumed or forked)."""

    session_id: str
    cwd: Path
    additional_directories: tuple[Path, ...] = ()
    transcript: Transcript = field(init=False)
    roots: RootSet = field(init=False)
    fs: FileSystem = field(init=False)
    task_group: TaskGroup | None = None
    """Where long-lived helpers (the terminal manager) run: the client's own task group."""
    closed: bool = False
    allowed_commands: set[Approval] = field(default_factory=set)
    """The commands the user allowed for this session (``TerminalAsk.key``): each with its
    arguments, working directory and env."""
    _terminals: TerminalManager | None = field(default=None, init=False)
    _terminals_stop: anyio.Event = field(default_factory=anyio.Event, init=False)
    _terminals_gone: anyio.Event = field(default_factory=anyio.Event, init=False)
    _permission_scopes: set[anyio.CancelScope] = field(default_factory=set, init=False)
    _prompt_pending: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self.transcript = Transcript(self.session_id)
        self.set_roots(self.cwd, self.additional_directories)

    def set_roots(self, cwd: Path, additional_directories: tuple[Path, ...]) -> None:
        """Replace the root set (each lifecycle request states the complete list)."""
        self.cwd = cwd
        self.additional_directories = additional_directories
        self.roots = RootSet(str(cwd), [str(p) for p in additional_directories])
        self.fs = FileSystem(self.roots)
        if self._terminals is not None:
            self._terminals.roots = self.roots

    @property
    def title(self) -> str | None:
        return self.transcript.title

    # -- questions: permission and elicitation -----------------------------------------------

    async def ask_permission(
        self, handler: PermissionHandler, request: RequestPermissionRequest
    ) -> dict[str, Any]:
        """Run the permission handler; `cancel_pending_permissions` answers it `cancelled`.

        A request that offers no option at all is answered `cancelled` at once, and said in the
        transcript: a dialog with nothing to choose could only be dismissed.
        """
        if not request.options:
            self.transcript.add_notice(
                "The agent asked for permission but offered no choices: answered cancelled.",
                "warning",
            )
            return RequestPermissionResponse(outcome=CancelledPermissionOutcome()).to_wire()
        outcome = await self._asking(lambda: handler(self, request))
        if outcome is None:
            outcome = CancelledPermissionOutcome()
        return RequestPermissionResponse(outcome=outcome).to_wire()

    async def ask_elicitation(
        self, handler: ElicitationHandler, elicitation: Elicitation
    ) -> Answer:
        """Run the elicitation handler; `cancel_pending_permissions` answers it `cancel`."""
        answer = await self._asking(lambda: handler(elicitation))
        return CANCELLED if answer is None else answer

    async def _asking(self, ask: Callable[[], Awaitable[_T]]) -> _T | None:
        """Run a question for the user while the session requires action; None if the
        session's cancel withdrew it."""
        answer: _T | None = None
        self.transcript.set_state("requires_action")
        try:
            with anyio.CancelScope() as scope:
                self._permission_scopes.add(scope)
                answer = await ask()
        finally:
            self._permission_scopes.discard(scope)
            if not self._permission_scopes:
                self.transcript.set_state("running" if self._prompt_pending else "idle")
        return None if scope.cancelled_caught else answer

    def cancel_pending_permissions(self) -> int:
        """Withdraw every question of this session waiting for the user (permissions are
        answered `cancelled`, elicitations `cancel`); returns how many."""
        for scope in list(self._permission_scopes):
            scope.cancel()
        return len(self._permission_scopes)

    @property
    def pending_permissions(self) -> int:
        """Questions (permissions and elicitations) of this session waiting for the user."""
        return len(self._permission_scopes)

    # -- file system ---------------------------------------------------------------------------

    async def read_text_file(self, params: Any) -> dict[str, Any]:
        req = ReadTextFileRequest.model_validate(params)
        content = await self.fs.read_text_file(req.path, req.line, req.limit)
        return ReadTextFileResponse(content=content).to_wire()

    async def write_text_file(self, params: Any) -> dict[str, Any]:
        req = WriteTextFileRequest.model_validate(params)
        await self.fs.write_text_file(req.path, req.content)
        return {}

    # -- terminals -----------------------------------------------------------------------------

    async def terminals(self) -> TerminalManager:
        """The session's terminal manager, started on first use in the client's task group."""
        if self._terminals is None:
            if self.task_group is None or self.closed:
                raise RpcError.internal("terminals are not available for this session")
            self._terminals = await self.task_group.start(self._host_terminals)
        return self._terminals

    async def _host_terminals(self, *, task_status: TaskStatus[TerminalManager]) -> None:
        try:
            async with TerminalManager(
                self.roots, on_output=self.transcript.terminal_changed
            ) as terms:
                task_status.started(terms)
                await self._terminals_stop.wait()
        finally:
            self._terminals_gone.set()

    def terminal_ask(
        self, params: Any, policy: TerminalPolicy
    ) -> tuple[CreateTerminalRequest, dict[str, str], TerminalAsk]:
        """A ``terminal/create``: the request, the agent's env, and what the user is asked."""
        create = CreateTerminalRequest.model_validate(params)
        env = {v.name: v.value for v in create.env or []}
        cwd = create.cwd or str(self.cwd)
        ask = TerminalAsk.build(create.command, create.args or [], cwd, env, policy.env)
        return create, env, ask

    async def _create_terminal(self, params: Any, policy: TerminalPolicy) -> dict[str, Any]:
        create, env, ask = self.terminal_ask(params, policy)
        if policy.approve is not None and not await policy.approve(self, ask):
            raise refused(ask)
        terms = await self.terminals()
        terms.env_policy = policy.env
        args, cwd, limit = list(ask.args), ask.cwd, create.output_byte_limit
        terminal_id = await terms.create(create.command, args, env, cwd, limit)
        return CreateTerminalResponse(terminal_id=terminal_id).to_wire()

    def terminal_output(self, terminal_id: str) -> TerminalOutput | None:
        """What a terminal printed, also after it was released (for display): one of the
        client's, or one the agent owns and reports in updates (ACP v2)."""
        own = None if self._terminals is None else self._terminals.snapshot(terminal_id)
        if own is not None:
            return own
        agents = self.transcript.agent_terminals.get(terminal_id)
        return None if agents is None else agents.snapshot()

    async def handle_terminal(
        self, method: str, params: Any, policy: TerminalPolicy | None = None
    ) -> dict[str, Any]:
        """Serve a ``terminal/*`` request; ``create`` runs only what ``policy`` approves."""
        if method == "terminal/create":
            return await self._create_terminal(params, policy or TerminalPolicy())
        terms = await self.terminals()
        if method == "terminal/output":
            out = terms.output(TerminalOutputRequest.model_validate(params).terminal_id)
            status = (
                TerminalExitStatus(exit_code=out.exit_code, signal=out.signal)
                if out.exited
                else None
            )
            response = TerminalOutputResponse(output=out.output, truncated=out.truncated)
            if status is not None:
                response.exit_status = status
            return response.to_wire()
        if method == "terminal/wait_for_exit":
            wait = WaitForTerminalExitRequest.model_validate(params)
            code, sig = await terms.wait_for_exit(wait.terminal_id)
            return WaitForTerminalExitResponse(exit_code=code, signal=sig).to_wire()
        if method == "terminal/kill":
            await terms.kill(KillTerminalRequest.model_validate(params).terminal_id)
            return {}
        if method == "terminal/release":
            await terms.release(ReleaseTerminalRequest.model_validate(params).terminal_id)
            return {}
        raise RpcError.method_not_found(method)

    # -- lifecycle -----------------------------------------------------------------------------

    def prompt_started(self) -> None:
        self._prompt_pending = True
        self.transcript.begin_turn()

    def prompt_finished(self, stop_reason: str | None) -> None:
        self._prompt_pending = False
        self.transcript.end_turn(stop_reason)

    @property
    def prompt_pending(self) -> bool:
        return self._prompt_pending

    async def aclose(self) -> None:
        """Stop everything the session runs on this machine (terminals, open prompts)."""
        self.closed = True
        self.cancel_pending_permissions()
        if self._terminals is not None:
            self._terminals_stop.set()
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                await self._terminals_gone.wait()
            self._terminals = None
