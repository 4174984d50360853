"""Nothing waits for an agent forever: the session calls and the login give up after
``request_timeout`` (or when the user stops waiting), cancelling the request on the wire."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.agent import waits
from acp_tui.client.agent.agent_client import AgentClient
from acp_tui.client.agent.waits import SETUP_CALLS, CallClock
from acp_tui.client.errors import RequestCancelled, RequestTimedOut
from acp_tui.client.listeners import Listeners
from acp_tui.config.settings import Settings
from acp_tui.protocol.updates import SessionUpdate
from tests import in_process
from tests.unit.client.agent.agent_helpers import WAIT, Wire, demo_spec, make_project, record_wire

VERSIONS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
SHORT = 0.5
"""The ``request_timeout`` of these tests: no answer ever comes, so its length changes nothing
but how long the test takes."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@asynccontextmanager
async def client_of(
    data: Path, cwd: Path, protocol: int, *flags: str, seconds: float = SHORT
) -> AsyncIterator[AgentClient]:
    """A client of the demo agent whose settings say ``request_timeout = seconds``."""
    spec = demo_spec(data, cwd, "--protocol", str(protocol), *flags)
    spec = replace(spec, protocol_version=protocol, settings=Settings(request_timeout=seconds))
    async with in_process.current(spec, init_timeout=WAIT) as client:
        yield client


def cancelled_ids(wire: Wire) -> list[Any]:
    return [p["requestId"] for p in wire.sent_params("$/cancel_request")]


def request_id(wire: Wire, method: str) -> Any:
    [found] = [m["id"] for m in wire.sent if m.get("method") == method]
    return found


async def saved_session(data: Path, project: Path, protocol: int) -> str:
    """A session the demo agent keeps in ``data``, made by an agent without faults."""
    async with client_of(data, project, protocol, seconds=WAIT) as client:
        session = await client.new_session(project)
        return session.session_id


CALLS: dict[str, Callable[[AgentClient, str, Path], Awaitable[object]]] = {
    "new": lambda c, _sid, cwd: c.new_session(cwd),
    "load": lambda c, sid, cwd: c.load_session(sid, cwd),
    "resume": lambda c, sid, cwd: c.resume_session(sid, cwd),
    "fork": lambda c, sid, cwd: c.fork_session(sid, cwd),
}
METHODS = {
    (1, "new"): "session/new",
    (1, "load"): "session/load",
    (1, "resume"): "session/resume",
    (1, "fork"): "session/fork",
    (2, "new"): "session/new",
    (2, "load"): "session/resume",  # v2 loads with session/resume and replayFrom
    (2, "resume"): "session/resume",
    (2, "fork"): "session/fork",
}


@VERSIONS
@pytest.mark.parametrize("call", sorted(CALLS))
async def test_a_session_call_never_answered_times_out_and_is_cancelled(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, protocol: int, call: str
) -> None:
    data = tmp_path / "demo"
    session_id = await saved_session(data, project, protocol)
    wire = record_wire(monkeypatch)
    method = METHODS[protocol, call]
    async with client_of(data, project, protocol, "--fault", "hang-session") as client:
        with anyio.fail_after(WAIT), pytest.raises(RequestTimedOut) as caught:
            await CALLS[call](client, session_id, project)
        assert caught.value.method == method
        assert f"did not answer {method} within 0.5 s" in str(caught.value)
        assert cancelled_ids(wire) == [request_id(wire, method)]
        assert client.clock.waiting == []
        # The agent is still there: a call it answers goes on as ever.
        with anyio.fail_after(WAIT):
            page = await client.list_sessions()
        assert session_id in {s.session_id for s in page.sessions}


@VERSIONS
async def test_a_list_never_answered_times_out(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, protocol: int
) -> None:
    wire = record_wire(monkeypatch)
    async with client_of(tmp_path / "demo", project, protocol, "--fault", "hang-list") as client:
        with anyio.fail_after(WAIT), pytest.raises(RequestTimedOut, match="session/list"):
            await client.list_sessions()
        with anyio.fail_after(WAIT), pytest.raises(RequestTimedOut, match="session/list"):
            await client.list_sessions_raw()
        assert len(cancelled_ids(wire)) == 2


@VERSIONS
async def test_a_login_never_answered_times_out(
    tmp_path: Path, project: Path, protocol: int
) -> None:
    flags = ("--require-auth", "--fault", "login-hangs")
    async with client_of(tmp_path / "demo", project, protocol, *flags) as client:
        [method] = [m for m in client.capabilities.auth_methods if not m.terminal]
        with anyio.fail_after(WAIT), pytest.raises(RequestTimedOut) as caught:
            await client.authenticate(method.id)
        assert caught.value.method == ("authenticate" if protocol == 1 else "auth/login")


@VERSIONS
async def test_the_user_stops_waiting_and_the_request_is_cancelled(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, protocol: int
) -> None:
    """A long timeout; the user gives up first (Esc): the call ends at once, said so."""
    wire = record_wire(monkeypatch)
    flags = ("--fault", "hang-session")
    async with client_of(tmp_path / "demo", project, protocol, *flags, seconds=WAIT * 10) as client:
        outcome: list[BaseException] = []

        async def create() -> None:
            try:
                await client.new_session(project)
            except RequestCancelled as exc:
                outcome.append(exc)

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(create)
                while client.clock.longest(SETUP_CALLS) is None:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                waiting = client.clock.longest(SETUP_CALLS)
                assert waiting is not None
                assert waiting.method == "session/new"
                assert waiting.seconds() >= 0
                assert not client.clock.cancel({"session/list"})  # nothing of that waits
                assert client.clock.cancel(SETUP_CALLS)
        [error] = outcome
        assert str(error) == "you stopped waiting for session/new"
        assert cancelled_ids(wire) == [request_id(wire, "session/new")]


async def test_a_replay_still_arriving_moves_the_deadline_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Updates of the session being restored keep its call waiting past the timeout; those
    of another session do not."""
    monkeypatch.setattr(waits, "PUSH_EVERY", 0.0)
    updates: Listeners[[str, SessionUpdate]] = Listeners("test")
    clock = CallClock(1.0, updates)

    class Params:
        session_id = "replayed"

    async def replay(session_id: str) -> str:
        for _ in range(15):  # 1.5 s in all, a tenth of the timeout between two updates
            await anyio.sleep(0.1)
            updates.emit(session_id, None)  # type: ignore[arg-type]
        return "done"

    with anyio.fail_after(WAIT):
        assert await clock.run("session/load", Params(), lambda: replay("replayed")) == "done"
        with pytest.raises(RequestTimedOut):
            await clock.run("session/load", Params(), lambda: replay("another"))
        # An untimed call is never cut.
        assert await clock.run("session/prompt", Params(), lambda: replay("another")) == "done"
