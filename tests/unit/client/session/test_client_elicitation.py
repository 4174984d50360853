"""Elicitation through AgentClient, against the demo agent as a real subprocess (v1 and v2):
forms, URLs, request-scoped questions during the login, what the client refuses, questions the
agent withdraws or the user's cancel answers, and 1,000 questions in a row, in order."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from acp_tui.client.agent.agent_client import AgentClient
from acp_tui.client.session.elicitation import (
    ACCEPTED,
    CANCELLED,
    DECLINED,
    Answer,
    Elicitation,
    ElicitationHandler,
)
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.session.question_queue import QuestionQueue
from acp_tui.config.paths import Paths
from acp_tui.protocol.client_methods import (
    PermissionOption,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.tools import ToolCallUpdate
from tests import in_process
from tests.unit.client.agent.agent_helpers import (
    WAIT,
    agent_text,
    allow_first,
    demo_spec,
    make_project,
    record_wire,
)
from tests.unit.client.workspace.workspace_helpers import Scripted, workspace

PROTOCOLS = pytest.mark.parametrize("version", [1, 2], ids=["v1", "v2"])


@asynccontextmanager
async def demo(
    version: int, data: Path, cwd: Path, handler: ElicitationHandler, *flags: str
) -> AsyncIterator[AgentClient]:
    extra = ("--protocol", "2") if version == 2 else ()
    spec = replace(demo_spec(data, cwd, *flags, *extra), protocol_version=version)
    async with in_process.current(
        spec, permission_handler=allow_first, elicitation_handler=handler, init_timeout=WAIT
    ) as client:
        yield client


def text(prompt: str) -> list[TextContent]:
    return [TextContent(text=prompt)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "demo-data"


class Asked:
    """An elicitation handler that remembers what it was asked and answers with ``answer``."""

    def __init__(self, answer: Callable[[Elicitation], Awaitable[Answer]]) -> None:
        self.answer = answer
        self.asked: list[Elicitation] = []

    async def __call__(self, elicitation: Elicitation) -> Answer:
        self.asked.append(elicitation)
        return await self.answer(elicitation)


async def fill_in(elicitation: Elicitation) -> Answer:
    """Fill the demo's form: its defaults, an email and a license."""
    form = elicitation.form
    assert form is not None
    content, errors = form.answer({**form.defaults(), "email": "ana@example.com", "license": "MIT"})
    assert errors == {}
    return Answer("accept", content)


def always(answer: Answer) -> Callable[[Elicitation], Awaitable[Answer]]:
    async def give(elicitation: Elicitation) -> Answer:
        return answer

    return give


# -- forms and URLs -----------------------------------------------------------------------------


@PROTOCOLS
async def test_a_form_tied_to_a_tool_call_is_answered_with_its_content(
    data: Path, project: Path, version: int
) -> None:
    handler = Asked(fill_in)
    async with demo(version, data, project, handler) as client:
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("ask")) == "end_turn"
        (asked,) = handler.asked
        assert asked.mode == "form"
        assert asked.session_id == session.session_id
        assert asked.tool_title == "Ask about the project"
        assert asked.message.startswith("Before I set up the project")
        reply = agent_text(session.transcript)
        assert '"email": "ana@example.com"' in reply
        assert '"platforms": [\n    "linux"\n  ]' in reply
        assert session.transcript.state == "idle"


@PROTOCOLS
@pytest.mark.parametrize("answer", [DECLINED, CANCELLED], ids=["decline", "cancel"])
async def test_decline_and_cancel_reach_the_agent(
    data: Path, project: Path, version: int, answer: Answer
) -> None:
    async with demo(version, data, project, Asked(always(answer))) as client:
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("ask")) == "end_turn"
        word = "declined" if answer is DECLINED else "cancelled"
        assert f"You {word}." in agent_text(session.transcript)


@PROTOCOLS
@pytest.mark.parametrize("after", ["0.1", "0"], ids=["later", "at-once"])
async def test_a_url_question_ends_when_the_agent_says_it_is_done(
    data: Path, project: Path, version: int, after: str
) -> None:
    """Also when the completion comes right after the request (read before its handler runs)."""

    async def until_done(elicitation: Elicitation) -> Answer:
        await elicitation.completed.wait()
        return ACCEPTED

    handler = Asked(until_done)
    async with demo(version, data, project, handler) as client:
        session = await client.new_session(project)
        with anyio.fail_after(WAIT):
            assert await client.prompt(session.session_id, text(f"ask-url {after}")) == "end_turn"
        (asked,) = handler.asked
        assert asked.mode == "url"
        assert asked.request.url == "https://agentclientprotocol.com/protocol/v1/elicitation"
        assert asked.tool_title == "Connect your account"
        assert "You are done at the page" in agent_text(session.transcript)
        assert client.url_questions.asked == {}
        assert client.url_questions.early == {}


async def test_a_completion_for_an_unknown_id_changes_nothing(data: Path, project: Path) -> None:
    async with demo(1, data, project, Asked(always(DECLINED))) as client:
        client.elicitation_complete({"elicitationId": "nobody"})
        client.elicitation_complete({"nope": 1})
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("ask-url never")) == "end_turn"
        assert "You declined." in agent_text(session.transcript)


# -- request-scoped: before any session ------------------------------------------------------


@PROTOCOLS
async def test_a_question_during_the_login_is_request_scoped(
    data: Path, project: Path, version: int
) -> None:
    handler = Asked(always(Answer("accept", {"account": "ana", "remember": False})))
    async with demo(version, data, project, handler, "--require-auth", "--auth-elicit") as client:
        method = client.capabilities.auth_methods[0]
        await client.authenticate(method.id)
        (asked,) = handler.asked
        assert asked.session_id is None
        assert asked.during == ("authenticate" if version == 1 else "auth/login")
        assert asked.form is not None
        assert [f.name for f in asked.form.fields] == ["account", "remember"]
        await client.new_session(project)  # logged in


async def test_a_declined_login_question_fails_the_login(data: Path, project: Path) -> None:
    async with demo(
        1, data, project, Asked(always(DECLINED)), "--require-auth", "--auth-elicit"
    ) as (client):
        with pytest.raises(RpcError, match="decline"):
            await client.authenticate("demo-login")
        with pytest.raises(RpcError) as info:
            await client.new_session(project)
        assert info.value.is_auth_required


# -- bad input ---------------------------------------------------------------------------------


@PROTOCOLS
async def test_what_the_client_cannot_ask_is_refused_with_an_error(
    data: Path, project: Path, version: int
) -> None:
    handler = Asked(always(ACCEPTED))
    async with demo(version, data, project, handler) as client:
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("ask-bad")) == "end_turn"
        assert handler.asked == []
        assert (
            "unknown session: error -32002; unknown mode: error -32602; "
            "form without a schema: error -32602; no scope: error -32602; "
            "URL without an id: error -32602."
        ) in agent_text(session.transcript)


async def test_the_client_advertises_both_modes(
    data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    async with demo(1, data, project, Asked(always(ACCEPTED))):
        pass
    async with demo(2, data, project, Asked(always(ACCEPTED))):
        pass
    v1, v2 = wire.sent_params("initialize")
    assert v1["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}
    assert v2["capabilities"]["elicitation"] == {"form": {}, "url": {}}


# -- withdrawn questions ------------------------------------------------------------------------


class Waiter:
    """A handler (through a QuestionQueue) that the test answers question by question."""

    def __init__(self) -> None:
        self.queue = QuestionQueue(allow_first)
        self.asked: list[str] = []
        self.cancelled: list[str] = []
        self.replies: dict[str, anyio.Event] = {}

    async def __call__(self, elicitation: Elicitation) -> Answer:
        async def ask() -> Answer:
            name = elicitation.message
            self.asked.append(name)
            try:
                await self.replies.setdefault(name, anyio.Event()).wait()
            except anyio.get_cancelled_exc_class():
                self.cancelled.append(name)
                raise
            return ACCEPTED

        return await self.queue.turn(ask)

    def reply(self, name: str) -> None:
        self.replies.setdefault(name, anyio.Event()).set()


async def until(predicate: Callable[[], bool]) -> None:
    """Poll the state of the two processes until ``predicate`` holds; fail after ``WAIT`` s."""
    with anyio.fail_after(WAIT):
        while True:
            if predicate():
                return
            await anyio.sleep(0.01)


@PROTOCOLS
async def test_the_agents_cancel_request_withdraws_a_queued_question(
    data: Path, project: Path, version: int
) -> None:
    waiter = Waiter()
    async with demo(version, data, project, waiter) as client:
        session = await client.new_session(project)
        stops: list[str] = []

        async def run() -> None:
            stops.append(await client.prompt(session.session_id, text("ask-flood 4 cancel 3")))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await until(lambda: waiter.queue.pending == 4)
            waiter.reply("Question 1 of 4")  # the agent withdraws 3 when it learns this answer
            await until(lambda: waiter.queue.pending == 2)  # 2 is asked, 4 waits
            waiter.reply("Question 2 of 4")
            await until(lambda: len(waiter.asked) == 3)
            waiter.reply("Question 4 of 4")
        assert stops == ["end_turn"]
        assert waiter.asked == ["Question 1 of 4", "Question 2 of 4", "Question 4 of 4"]
        assert waiter.cancelled == []
        assert "1: accept, 3: withdrawn, 2: accept, 4: accept." in agent_text(session.transcript)


async def test_the_agents_cancel_request_closes_the_question_being_asked(
    data: Path, project: Path
) -> None:
    waiter = Waiter()
    async with demo(1, data, project, waiter) as client:
        session = await client.new_session(project)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.prompt, session.session_id, text("ask-flood 2 cancel 2"))
            await until(lambda: waiter.queue.pending == 2)
            waiter.reply("Question 1 of 2")
            # 2 is being asked (or about to be) when the agent withdraws it.
            await until(lambda: waiter.queue.pending == 0)
        assert "1: accept, 2: withdrawn." in agent_text(session.transcript)
        assert waiter.cancelled in ([], ["Question 2 of 2"])
        assert session.pending_permissions == 0


async def test_the_users_cancel_answers_a_pending_question_cancel(
    data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    waiter = Waiter()
    async with demo(1, data, project, waiter) as client:
        session = await client.new_session(project)
        stops: list[str] = []

        async def run() -> None:
            stops.append(await client.prompt(session.session_id, text("ask")))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await until(lambda: len(waiter.asked) == 1)
            assert session.transcript.state == "requires_action"
            await client.cancel(session.session_id)
        assert stops == ["cancelled"]
        assert waiter.cancelled == [waiter.asked[0]]
        assert session.transcript.state == "idle"
    answers = [m for m in wire.sent if m.get("result", {}).get("action")]
    assert [m["result"] for m in answers] == [{"action": "cancel"}]


# -- order -----------------------------------------------------------------------------------


async def test_a_thousand_questions_are_answered_or_cancelled_in_order(
    data: Path, project: Path
) -> None:
    """1,000 at once through the client and the question queue (through the app it would take
    minutes: the app test floods fewer). Answers rotate accept, decline, cancel."""
    queue = QuestionQueue(allow_first)
    order: list[int] = []
    showing = [0]
    most = [0]

    async def answer(elicitation: Elicitation) -> Answer:
        async def ask() -> Answer:
            showing[0] += 1
            most[0] = max(most[0], showing[0])
            number = int(elicitation.message.split()[1])
            order.append(number)
            await anyio.lowlevel.checkpoint()
            showing[0] -= 1
            return (ACCEPTED, DECLINED, CANCELLED)[number % 3]

        return await queue.turn(ask)

    async with demo(1, data, project, answer) as client:
        session = await client.new_session(project)
        started = time.monotonic()
        with anyio.fail_after(60):
            assert await client.prompt(session.session_id, text("ask-flood 1000")) == "end_turn"
        elapsed = time.monotonic() - started
    print(f"1000 elicitations through the client: {elapsed:.2f} s")
    assert order == list(range(1, 1001))
    assert most[0] == 1
    actions = ("accept", "decline", "cancel")
    expected = ", ".join(f"{n}: {actions[n % 3]}" for n in range(1, 1001))
    assert f"Answers in the order they came: {expected}." in agent_text(session.transcript)


async def test_permissions_and_elicitations_share_one_order(tmp_path: Path) -> None:
    queue = QuestionQueue(allow_first)
    asked: list[str] = []
    release = anyio.Event()
    session = LiveSession("s", tmp_path)

    async def permission(live: LiveSession, request: RequestPermissionRequest) -> Any:
        asked.append(request.tool_call.tool_call_id)
        await release.wait()
        return SelectedPermissionOutcome(option_id="ok")

    def request(name: str) -> RequestPermissionRequest:
        return RequestPermissionRequest(
            session_id="s",
            tool_call=ToolCallUpdate(tool_call_id=name),
            options=[PermissionOption(option_id="ok", name="OK", kind="allow_once")],
        )

    async def elicit(name: str) -> Answer:
        asked.append(name)
        await release.wait()
        return ACCEPTED

    async def ask_permission(name: str) -> RequestPermissionOutcome:
        return await queue.ask(session, request(name), permission)

    async with anyio.create_task_group() as tg:
        for name in ("p1", "e1", "p2", "e2"):
            if name.startswith("p"):
                tg.start_soon(ask_permission, name)
            else:
                tg.start_soon(queue.turn, lambda name=name: elicit(name))
            await until(lambda name=name: queue.pending == int(name[1]) * 2 - (name[0] == "p"))
        assert asked == ["p1"]
        release.set()
    assert asked == ["p1", "e1", "p2", "e2"]


# -- the Workspace ----------------------------------------------------------------------------


async def test_the_workspace_asks_over_the_sessions_tab_and_refuses_unshown_sessions(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    interaction = Scripted()
    async with workspace(acp_home, project, interaction) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "ask")
        await watch.until(lambda: not slot.busy and "You" in agent_text(slot.transcript))
        assert interaction.asked == ["elicitation form"]
        assert "You declined." in agent_text(slot.transcript)  # required fields left empty
        handler = ws.questions.elicitation_handler(agent)
        elsewhere = Elicitation(request=ws_request("form"), session_id="not-in-any-tab", form=None)
        assert await handler(elsewhere) == CANCELLED
        assert interaction.asked == ["elicitation form"]


def ws_request(mode: str) -> Any:
    from acp_tui.protocol.client_methods import CreateElicitationRequest

    return CreateElicitationRequest(mode=mode, message="m", session_id="not-in-any-tab")
