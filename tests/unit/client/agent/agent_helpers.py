"""Test helpers for AgentClient: the demo agent as a real subprocess, and a wire recorder."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest

from acp_tui.client.agent import agent_client as agent_module
from acp_tui.client.agent.agent_client import AgentClient
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.entries import MessageEntry, ToolCallEntry, TranscriptEntry
from acp_tui.client.session.live_session import LiveSession, PermissionHandler
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.client_methods import (
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.connection import Connection
from tests import in_process

WAIT = 10.0
"""Upper bound of any wait on the agent; a hang fails the test instead of blocking it."""

README = "# Demo project\n\nA README for the client tests.\nThird line.\n"

_E = TypeVar("_E", bound=TranscriptEntry)


async def allow_first(
    session: LiveSession, request: RequestPermissionRequest
) -> RequestPermissionOutcome:
    return SelectedPermissionOutcome(option_id=request.options[0].option_id)


def make_project(root: Path, name: str = "project") -> Path:
    """A project directory with a README.md, resolved (the roots compare real paths)."""
    project = root / name
    project.mkdir(parents=True, exist_ok=True)
    (project / "README.md").write_text(README, encoding="utf-8")
    return project.resolve()


def demo_spec(data_dir: Path, cwd: Path, *flags: str) -> LaunchSpec:
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data_dir), *flags]
    return LaunchSpec(command=AgentCommand(argv, cwd=cwd, name="demo"), cwd=cwd)


@asynccontextmanager
async def demo_client(
    data_dir: Path,
    cwd: Path,
    *flags: str,
    permission_handler: PermissionHandler = allow_first,
    init_timeout: float = WAIT,
) -> AsyncIterator[AgentClient]:
    """A connected client of the demo agent started with ``flags`` (in the test's event loop
    unless the test is marked ``real_agent``)."""
    async with in_process.current(
        demo_spec(data_dir, cwd, *flags),
        permission_handler=permission_handler,
        init_timeout=init_timeout,
    ) as client:
        yield client


@dataclass
class Wire:
    """Every message of a connection, in order: ``(direction, message)``."""

    messages: list[tuple[str, Any]] = field(default_factory=list)

    def __call__(self, direction: str, message: Any) -> None:
        self.messages.append((direction, message))

    @property
    def sent(self) -> list[dict[str, Any]]:
        return [m for d, m in self.messages if d == "send"]

    def sent_methods(self) -> list[str]:
        return [m["method"] for m in self.sent if "method" in m]

    def sent_params(self, method: str) -> list[Any]:
        return [m.get("params") for m in self.sent if m.get("method") == method]

    def received_requests(self) -> dict[Any, str]:
        """Request id -> method of every request the peer sent us."""
        return {
            m["id"]: m["method"]
            for d, m in self.messages
            if d == "recv" and isinstance(m, dict) and "method" in m and "id" in m
        }


def record_wire(monkeypatch: pytest.MonkeyPatch) -> Wire:
    """Record every message of the next connections, from `initialize` on."""
    wire = Wire()

    def traced(*args: Any, **kwargs: Any) -> Any:
        conn = Connection(*args, **kwargs)
        conn.tracer = wire
        return conn

    monkeypatch.setattr(agent_module, "Connection", traced)
    return wire


def of_type(transcript: Transcript, kind: type[_E]) -> list[_E]:
    return [e for e in transcript.entries if isinstance(e, kind)]


def messages(transcript: Transcript, role: str) -> list[MessageEntry]:
    return [e for e in of_type(transcript, MessageEntry) if e.role == role]


def agent_text(transcript: Transcript) -> str:
    return "\n".join(e.text for e in messages(transcript, "agent"))


def tool_calls(transcript: Transcript) -> list[ToolCallEntry]:
    return of_type(transcript, ToolCallEntry)


async def wait_until(predicate: Callable[[], bool], transcript: Transcript) -> None:
    """Wait (bounded) until ``predicate`` holds, re-checking on every transcript change."""
    changed = anyio.Event()

    def on_change(_change: object) -> None:
        changed.set()

    unsubscribe = transcript.subscribe(on_change)
    try:
        with anyio.fail_after(WAIT):
            while not predicate():
                await changed.wait()
                changed = anyio.Event()
    finally:
        unsubscribe()


def roots_of(paths: Sequence[Path]) -> list[str]:
    return [str(p) for p in paths]
