"""AgentClient against the real demo agent subprocess: initialize, turns, client services,
session lifecycle, capability gating and errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from acp_tui.client.agent.agent_client import AgentClient, connect
from acp_tui.client.agent.capabilities import AuthMethodInfo
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.rules import session_matches
from acp_tui.client.agent.wire import MalformedResponse
from acp_tui.client.errors import (
    AgentExited,
    AgentNotFound,
    InitializeTimeout,
    ProtocolMismatch,
    Unsupported,
)
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.entries import Change, MessageEntry, NoticeEntry, PlanEntryBlock
from acp_tui.client.session.live_session import LiveSession
from acp_tui.protocol.client_methods import (
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.content import ImageContent, TextContent
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError
from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    DiffToolCallContent,
    TerminalToolCallContent,
)
from tests.unit.client.agent.agent_helpers import (
    WAIT,
    agent_text,
    demo_client,
    make_project,
    messages,
    of_type,
    record_wire,
    tool_calls,
    wait_until,
)


def text(prompt: str) -> list[TextContent]:
    return [TextContent(text=prompt)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "demo-data"


async def list_all(
    client: AgentClient,
    *,
    cwd: Path | None = None,
    additional_directories: list[Path] | None = None,
) -> list[SessionInfo]:
    """Every session, following next_cursor; fails on a cursor loop."""
    found: list[SessionInfo] = []
    cursor: str | None = None
    for _ in range(20):
        page: ListSessionsResponse = await client.list_sessions(
            cwd=cwd, cursor=cursor, additional_directories=additional_directories
        )
        found.extend(page.sessions)
        cursor = page.next_cursor
        if cursor is None:
            return found
    raise AssertionError("session/list never ended")


# -- 1. initialize ----------------------------------------------------------------------------


async def test_initialize_shows_everything_the_demo_advertises(
    data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    async with demo_client(data, project) as client:
        caps = client.capabilities
        assert caps.protocol_version == 1
        assert (caps.can_list, caps.can_load, caps.can_resume) == (True, True, True)
        assert (caps.can_close, caps.can_delete, caps.can_fork) == (True, True, True)
        assert caps.additional_directories
        assert caps.can_reattach
        assert caps.prompt_content_kinds == {"text", "resource_link", "resource"}
        assert not caps.can_logout
        assert caps.auth_methods == ()
        for action in ("list", "load", "resume", "close", "delete", "fork"):
            assert caps.why_not(action) is None
        assert caps.agent_name == "acp-tui-demo"
        assert caps.display_name == "acp-tui demo agent"
        assert client.initialize_result is not None
    (params,) = wire.sent_params("initialize")
    assert params["protocolVersion"] == 1
    assert params["clientInfo"]["name"] == "acp-tui"
    assert params["clientInfo"]["version"]
    assert params["clientCapabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
    assert params["clientCapabilities"]["terminal"] is True


async def test_initialize_with_a_few_capabilities(data: Path, project: Path) -> None:
    async with demo_client(data, project, "--capabilities", "list,resume") as client:
        caps = client.capabilities
        assert caps.can_list
        assert caps.can_resume
        assert not (caps.can_load)
        assert not (caps.can_close)
        assert not (caps.can_delete)
        assert not (caps.can_fork)
        assert not caps.additional_directories
        reason = caps.why_not("delete")
        assert reason is not None
        assert "session/delete" in reason
        assert "acp-tui demo agent" in reason
        assert "session/load" in (caps.why_not("load") or "")
        assert "additionalDirectories" in (caps.why_not("additional_directories") or "")


# -- 2. a turn --------------------------------------------------------------------------------


async def test_a_turn_builds_the_transcript_in_order(data: Path, project: Path) -> None:
    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        transcript = session.transcript
        plans: list[list[str]] = []
        states: list[str] = []

        def on_change(change: Change) -> None:
            if change.kind == "state":
                states.append(change.what)
            elif change.index is not None:
                entry = transcript.entries[change.index]
                if isinstance(entry, PlanEntryBlock):
                    plans.append([e.status for e in entry.entries])

        transcript.subscribe(on_change)
        prompt = "think plan markdown diff"
        stop = await client.prompt(session.session_id, text(prompt))

        assert stop == "end_turn"
        assert transcript.stop_reason == "end_turn"
        assert transcript.state == "idle"
        assert states[0] == "running"
        assert states[-1] == "idle"

        # The user's message is shown once, although the demo echoes it.
        users = messages(transcript, "user")
        assert len(users) == 1
        assert users[0].text == prompt
        assert transcript.entries[0] is users[0]
        assert users[0].message_id is not None  # replaced by the echo, which has an id

        thoughts = messages(transcript, "thought")
        assert thoughts
        assert "think" in "".join(t.text for t in thoughts)
        (plan,) = of_type(transcript, PlanEntryBlock)
        assert [e.status for e in plan.entries] == ["completed"] * 3
        assert plans[0] == ["in_progress", "pending", "pending"]
        assert plans[-1] == ["completed", "completed", "completed"]
        assert len(plans) >= 4
        assert plan.revision == len(plans)
        markdown = next(m for m in messages(transcript, "agent") if "```" in m.text)
        assert "```python" in markdown.text
        assert "## A markdown reply" in markdown.text
        (call,) = tool_calls(transcript)
        assert (call.kind, call.status) == ("edit", "completed")
        diffs = [c for c in call.content if isinstance(c, DiffToolCallContent)]
        assert [Path(d.path).name for d in diffs] == ["hello.py", "NOTES.md"]
        assert diffs[1].old_text is None
        assert transcript.tool_call(call.tool_call_id) is call

        order = [transcript.entries.index(e) for e in (users[0], thoughts[0], plan, markdown, call)]
        assert order == sorted(order)

        assert transcript.title == prompt
        assert transcript.updated_at is not None
        assert transcript.usage is not None
        assert transcript.usage.used > 0
        assert transcript.usage.size == 200_000
        assert transcript.usage.cost_currency == "USD"
        assert [c.name for c in transcript.commands][:1] == ["help"]
        assert transcript.modes is not None
        assert transcript.modes.current_mode_id == "ask"
        assert {o.id for o in transcript.config_options} == {"mode", "model", "effort", "verbose"}


# -- 3. permission ----------------------------------------------------------------------------


async def test_permission_answer_names_the_chosen_option(data: Path, project: Path) -> None:
    chosen: list[str] = []

    async def handler(
        session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        assert session.transcript.state == "requires_action"
        assert request.tool_call.title == "Edit config.json"
        option = {o.option_id: o for o in request.options}[chosen[-1]]
        return SelectedPermissionOutcome(option_id=option.option_id)

    async with demo_client(data, project, permission_handler=handler) as client:
        session = await client.new_session(project)
        chosen.append("reject-once")
        assert await client.prompt(session.session_id, text("permission")) == "end_turn"
        assert "You chose **Reject** (`reject_once`)" in agent_text(session.transcript)
        assert tool_calls(session.transcript)[-1].status == "failed"

        chosen.append("allow-always")
        assert await client.prompt(session.session_id, text("permission")) == "end_turn"
        assert "You chose **Always allow** (`allow_always`)" in agent_text(session.transcript)
        assert tool_calls(session.transcript)[-1].status == "completed"
        assert session.transcript.state == "idle"


async def test_cancel_answers_a_pending_permission_cancelled(data: Path, project: Path) -> None:
    asked = anyio.Event()
    handler_cancelled: list[bool] = []

    async def never_answer(
        session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        asked.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            handler_cancelled.append(True)
            raise
        raise AssertionError("unreachable")

    async with demo_client(data, project, permission_handler=never_answer) as client:
        session = await client.new_session(project)
        stops: list[str] = []

        async def run() -> None:
            stops.append(await client.prompt(session.session_id, text("permission")))

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                await asked.wait()
                assert session.transcript.state == "requires_action"
                assert session.pending_permissions == 1
                await client.cancel(session.session_id)

        assert handler_cancelled == [True]
        assert stops == ["cancelled"]
        assert session.pending_permissions == 0
        assert session.transcript.state == "idle"
        notice = session.transcript.entries[-1]
        assert isinstance(notice, NoticeEntry)
        assert notice.text == "Cancelled."


# -- 4. file system ---------------------------------------------------------------------------


async def test_reads_and_writes_stay_inside_the_roots(data: Path, project: Path) -> None:
    outside = project.parent / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n", encoding="utf-8")
    extra = project.parent / "extra"
    extra.mkdir()
    (extra / "notes.txt").write_text("notes from the extra root\n", encoding="utf-8")

    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        sid = session.session_id

        assert await client.prompt(sid, text("read")) == "end_turn"
        assert "A README for the client tests." in agent_text(session.transcript)
        read_call = tool_calls(session.transcript)[-1]
        assert read_call.status == "completed"
        (shown,) = read_call.content
        assert isinstance(shown, ContentToolCallContent)

        assert await client.prompt(sid, text(f"read {secret}")) == "end_turn"
        reply = messages(session.transcript, "agent")[-1].text
        assert f"could not read `{secret}`" in reply
        assert "outside the session's roots" in reply
        assert tool_calls(session.transcript)[-1].status == "failed"
        everything = "".join(
            e.text for e in session.transcript.entries if isinstance(e, MessageEntry)
        ) + repr([c.content for c in tool_calls(session.transcript)])
        assert "TOP-SECRET" not in everything

        assert await client.prompt(sid, text("write")) == "end_turn"
        written = project / "demo-output.txt"
        assert written.read_text(encoding="utf-8") == (
            f"Written by the acp-tui demo agent for session {sid}.\n"
        )
        assert tool_calls(session.transcript)[-1].status == "completed"

        # The extra root is refused in a session without it, readable in one with it.
        await client.prompt(sid, text(f"read {extra / 'notes.txt'}"))
        assert "notes from the extra root" not in agent_text(session.transcript)
        wider = await client.new_session(project, [extra])
        assert wider.additional_directories == (extra,)
        assert await client.prompt(wider.session_id, text(f"read {extra / 'notes.txt'}")) == (
            "end_turn"
        )
        assert "notes from the extra root" in agent_text(wider.transcript)


# -- 5. terminals -----------------------------------------------------------------------------


async def test_terminal_output_is_kept_for_its_tool_call(data: Path, project: Path) -> None:
    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("terminal")) == "end_turn"
        (call,) = tool_calls(session.transcript)
        assert (call.kind, call.status) == ("execute", "completed")
        assert call.raw_output == {"exitCode": 0, "signal": None}
        (term,) = [c for c in call.content if isinstance(c, TerminalToolCallContent)]
        output = session.terminal_output(term.terminal_id)
        assert output is not None
        assert output.exited
        assert output.exit_code == 0
        assert output.output == "hello from the demo agent\na second line\n"
        assert "hello from the demo agent" in agent_text(session.transcript)


# -- 6. lifecycle -----------------------------------------------------------------------------


async def seed(data: Path, project: Path, count: int, *flags: str) -> list[str]:
    """``count`` sessions with one prompt each ("hello N"), in a process of their own."""
    ids = []
    async with demo_client(data, project, *flags) as client:
        for n in range(1, count + 1):
            session = await client.new_session(project)
            assert await client.prompt(session.session_id, text(f"hello {n}")) == "end_turn"
            ids.append(session.session_id)
    return ids


async def test_list_follows_cursors_to_every_session(data: Path, project: Path) -> None:
    async with demo_client(data, project, "--page-size", "2") as client:
        ids = []
        for n in range(3):
            session = await client.new_session(project)
            await client.prompt(session.session_id, text(f"hello {n}"))
            ids.append(session.session_id)
        first = await client.list_sessions()
        assert len(first.sessions) == 2
        assert first.next_cursor is not None
        listed = await list_all(client)
        assert sorted(s.session_id for s in listed) == sorted(ids)
        assert len({s.session_id for s in listed}) == len(listed) == 3
        assert {s.title for s in listed} == {"hello 0", "hello 1", "hello 2"}
        assert all(session_matches(s, cwd=project, additional_directories=[]) for s in listed)
        assert len(await list_all(client, cwd=project)) == 3
        assert await list_all(client, cwd=project / "elsewhere") == []


async def test_load_replays_before_returning_and_resume_does_not(data: Path, project: Path) -> None:
    first, second, third = await seed(data, project, 3)
    async with demo_client(data, project) as client:
        loaded = await client.load_session(first, project)
        entries = loaded.transcript.entries
        assert entries, "the replay must be in the transcript when load returns"
        assert [m.text for m in messages(loaded.transcript, "user")] == ["hello 1"]
        assert "> hello 1" in agent_text(loaded.transcript)
        assert loaded.transcript.title == "hello 1"
        assert client.sessions[first] is loaded

        resumed = await client.resume_session(second, project)
        assert resumed.transcript.entries == []
        assert resumed.transcript.modes is not None
        assert await client.prompt(second, text("hello again")) == "end_turn"
        assert [m.text for m in messages(resumed.transcript, "user")] == ["hello again"]
        assert "> hello again" in agent_text(resumed.transcript)

        again, how = await client.reattach(third, project, [], replay=True)
        assert how == "load"
        assert again.transcript.entries
        quiet, how = await client.reattach(third, project, [], replay=False)
        assert how == "resume"
        assert quiet.transcript.entries == []
        assert again.closed
        assert client.sessions[third] is quiet

    async with demo_client(data, project, "--capabilities", "list,resume") as client:
        # No load: the caller has to replay from its own cache, and is told so.
        session, how = await client.reattach(first, project, [], replay=True)
        assert how == "resume"
        assert session.transcript.entries == []
        assert await client.prompt(first, text("still here")) == "end_turn"


async def test_close_delete_fork_and_unknown_ids(data: Path, project: Path) -> None:
    extra = project.parent / "shared"
    extra.mkdir()
    async with demo_client(data, project) as client:
        original = await client.new_session(project)
        await client.prompt(original.session_id, text("hello fork"))

        fork = await client.fork_session(original.session_id, project, [extra])
        assert fork.session_id != original.session_id
        assert fork.additional_directories == (extra,)
        assert client.sessions[fork.session_id] is fork
        assert await client.prompt(fork.session_id, text("in the fork")) == "end_turn"
        listed = {s.session_id: s for s in await list_all(client)}
        assert listed[fork.session_id].additional_directories == [str(extra)]
        assert listed[fork.session_id].title == "Fork of hello fork"
        assert session_matches(listed[fork.session_id], cwd=project, additional_directories=[extra])
        assert {s.session_id for s in await list_all(client, additional_directories=[extra])} == {
            fork.session_id
        }

        await client.close_session(fork.session_id)
        assert fork.closed
        assert fork.session_id not in client.sessions
        with pytest.raises(KeyError):
            await client.prompt(fork.session_id, text("closed"))
        reopened = await client.resume_session(fork.session_id, project, [extra])
        assert await client.prompt(reopened.session_id, text("back")) == "end_turn"

        await client.delete_session(original.session_id)
        assert original.closed
        assert original.session_id not in client.sessions
        remaining = {s.session_id for s in await list_all(client)}
        assert remaining == {fork.session_id}
        await client.delete_session(original.session_id)  # idempotent
        assert {s.session_id for s in await list_all(client)} == remaining

        with pytest.raises(RpcError) as caught:
            await client.load_session("demo-no-such-session", project)
        assert caught.value.code == ErrorCode.RESOURCE_NOT_FOUND
        assert "demo-no-such-session" not in client.sessions
        with pytest.raises(RpcError) as caught:
            await client.load_session(original.session_id, project)
        assert caught.value.code == -32002


# -- 7. gating --------------------------------------------------------------------------------


async def test_unsupported_calls_send_nothing(
    data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    extra = project.parent / "extra"
    extra.mkdir()
    async with demo_client(data, project, "--capabilities", "list") as client:
        session = await client.new_session(project)
        sid = session.session_id
        before = len(wire.sent)
        calls: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("session/delete", lambda: client.delete_session(sid)),
            ("session/fork", lambda: client.fork_session(sid, project)),
            ("session/close", lambda: client.close_session(sid)),
            ("session/load", lambda: client.load_session(sid, project)),
            ("session/resume", lambda: client.resume_session(sid, project)),
            ("session/resume", lambda: client.reattach(sid, project, [], replay=True)),
            ("session/load", lambda: client.reattach(sid, project, [], replay=False)),
        ]
        for method, call in calls:
            with pytest.raises(Unsupported, match=method):
                await call()
        with pytest.raises(Unsupported, match="additional workspace roots"):
            await client.new_session(project, [extra])
        image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
        entries = len(session.transcript.entries)
        with pytest.raises(Unsupported, match="image"):
            await client.prompt(sid, [TextContent(text="look"), image])
        assert len(session.transcript.entries) == entries
        assert session.transcript.state == "idle"
        assert wire.sent[before:] == []
        assert client.sessions == {sid: session}

        await client.list_sessions(additional_directories=[extra])
        (params,) = wire.sent_params("session/list")
        assert "additionalDirectories" not in params

    sent = set(wire.sent_methods())
    assert not sent & {"session/delete", "session/fork", "session/close", "session/load"}
    assert "session/resume" not in sent
    assert "session/prompt" not in sent
    assert wire.sent_methods().count("session/new") == 1


async def test_fork_and_list_send_extra_roots_when_advertised(
    data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    extra = project.parent / "extra"
    extra.mkdir()
    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        await client.list_sessions(additional_directories=[extra])
        await client.resume_session(session.session_id, project)
    assert "additionalDirectories" not in wire.sent_params("session/new")[0]
    assert wire.sent_params("session/list")[0]["additionalDirectories"] == [str(extra)]
    # Reattaching states the complete list of roots, also when it is empty.
    assert wire.sent_params("session/resume")[0]["additionalDirectories"] == []


# -- 8. errors --------------------------------------------------------------------------------


async def test_a_missing_command_is_agent_not_found(tmp_path: Path, project: Path) -> None:
    missing = tmp_path / "no-such-agent"
    spec = LaunchSpec(command=AgentCommand([str(missing)], cwd=project), cwd=project)
    with pytest.raises(AgentNotFound) as caught:
        async with connect(spec, init_timeout=WAIT):
            raise AssertionError("connected to nothing")
    assert str(missing) in str(caught.value)


async def test_an_agent_that_never_initializes_times_out(data: Path, project: Path) -> None:
    with pytest.raises(InitializeTimeout) as caught:
        async with demo_client(data, project, "--fault", "hang-initialize", init_timeout=1):
            raise AssertionError("initialized")
    assert caught.value.seconds == 1
    assert any("hang-initialize" in line for line in caught.value.stderr_tail)


@pytest.mark.real_agent  # the exit code and stderr of a process
async def test_a_crash_mid_turn_is_agent_exited(data: Path, project: Path) -> None:
    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        with pytest.raises(AgentExited) as caught:
            await client.prompt(session.session_id, text("crash"))
        assert caught.value.exit_code == 3
        assert any("crashing on purpose" in line for line in caught.value.stderr_tail)
        assert "code 3" in str(caught.value)
        assert "Crashing" in agent_text(session.transcript)
        assert session.transcript.state == "idle"
        with pytest.raises(AgentExited):
            await client.new_session(project)


@pytest.mark.real_agent  # a 20 MB line through a real pipe
async def test_malformed_line_is_skipped_and_huge_message_arrives(
    data: Path, project: Path
) -> None:
    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("malformed")) == "end_turn"
        assert client.connection.skipped_lines == 1
        assert "a client should skip it" in agent_text(session.transcript)

        assert await client.prompt(session.session_id, text("huge")) == "end_turn"
        huge = max(messages(session.transcript, "agent"), key=lambda m: len(m.text))
        assert len(huge.text) == 20 * 1024 * 1024
        assert huge.text.startswith("This is a huge reply line")
        assert huge.text.count("\n") == len(huge.text) // 59


FAKE_AGENT = """
import json, sys
request = json.loads(sys.stdin.readline())
answer = {"jsonrpc": "2.0", "id": request["id"], "result": json.loads(sys.argv[1])}
sys.stdout.write(json.dumps(answer) + "\\n")
sys.stdout.flush()
sys.stdin.read()
"""


@pytest.mark.parametrize(
    ("result", "error"),
    [
        ({"protocolVersion": 99, "agentCapabilities": {}}, ProtocolMismatch),
        ({"protocolVersion": True}, ProtocolMismatch),
        ("garbage", MalformedResponse),
        ([1, 2, 3], MalformedResponse),
        ({"agentCapabilities": {"loadSession": True}}, MalformedResponse),
    ],
)
async def test_a_bad_initialize_answer_is_refused(
    tmp_path: Path, project: Path, result: object, error: type[Exception]
) -> None:
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT, encoding="utf-8")
    argv = [sys.executable, str(script), json.dumps(result)]
    spec = LaunchSpec(command=AgentCommand(argv, cwd=project), cwd=project)
    with pytest.raises(error) as caught:
        async with connect(spec, init_timeout=WAIT):
            raise AssertionError("initialized")
    if isinstance(caught.value, ProtocolMismatch):
        assert caught.value.offered == 1
        assert caught.value.answered == result["protocolVersion"]  # type: ignore[index]


# -- 9. authentication ------------------------------------------------------------------------


async def test_authentication_unlocks_the_session_methods(data: Path, project: Path) -> None:
    async with demo_client(data, project, "--require-auth") as client:
        assert client.capabilities.auth_methods == (
            AuthMethodInfo("demo-login", "Demo login", "Pretend to sign in; always succeeds"),
            # offered because acp-tui advertises clientCapabilities.auth.terminal
            AuthMethodInfo(
                "demo-terminal-login",
                "Log in from the terminal",
                "Runs the demo agent's interactive login (--login)",
                terminal=True,
                args=("--login",),
                env=(("ACP_TUI_DEMO_LOGIN", "1"),),
            ),
        )
        with pytest.raises(RpcError) as caught:
            await client.new_session(project)
        assert caught.value.is_auth_required
        assert client.sessions == {}
        with pytest.raises(RpcError) as caught:
            await client.authenticate("wrong-method")
        assert caught.value.code == ErrorCode.INVALID_PARAMS

        await client.authenticate("demo-login")
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("hello")) == "end_turn"


async def test_session_info_listeners_see_every_update(data: Path, project: Path) -> None:
    async with demo_client(data, project) as client:
        seen: list[tuple[str, str]] = []
        client.subscribe(lambda sid, u: seen.append((sid, u.session_update)))
        session = await client.new_session(project)
        await wait_until(lambda: bool(session.transcript.commands), session.transcript)
        await client.prompt(session.session_id, text("usage"))
        kinds = [kind for sid, kind in seen if sid == session.session_id]
        assert kinds[0] == "available_commands_update"
        assert {"user_message_chunk", "session_info_update", "usage_update"} <= set(kinds)


async def test_set_mode_and_config_options_update_the_transcript(data: Path, project: Path) -> None:
    async with demo_client(data, project) as client:
        session = await client.new_session(project)
        sid = session.session_id
        await client.set_mode(sid, "code")
        assert session.transcript.modes is not None
        assert session.transcript.modes.current_mode_id == "code"
        await client.set_config_option(sid, "model", "demo-smart")
        await client.set_config_option(sid, "verbose", True)
        values = {o.id: o.current_value for o in session.transcript.config_options}
        smart = {"model": "demo-smart", "effort": "low", "reasoning": "brief"}  # + its picker
        assert values == {"mode": "code", **smart, "verbose": True}
        await client.prompt(sid, text("hello"))
        assert "Verbose mode" in "".join(m.text for m in messages(session.transcript, "thought"))
        with pytest.raises(RpcError) as caught:
            await client.set_mode(sid, "no-such-mode")
        assert caught.value.code == ErrorCode.INVALID_PARAMS
        assert session.transcript.modes.current_mode_id == "code"


async def test_updates_sent_right_after_the_reply_are_kept(data: Path, project: Path) -> None:
    """The agent may send updates (commands) for a new session before the awaiting call has
    registered it: they are kept and applied when the session is adopted."""
    async with demo_client(data, project) as client:
        update = {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "early", "description": "sent before adoption"}],
        }
        await client._on_notification("session/update", {"sessionId": "s-early", "update": update})
        session = LiveSession("s-early", project)
        client._adopt(session, None, None)
        assert [c.name for c in session.transcript.commands] == ["early"]
        assert client.early_updates == {}
