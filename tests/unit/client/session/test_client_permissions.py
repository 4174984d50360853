"""PermissionQueue without Textual: one request asked at a time, in order, cancellable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.session.question_queue import PermissionQueue
from acp_tui.protocol.client_methods import (
    PermissionOption,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.tools import ToolCallUpdate

WAIT = 5.0


def request(tool_call_id: str) -> RequestPermissionRequest:
    return RequestPermissionRequest(
        session_id="s1",
        tool_call=ToolCallUpdate(tool_call_id=tool_call_id),
        options=[PermissionOption(option_id="allow", name="Allow", kind="allow_once")],
    )


class FakeUser:
    """A permission handler that asks one question at a time and is answered by the test."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.showing = 0
        self.most_at_once = 0
        self.answer: dict[str, anyio.Event] = {}

    async def __call__(
        self, session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        name = request.tool_call.tool_call_id
        self.asked.append(name)
        self.showing += 1
        self.most_at_once = max(self.most_at_once, self.showing)
        try:
            await self.answer.setdefault(name, anyio.Event()).wait()
        finally:
            self.showing -= 1
        return SelectedPermissionOutcome(option_id=f"answer-{name}")

    def reply(self, name: str) -> None:
        self.answer.setdefault(name, anyio.Event()).set()


async def until(predicate: Callable[[], bool]) -> None:
    """Let the other tasks run until ``predicate()`` holds; fail after ``WAIT`` seconds."""
    with anyio.fail_after(WAIT):
        while not predicate():
            await anyio.lowlevel.checkpoint()


@pytest.fixture
def session(tmp_path: Path) -> LiveSession:
    return LiveSession("s1", tmp_path)


async def test_one_request_is_asked_at_a_time_in_the_order_they_came(
    session: LiveSession,
) -> None:
    user = FakeUser()
    queue = PermissionQueue(user)
    results: list[tuple[str, str]] = []

    async def ask(name: str) -> None:
        outcome = await queue.ask(session, request(name))
        assert isinstance(outcome, SelectedPermissionOutcome)
        results.append((name, outcome.option_id))

    names = [f"r{i}" for i in range(20)]
    async with anyio.create_task_group() as tg:
        for name in names:
            tg.start_soon(ask, name)
        await until(lambda: queue.pending == 20)
        assert queue.waiting == 19
        for name in names:
            await until(lambda name=name: user.asked[-1:] == [name])
            user.reply(name)
    assert user.asked == names
    assert results == [(name, f"answer-{name}") for name in names]
    assert user.most_at_once == 1
    assert queue.pending == 0


async def test_cancelling_a_waiting_request_never_shows_it(session: LiveSession) -> None:
    user = FakeUser()
    queue = PermissionQueue(user)
    waiting: list[int] = []
    queue.subscribe(lambda: waiting.append(queue.waiting))
    outcomes: dict[str, str] = {}

    async def ask(name: str, scope: anyio.CancelScope | None = None) -> None:
        if scope is None:
            await queue.ask(session, request(name))
            outcomes[name] = "answered"
            return
        with scope:
            await queue.ask(session, request(name))
            outcomes[name] = "answered"
        if scope.cancelled_caught:
            outcomes[name] = "cancelled"

    second = anyio.CancelScope()
    async with anyio.create_task_group() as tg:
        tg.start_soon(ask, "first")
        await until(lambda: user.asked == ["first"])
        tg.start_soon(ask, "second", second)
        tg.start_soon(ask, "third")
        await until(lambda: queue.waiting == 2)
        second.cancel()
        await until(lambda: queue.waiting == 1)
        user.reply("first")
        await until(lambda: user.asked == ["first", "third"])
        user.reply("third")
    assert user.asked == ["first", "third"]
    assert outcomes == {"first": "answered", "second": "cancelled", "third": "answered"}
    assert waiting == [0, 1, 2, 1, 0, 0]  # joined, joined, joined, withdrawn, answered...


async def test_cancelling_the_request_being_asked_moves_on(session: LiveSession) -> None:
    user = FakeUser()
    queue = PermissionQueue(user)
    first = anyio.CancelScope()

    async def ask_first() -> None:
        with first:
            await queue.ask(session, request("first"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask_first)
        await until(lambda: user.asked == ["first"])
        tg.start_soon(queue.ask, session, request("second"))
        await until(lambda: queue.waiting == 1)
        first.cancel()
        await until(lambda: user.asked == ["first", "second"])
        assert user.showing == 1
        user.reply("second")
    assert queue.pending == 0


async def test_the_sessions_cancel_empties_the_queue_of_its_requests(
    session: LiveSession,
) -> None:
    """`session/cancel` answers every pending request of the session `cancelled`."""
    user = FakeUser()
    queue = PermissionQueue(user)
    replies: list[object] = []

    async def ask(name: str) -> None:
        replies.append(await session.ask_permission(queue.ask, request(name)))

    async with anyio.create_task_group() as tg:
        for name in ("a", "b", "c"):
            tg.start_soon(ask, name)
        await until(lambda: queue.pending == 3 and user.asked == ["a"])
        assert session.cancel_pending_permissions() == 3
    assert replies == [{"outcome": {"outcome": "cancelled"}}] * 3
    assert user.asked == ["a"]
    assert queue.pending == 0


async def test_a_failing_handler_or_listener_does_not_stop_the_queue(
    session: LiveSession,
) -> None:
    calls: list[str] = []

    async def handler(
        session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        calls.append(request.tool_call.tool_call_id)
        if request.tool_call.tool_call_id == "boom":
            raise RuntimeError("the dialog broke")
        return SelectedPermissionOutcome(option_id="ok")

    queue = PermissionQueue(handler)
    unsubscribe = queue.subscribe(lambda: 1 / 0)  # type: ignore[func-returns-value]
    with pytest.raises(RuntimeError):
        await queue.ask(session, request("boom"))
    assert await queue.ask(session, request("fine")) == SelectedPermissionOutcome(option_id="ok")
    unsubscribe()
    assert calls == ["boom", "fine"]
    assert queue.pending == 0
