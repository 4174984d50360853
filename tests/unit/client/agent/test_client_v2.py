"""AgentClient on ACP v2 (draft) against the demo agent started with ``--protocol 2``, side by side
with v1: negotiation, the capability view, the v2 turn (accepted, then ``state_update`` to idle),
permission, cancel, resume with and without replay, close/delete/fork and login."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.agent.agent_client import AgentClient, connect
from acp_tui.client.agent.capabilities import AuthMethodInfo, Capabilities, EnvVarSpec
from acp_tui.client.agent.dialects import PermissionRequestView
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.wire import MalformedResponse
from acp_tui.client.errors import AgentExited, ProtocolMismatch, Unsupported
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.changes import ChangesContent
from acp_tui.client.session.entries import (
    Change,
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
)
from acp_tui.client.session.live_session import LiveSession, PermissionHandler
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.client_methods import (
    RequestPermissionOutcome,
    RequestPermissionRequest,
    SelectedPermissionOutcome,
)
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError
from acp_tui.protocol.tools import DiffToolCallContent
from acp_tui.protocol.v2.initialize import InitializeResponse
from tests import in_process
from tests.unit.client.agent.agent_helpers import (
    WAIT,
    agent_text,
    allow_first,
    demo_spec,
    make_project,
    messages,
    of_type,
    record_wire,
    tool_calls,
    wait_until,
)

PROTOCOLS = pytest.mark.parametrize("version", [1, 2], ids=["v1", "v2"])


@asynccontextmanager
async def demo(
    version: int,
    data: Path,
    cwd: Path,
    *flags: str,
    permission_handler: PermissionHandler = allow_first,
) -> AsyncIterator[AgentClient]:
    """A client offering ``version`` to the demo agent (started with ``--protocol 2`` for v2)."""
    extra = ("--protocol", "2") if version == 2 else ()
    spec = replace(demo_spec(data, cwd, *flags, *extra), protocol_version=version)
    async with in_process.current(
        spec, permission_handler=permission_handler, init_timeout=WAIT
    ) as client:
        yield client


def demo_v2(
    data: Path, cwd: Path, *flags: str, permission_handler: PermissionHandler = allow_first
) -> Any:
    return demo(2, data, cwd, *flags, permission_handler=permission_handler)


def text(prompt: str) -> list[TextContent]:
    return [TextContent(text=prompt)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "demo-data"


# -- 1. negotiation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offered", "flags", "speaks"),
    [
        (1, (), 1),
        (2, ("--protocol", "2"), 2),
        (2, (), 1),  # the agent answers 1: go on in v1, and say so
        (1, ("--protocol", "2"), 1),
    ],
    ids=["v1", "v2", "v2-offered-v1-answered", "v1-offered-to-a-v2-agent"],
)
async def test_negotiation(
    data: Path,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    offered: int,
    flags: tuple[str, ...],
    speaks: int,
) -> None:
    wire = record_wire(monkeypatch)
    spec = replace(demo_spec(data, project, *flags), protocol_version=offered)
    async with in_process.current(
        spec, permission_handler=allow_first, init_timeout=WAIT
    ) as client:
        assert client.capabilities.protocol_version == speaks
        assert client.dialect.version == speaks
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("hello")) == "end_turn"
        assert "> hello" in agent_text(session.transcript)
    (params,) = wire.sent_params("initialize")
    assert params["protocolVersion"] == offered
    assert ("info" in params) == (offered == 2)
    assert ("clientInfo" in params) == (offered == 1)


FAKE_AGENT = """
import json, sys
request = json.loads(sys.stdin.readline())
answer = {"jsonrpc": "2.0", "id": request["id"], "result": json.loads(sys.argv[1])}
sys.stdout.write(json.dumps(answer) + "\\n")
sys.stdout.flush()
sys.stdin.read()
"""

V2_INFO = {"name": "fake", "version": "1"}


@pytest.mark.parametrize(
    ("offered", "result", "error"),
    [
        (2, {"protocolVersion": 99, "info": V2_INFO}, ProtocolMismatch),
        (1, {"protocolVersion": 2, "info": V2_INFO}, ProtocolMismatch),  # v2 is opt-in
        (2, {"protocolVersion": 0}, ProtocolMismatch),
        (2, {"protocolVersion": 2}, MalformedResponse),  # info is required in v2
        (2, {"protocolVersion": 2, "info": {"name": "no version"}}, MalformedResponse),
    ],
)
async def test_a_bad_v2_answer_is_refused(
    tmp_path: Path, project: Path, offered: int, result: dict[str, Any], error: type[Exception]
) -> None:
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT, encoding="utf-8")
    argv = [sys.executable, str(script), json.dumps(result)]
    spec = LaunchSpec(
        command=AgentCommand(argv, cwd=project), cwd=project, protocol_version=offered
    )
    with pytest.raises(error) as caught:
        async with connect(spec, init_timeout=WAIT):
            raise AssertionError("initialized")
    if isinstance(caught.value, ProtocolMismatch):
        assert caught.value.offered == offered
        assert caught.value.answered == result["protocolVersion"]
        assert str(result["protocolVersion"]) in str(caught.value)


# -- 2. the capability view -------------------------------------------------------------------


def v2_caps(capabilities: dict[str, Any], **extra: Any) -> Capabilities:
    wire = {"protocolVersion": 2, "info": V2_INFO, "capabilities": capabilities, **extra}
    return Capabilities.from_v2(InitializeResponse.from_wire(wire))


def test_v2_capabilities_come_from_the_session_object_and_its_markers() -> None:
    none = v2_caps({})
    assert (none.can_list, none.can_resume, none.can_close, none.can_reattach) == (False,) * 4
    assert none.why_not("list") is not None

    baseline = v2_caps({"session": {}})
    assert (baseline.can_list, baseline.can_resume, baseline.can_close) == (True, True, True)
    assert baseline.can_reattach
    assert not baseline.can_load  # no session/load in v2: a replay is resume + replayFrom
    assert baseline.can_replay
    assert not none.can_replay
    assert (baseline.can_delete, baseline.can_fork, baseline.additional_directories) == (
        False,
        False,
        False,
    )
    assert baseline.prompt_content_kinds == {"text", "resource_link"}
    assert not baseline.can_logout

    full = v2_caps(
        {
            "session": {
                "prompt": {"image": {}, "audio": {}, "embeddedContext": {}},
                "mcp": {"stdio": {}, "http": {}},
                "delete": {},
                "additionalDirectories": {},
                "fork": {},
            }
        },
        authMethods=[
            {"methodId": "a", "type": "agent", "name": "A"},
            {
                "methodId": "t",
                "type": "terminal",
                "name": "T",
                "args": ["--login"],
                "env": [{"name": "K", "value": "v"}],
            },
            {"methodId": "x", "type": "_sso", "name": "X"},
            {"methodId": "k", "type": "env_var", "name": "Key", "vars": [{"name": "KEY"}]},
        ],
    )
    assert (full.can_delete, full.can_fork, full.additional_directories) == (True, True, True)
    assert full.prompt_content_kinds == {"text", "resource_link", "image", "audio", "resource"}
    assert full.mcp_http
    assert full.can_logout
    assert full.auth_methods == (
        AuthMethodInfo("a", "A"),
        AuthMethodInfo("t", "T", terminal=True, args=("--login",), env=(("K", "v"),)),
        # a type this client does not know is listed (so the user sees it) but never run
        AuthMethodInfo("x", "X", unknown_type="_sso"),
        AuthMethodInfo("k", "Key", env_vars=(EnvVarSpec("KEY"),), env_var=True),
    )
    assert not full.auth_methods[2].usable
    assert full.auth_methods[3].kind == "env_var"
    # null markers mean unsupported, like omitted ones
    nulls = v2_caps({"session": {"delete": None, "prompt": {"image": None}}})
    assert not nulls.can_delete
    assert not nulls.prompt_image


async def test_v2_demo_advertises_its_markers(data: Path, project: Path) -> None:
    async with demo_v2(data, project) as client:
        caps = client.capabilities
        assert caps.protocol_version == 2
        assert (caps.can_list, caps.can_resume, caps.can_close) == (True, True, True)
        assert (caps.can_delete, caps.can_fork, caps.additional_directories) == (True, True, True)
        assert not caps.can_load
        assert caps.prompt_content_kinds == {"text", "resource_link", "resource"}
        assert caps.display_name == "acp-tui demo agent"
    async with demo_v2(data, project, "--capabilities", "") as client:
        caps = client.capabilities
        assert (caps.can_list, caps.can_resume, caps.can_close) == (True, True, True)
        assert (caps.can_delete, caps.can_fork, caps.additional_directories) == (False,) * 3


# -- 3. the turn ------------------------------------------------------------------------------


def shape(transcript: Transcript) -> list[tuple[Any, ...]]:
    """What a user sees, protocol-neutral: entry kinds, roles, texts, tool calls and plans."""
    found: list[tuple[Any, ...]] = []
    for entry in transcript.entries:
        if isinstance(entry, MessageEntry):
            found.append(("message", entry.role, entry.text))
        elif isinstance(entry, ToolCallEntry):
            paths = []
            for item in entry.content:
                if isinstance(item, DiffToolCallContent):
                    paths.append(Path(item.path).name)
                elif isinstance(item, ChangesContent):
                    paths.extend(Path(c.path).name for c in item.changes)
            found.append(("tool", entry.title, entry.kind, entry.status, paths))
        elif isinstance(entry, PlanEntryBlock):
            found.append(("plan", [(e.content, e.status) for e in entry.entries]))
        elif isinstance(entry, NoticeEntry):
            found.append(("notice", entry.text))
    return found


async def test_a_v2_turn_shows_what_a_v1_turn_shows(tmp_path: Path, project: Path) -> None:
    prompt = "think plan markdown diff permission"
    shapes = []
    for version in (1, 2):
        async with demo(version, tmp_path / f"data-{version}", project) as client:
            session = await client.new_session(project)
            assert await client.prompt(session.session_id, text(prompt)) == "end_turn"
            transcript = session.transcript
            shapes.append(shape(transcript))
            assert transcript.title == prompt
            assert transcript.usage is not None
            assert [c.name for c in transcript.commands][:1] == ["help"]
            assert {o.id for o in transcript.config_options} == {
                "mode",
                "model",
                "effort",
                "verbose",
            }
    v1, v2 = shapes
    assert v2 == v1
    assert [s[0] for s in v2].count("tool") == 2
    assert (
        "tool",
        "Edit hello.py and add NOTES.md",
        "edit",
        "completed",
        [
            "hello.py",
            "NOTES.md",
        ],
    ) in v2


@PROTOCOLS
async def test_turn_states_go_running_requires_action_running_idle(
    version: int, data: Path, project: Path
) -> None:
    seen: list[str] = []

    async def handler(
        session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        seen.append(session.transcript.state)
        if version == 2:
            assert isinstance(request, PermissionRequestView)
            assert request.title == "Allow the agent to edit config.json?"
            assert request.subject_type == "tool_call"
            assert request.description
        assert request.tool_call.title == "Edit config.json"
        return SelectedPermissionOutcome(option_id="reject-once")

    async with demo(version, data, project, permission_handler=handler) as client:
        session = await client.new_session(project)
        states: list[str] = []

        def on_change(change: Change) -> None:
            if change.kind == "state":
                states.append(change.what)

        session.transcript.subscribe(on_change)
        assert await client.prompt(session.session_id, text("permission")) == "end_turn"
        assert states == ["running", "requires_action", "running", "idle"]
        assert seen == ["requires_action"]
        assert session.transcript.stop_reason == "end_turn"
        assert tool_calls(session.transcript)[-1].status == "failed"
        assert "You chose **Reject**" in agent_text(session.transcript)


@PROTOCOLS
async def test_cancel_ends_the_turn_cancelled(version: int, data: Path, project: Path) -> None:
    async with demo(version, data, project) as client:
        session = await client.new_session(project)
        stops: list[str] = []

        async def run() -> None:
            stops.append(await client.prompt(session.session_id, text("hang")))

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                await wait_until(
                    lambda: "hang until you cancel" in agent_text(session.transcript),
                    session.transcript,
                )
                assert session.transcript.state == "running"
                await client.cancel(session.session_id)
        assert stops == ["cancelled"]
        assert session.transcript.state == "idle"
        notice = session.transcript.entries[-1]
        assert isinstance(notice, NoticeEntry)
        assert notice.text == "Cancelled."
        # The session takes the next prompt.
        assert await client.prompt(session.session_id, text("hello")) == "end_turn"


@PROTOCOLS
@pytest.mark.real_agent  # the exit code of a process
async def test_a_crash_mid_turn_is_agent_exited(version: int, data: Path, project: Path) -> None:
    async with demo(version, data, project) as client:
        session = await client.new_session(project)
        with pytest.raises(AgentExited) as caught:
            await client.prompt(session.session_id, text("crash"))
        assert caught.value.exit_code == 3
        assert session.transcript.state == "idle"
        assert client.turns == {}


# -- 4. lifecycle -----------------------------------------------------------------------------


@PROTOCOLS
async def test_reattach_with_and_without_replay(
    version: int, data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with demo(version, data, project) as client:
        ids = []
        for n in (1, 2):
            session = await client.new_session(project)
            await client.prompt(session.session_id, text(f"hello {n}"))
            ids.append(session.session_id)
    wire = record_wire(monkeypatch)
    async with demo(version, data, project) as client:
        listed = await client.list_sessions(cwd=project)
        assert {s.session_id for s in listed.sessions} == set(ids)
        assert {s.title for s in listed.sessions} == {"hello 1", "hello 2"}

        replayed, how = await client.reattach(ids[0], project, [], replay=True)
        assert how == "load"
        assert [m.text for m in messages(replayed.transcript, "user")] == ["hello 1"]
        assert "> hello 1" in agent_text(replayed.transcript)
        assert replayed.transcript.title == "hello 1"
        assert {o.id for o in replayed.transcript.config_options} >= {"mode", "model"}

        quiet, how = await client.reattach(ids[1], project, [], replay=False)
        assert how == "resume"
        assert quiet.transcript.entries == []
        assert await client.prompt(ids[1], text("hello again")) == "end_turn"
        assert [m.text for m in messages(quiet.transcript, "user")] == ["hello again"]

        again = await client.load_session(ids[1], project)
        assert [m.text for m in messages(again.transcript, "user")] == ["hello 2", "hello again"]
    methods = wire.sent_methods()
    if version == 2:
        assert "session/load" not in methods
        resumes = wire.sent_params("session/resume")
        assert [r.get("replayFrom") for r in resumes] == [
            {"type": "start"},
            None,
            {"type": "start"},
        ]
        assert "replayFrom" not in resumes[1]
    else:
        assert methods.count("session/load") == 2
        assert methods.count("session/resume") == 1


@PROTOCOLS
async def test_close_delete_and_fork(version: int, data: Path, project: Path) -> None:
    extra = project.parent / "shared"
    extra.mkdir()
    async with demo(version, data, project) as client:
        original = await client.new_session(project)
        await client.prompt(original.session_id, text("hello fork"))
        fork = await client.fork_session(original.session_id, project, [extra])
        assert fork.session_id != original.session_id
        assert fork.additional_directories == (extra,)
        assert await client.prompt(fork.session_id, text("in the fork")) == "end_turn"
        listed = {s.session_id: s for s in (await client.list_sessions()).sessions}
        assert listed[fork.session_id].title == "Fork of hello fork"

        await client.close_session(fork.session_id)
        assert fork.closed
        assert fork.session_id not in client.sessions
        reopened = await client.resume_session(fork.session_id, project, [extra])
        assert await client.prompt(reopened.session_id, text("back")) == "end_turn"

        await client.delete_session(original.session_id)
        assert original.closed
        remaining = {s.session_id for s in (await client.list_sessions()).sessions}
        assert remaining == {fork.session_id}
        with pytest.raises(RpcError) as caught:
            await client.reattach(original.session_id, project, [], replay=True)
        assert caught.value.code == ErrorCode.RESOURCE_NOT_FOUND


async def test_v2_gating_sends_nothing_unsupported(
    data: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    async with demo_v2(data, project, "--capabilities", "") as client:
        session = await client.new_session(project)
        sid = session.session_id
        before = len(wire.sent)
        with pytest.raises(Unsupported, match="session/delete"):
            await client.delete_session(sid)
        with pytest.raises(Unsupported, match="session/fork"):
            await client.fork_session(sid, project)
        with pytest.raises(Unsupported, match="modes"):
            await client.set_mode(sid, "code")
        with pytest.raises(Unsupported, match="logout"):
            await client.logout()
        assert wire.sent[before:] == []
        # The baseline needs no marker.
        await client.list_sessions()
        await client.close_session(sid)


@PROTOCOLS
async def test_login_unlocks_the_session_methods(version: int, data: Path, project: Path) -> None:
    async with demo(version, data, project, "--require-auth") as client:
        methods = client.capabilities.auth_methods
        assert [m.id for m in methods] == ["demo-login", "demo-terminal-login"]
        assert methods[1].env == (("ACP_TUI_DEMO_LOGIN", "1"),)
        assert client.capabilities.can_logout  # auth.logout (v1), authMethods (v2)
        with pytest.raises(RpcError) as caught:
            await client.new_session(project)
        assert caught.value.is_auth_required
        with pytest.raises(RpcError) as caught:
            await client.authenticate("wrong-method")
        assert caught.value.code == ErrorCode.INVALID_PARAMS
        await client.authenticate("demo-login")
        session = await client.new_session(project)
        assert await client.prompt(session.session_id, text("hello")) == "end_turn"


@PROTOCOLS
async def test_config_options(version: int, data: Path, project: Path) -> None:
    async with demo(version, data, project) as client:
        session = await client.new_session(project)
        sid = session.session_id
        await client.set_config_option(sid, "mode", "code")
        await client.set_config_option(sid, "model", "demo-smart")
        await client.set_config_option(sid, "verbose", True)
        values = {o.id: o.current_value for o in session.transcript.config_options}
        smart = {"model": "demo-smart", "effort": "low", "reasoning": "brief"}  # + its picker
        assert values == {"mode": "code", **smart, "verbose": True}
        await client.prompt(sid, text("hello"))
        thoughts = "".join(m.text for m in messages(session.transcript, "thought"))
        assert "Verbose mode" in thoughts
        with pytest.raises(RpcError) as caught:
            await client.set_config_option(sid, "model", "no-such-model")
        assert caught.value.code == ErrorCode.INVALID_PARAMS
        assert (session.transcript.modes is None) == (version == 2)


async def test_v2_plan_and_tools_are_upserted(data: Path, project: Path) -> None:
    async with demo_v2(data, project) as client:
        session = await client.new_session(project)
        await client.prompt(session.session_id, text("plan diff"))
        (plan,) = of_type(session.transcript, PlanEntryBlock)
        assert [e.status for e in plan.entries] == ["completed"] * 3
        (call,) = tool_calls(session.transcript)
        assert all(isinstance(item, ChangesContent) for item in call.content)
        changes = [
            c for item in call.content if isinstance(item, ChangesContent) for c in item.changes
        ]
        assert [(c.operation, Path(c.path).name) for c in changes] == [
            ("modify", "hello.py"),
            ("add", "NOTES.md"),
        ]
        patch = call.content[0]
        assert isinstance(patch, ChangesContent)
        assert patch.patch is not None
        assert patch.patch.format == "git_patch"
        assert '+def greet(name: str = "world") -> None:' in patch.patch.text
