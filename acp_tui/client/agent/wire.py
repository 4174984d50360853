"""Provides AgentWire: one agent's connection as typed calls, and what a dead agent says.

The base of the agent client: a request goes out as a `WireModel` and comes back as the typed
result (bounded by the `CallClock` where a call must not wait forever), and a call the agent's
exit cut short fails with its exit code and last stderr lines (`AgentExited`), marked
``deliberate`` when the client's owner ended it. The session calls (`SessionCalls`) are built on
it, and `AgentClient` on them.
"""

from __future__ import annotations

from typing import Any, TypeVar

import anyio
import anyio.to_thread
from pydantic import ValidationError

from acp_tui.client.agent.inbox import quietly
from acp_tui.client.agent.waits import CallClock
from acp_tui.client.errors import AgentError
from acp_tui.client.process.agent_process import AgentProcess
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.connection import BIG_LINE, Connection, describe_validation_error
from acp_tui.protocol.jsonrpc import ConnectionClosed

__all__ = ["AgentWire", "MalformedResponse"]

_R = TypeVar("_R", bound=WireModel)


class MalformedResponse(AgentError):
    """The agent answered a request with a result that does not fit the protocol."""


class AgentWire:
    """Typed requests and notifications over ``connection`` to the agent ``process`` runs."""

    def __init__(self, process: AgentProcess, connection: Connection, clock: CallClock) -> None:
        self.process = process
        self.connection = connection
        self.clock = clock
        """Bounds the calls that must not wait forever, and says how long they wait."""
        self.exited = anyio.Event()
        """Set once the connection is over and the agent's exit is known."""
        self.ending = False
        """Its owner ended the connection on purpose (a stop or a restart): a call that fails
        from now on fails with an :class:`AgentExited` marked ``deliberate``."""

    async def run_connection(self) -> None:
        """Read from the agent until it goes away; then give the exit code to pending calls."""
        await self.connection.run()
        with anyio.move_on_after(2):
            await self.process.exited.wait()
        self.connection.close(str(self.process.exit_error()))
        self.exited.set()

    async def exit_error(self, context: str) -> AgentError:
        """What a call cut short by the agent's exit fails with (``context``: when it was)."""
        with anyio.move_on_after(2):
            await self.process.exited.wait()
        error = self.process.exit_error(context)
        error.deliberate = self.ending
        return error

    async def request_raw(self, method: str, params: WireModel | None) -> tuple[Any, int]:
        """Send a typed request (``clock`` bounds some); the decoded result, its line's size."""
        wire = None if params is None else params.to_wire()
        try:
            return await self.clock.run(
                method, params, lambda: self.connection.request_sized(method, wire)
            )
        except ConnectionClosed:
            raise await self.exit_error(f"during {method}") from None

    async def request(self, method: str, params: WireModel | None, result: type[_R]) -> _R:
        """Send a typed request and parse the typed result."""
        raw, size = await self.request_raw(method, params)
        try:
            if size > BIG_LINE:  # e.g. 100,000 sessions in one page
                return await anyio.to_thread.run_sync(quietly, result.from_wire, raw)
            return result.from_wire(raw)
        except ValidationError as exc:
            raise MalformedResponse(
                f"the agent's answer to {method} does not fit the protocol: "
                f"{describe_validation_error(exc)}"
            ) from exc

    async def notify(self, method: str, params: WireModel) -> None:
        try:
            await self.connection.notify(method, params.to_wire())
        except ConnectionClosed:
            raise await self.exit_error(f"sending {method}") from None
