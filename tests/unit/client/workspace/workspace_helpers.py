"""Helpers for driving a Workspace against the demo agent, without Textual."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio

from acp_tui.client.agent.auth_methods import AuthMethodInfo, EnvVarSpec
from acp_tui.client.session.elicitation import CANCELLED, DECLINED, Answer, Elicitation
from acp_tui.client.tools.terminal_gate import TerminalAnswer, TerminalAsk
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.env_login import EnvAnswer
from acp_tui.client.workspace.events import WorkspaceEvent
from acp_tui.client.workspace.interaction import TerminalRun
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.client.workspace.workspace import Workspace
from acp_tui.config.paths import Paths
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from tests import in_process
from tests.unit.client.agent.agent_helpers import WAIT

E = TypeVar("E")


@dataclass
class Scripted:
    """An Interaction that answers as told and remembers what it was asked."""

    allow: bool = True
    auth: str | None = None
    roots: bool = False
    login_exit: int = 0
    terminal: TerminalAnswer | None = "once"
    commands: list[TerminalAsk] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    logins: list[list[str]] = field(default_factory=list)
    env_values: dict[str, str] | None = None
    """What `ask_env_vars` answers (None: the user cancels)."""
    save_env: bool = False

    async def ask_permission(
        self, slot: SessionSlot, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        self.asked.append("permission")
        if not self.allow:
            return CancelledPermissionOutcome()
        return SelectedPermissionOutcome(option_id=request.options[0].option_id)

    async def ask_elicitation(
        self, agent: AgentRuntime, slot: SessionSlot | None, elicitation: Elicitation
    ) -> Answer:
        self.asked.append(f"elicitation {elicitation.mode}")
        if not self.allow or elicitation.form is None:
            return CANCELLED
        content, errors = elicitation.form.answer(elicitation.form.defaults())
        return DECLINED if errors else Answer("accept", content)

    async def choose_auth_method(
        self, agent: AgentRuntime, methods: tuple[AuthMethodInfo, ...], reason: str
    ) -> AuthMethodInfo | None:
        self.asked.append("auth")
        return next((m for m in methods if m.id == self.auth), None)

    async def ask_env_vars(
        self, agent: AgentRuntime, method: AuthMethodInfo, missing: tuple[EnvVarSpec, ...]
    ) -> EnvAnswer | None:
        self.asked.append("env " + " ".join(var.name for var in missing))
        if self.env_values is None:
            return None
        return EnvAnswer(dict(self.env_values), save=self.save_env)

    async def confirm_without_roots(
        self, agent: AgentRuntime, cwd: Path, roots: tuple[Path, ...], reason: str
    ) -> bool:
        self.asked.append("roots")
        return self.roots

    async def confirm_terminal(
        self, slot: SessionSlot, request: TerminalAsk
    ) -> TerminalAnswer | None:
        self.asked.append("terminal")
        self.commands.append(request)
        return self.terminal

    async def run_terminal_login(
        self, argv: list[str], env: dict[str, str], cwd: Path
    ) -> TerminalRun:
        self.logins.append(argv)
        if self.login_exit == 0 and argv[-1] == "--login":  # the demo agent's own login
            result = await anyio.run_process(argv, input=b"yes\n", env=env, cwd=cwd, check=False)
            return TerminalRun(result.returncode, result.stdout.decode())
        return TerminalRun(self.login_exit)


class Watch:
    """Every event of a Workspace, and a way to wait for a condition on it."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.events: list[WorkspaceEvent] = []
        self._changed = anyio.Event()
        ws.subscribe(self._event)

    def _event(self, event: WorkspaceEvent) -> None:
        self.events.append(event)
        self.poke()

    def poke(self, *_: object) -> None:
        self._changed.set()

    async def until(self, predicate: Callable[[], bool], seconds: float = WAIT) -> None:
        """Wait until ``predicate()`` holds, re-checking on every event or transcript change."""
        watched: dict[int, Callable[[], None]] = {}
        try:
            with anyio.fail_after(seconds):
                while True:
                    for slot in self.ws.slots:
                        if id(slot.transcript) not in watched:
                            watched[id(slot.transcript)] = slot.transcript.subscribe(self.poke)
                    self._changed = anyio.Event()
                    if predicate():
                        return
                    await self._changed.wait()
        finally:
            for unwatch in watched.values():
                unwatch()

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]


@asynccontextmanager
async def workspace(
    paths: Paths, project: Path, interaction: Scripted | None = None
) -> AsyncIterator[tuple[Workspace, Watch]]:
    """A running Workspace for ``project``; every agent is stopped on exit.

    It reaches the demo agent in-process unless the test is marked ``real_agent``.
    """
    async with Workspace(
        paths=paths,
        interaction=interaction or Scripted(),
        project=project,
        connect=in_process.current,
    ) as ws:
        yield ws, Watch(ws)
