"""The demo agent's ACP v2 dialect (``--protocol 2``) over raw JSON-RPC: negotiation, the v2
method table, the accepted-then-streamed turn, resume with ``replayFrom`` and v2 permissions."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.demo_agent.options import AgentOptions
from acp_tui.demo_agent.server import DemoAgent
from acp_tui.demo_agent.stdio import StdoutStream
from acp_tui.demo_agent.store import SessionStore
from acp_tui.demo_agent.v2 import V2Dialect
from tests.unit.client.agent.test_client_v2_wire_schema import validate
from tests.unit.test_demo_agent import TIMEOUT, Client, agent, expect_error, kind

V2_INIT = {
    "protocolVersion": 2,
    "info": {"name": "test", "version": "0"},
    "capabilities": {"auth": {"terminal": {}}},
}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "demo-data"


async def v2(client: Client) -> dict[str, Any]:
    client.init = await client.call("initialize", V2_INIT)
    return client.init


def prompt_params(session_id: str, words: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": words}]}


async def turn(client: Client, session_id: str, words: str) -> list[dict[str, Any]]:
    """Send a prompt (answered ``{}``) and wait for its idle state; returns its updates."""
    start = len(client.of(session_id))
    assert await client.call("session/prompt", prompt_params(session_id, words)) == {}

    def idle() -> bool:
        return any(
            kind(u) == "state_update" and u["state"] == "idle"
            for u in client.of(session_id)[start:]
        )

    await client.wait_for(idle)
    updates = client.of(session_id)[start:]
    for update in updates:
        validate("schema.json", "SessionUpdate", update, kind(update))
    return updates


async def new(client: Client, cwd: str) -> str:
    result = await client.call("session/new", {"cwd": cwd})
    validate("schema.json", "NewSessionResponse", result, "session/new")
    sid: str = result["sessionId"]
    await client.wait_for(
        lambda: any(kind(u) == "available_commands_update" for u in client.of(sid))
    )
    return sid


async def test_it_answers_1_without_the_flag_and_to_a_v1_offer(data_dir: Path) -> None:
    async with agent(data_dir, initialize=False) as client:
        assert (await v2(client))["protocolVersion"] == 1
    v1_init = {"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": V2_INIT["info"]}
    async with agent(data_dir, "--protocol", "2", initialize=False) as client:
        answer = await client.call("initialize", v1_init)
        assert answer["protocolVersion"] == 1
        assert "agentCapabilities" in answer


async def test_serving_v2_needs_the_v2_dialect(data_dir: Path) -> None:
    """The server does not import its v2 dialect (which builds on it): it must be given one."""
    options = AgentOptions(data_dir=data_dir, protocol=2)
    store = SessionStore(data_dir)
    read_end, write_end = os.pipe()
    try:
        output = StdoutStream(write_end)
        with pytest.raises(ValueError, match="v2 dialect"):
            DemoAgent(options, store, output)
        assert DemoAgent(options, store, output, v2=V2Dialect).v2 is V2Dialect
    finally:
        os.close(read_end)
        os.close(write_end)


async def test_v2_initialize_and_method_table(data_dir: Path, tmp_path: Path) -> None:
    async with agent(data_dir, "--protocol", "2", "--capabilities", "fork", initialize=False) as c:
        init = await v2(c)
        validate("schema.json", "InitializeResponse", init, "initialize")
        assert init["protocolVersion"] == 2
        assert init["info"]["name"] == "acp-tui-demo"
        assert init["capabilities"]["session"]["fork"] == {}
        assert "delete" not in init["capabilities"]["session"]
        assert "authMethods" not in init
        sid = await new(c, str(tmp_path))
        for method in ("session/load", "authenticate", "session/set_mode", "session/delete"):
            await expect_error(c, -32601, method, {"sessionId": sid, "cwd": str(tmp_path)})
        listed = await c.call("session/list", {})
        validate("schema.json", "ListSessionsResponse", listed, "session/list")
        assert await c.call("session/close", {"sessionId": sid}) == {}


async def test_a_turn_is_accepted_then_streamed_to_idle(data_dir: Path, tmp_path: Path) -> None:
    async with agent(data_dir, "--protocol", "2", initialize=False) as client:
        await v2(client)
        sid = await new(client, str(tmp_path))
        updates = await turn(client, sid, "think plan diff read write terminal")
        kinds = [kind(u) for u in updates]
        assert kinds[0] == "user_message"
        assert updates[0]["content"] == [
            {"type": "text", "text": "think plan diff read write terminal"}
        ]
        assert updates[1] == {"sessionUpdate": "state_update", "state": "running"}
        assert updates[-1] == {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "end_turn",
        }
        assert "plan" not in kinds
        assert "tool_call" not in kinds
        assert "user_message_chunk" not in kinds
        plans = [u["plan"] for u in updates if kind(u) == "plan_update"]
        assert {p["planId"] for p in plans} == {"plan"}
        assert all(p["type"] == "items" for p in plans)
        chunks = [u for u in updates if kind(u).endswith("_chunk") and "content" in u]
        assert all(u["messageId"] for u in chunks)
        diffs = [
            item
            for u in updates
            if kind(u) == "tool_call_update"
            for item in u.get("content") or []
            if item["type"] == "diff"
        ]
        assert diffs
        assert all("changes" in d and d["patch"]["format"] == "git_patch" for d in diffs)
        # No fs/* or terminal/* in v2: the agent says why instead of asking, and runs the
        # command itself, shown as an agent-owned terminal.
        assert client.requests == []
        text = "".join(u["content"]["text"] for u in chunks if kind(u) == "agent_message_chunk")
        assert "did not advertise `fs.readTextFile`" in text
        terminals = [u for u in updates if kind(u) in ("terminal_update", "terminal_output_chunk")]
        (terminal_id,) = {u["terminalId"] for u in terminals}
        output = b"".join(
            base64.b64decode(u["data"]) for u in terminals if kind(u) == "terminal_output_chunk"
        )
        assert output == b"hello from the demo agent\na second line\n"
        assert terminals[0]["command"].startswith("printf")
        assert terminals[-1]["exitStatus"] == {"exitCode": 0, "signal": None}
        shown = [
            item
            for u in updates
            if kind(u) == "tool_call_update"
            for item in u.get("content") or []
            if item["type"] == "terminal"
        ]
        assert shown == [{"type": "terminal", "terminalId": terminal_id}]


@pytest.mark.parametrize(
    ("answer", "verdict", "stop"),
    [
        ("allow-once", "so I turned on debug", "end_turn"),
        ("weird", "I did not understand the permission answer", "end_turn"),
        (None, None, "cancelled"),
    ],
)
async def test_permission_asks_in_v2_shape_with_requires_action(
    data_dir: Path, tmp_path: Path, answer: str | None, verdict: str | None, stop: str
) -> None:
    async with agent(data_dir, "--protocol", "2", initialize=False) as client:
        await v2(client)
        client.permission = answer
        sid = await new(client, str(tmp_path))
        updates = await turn(client, sid, "permission")
        ((method, params),) = client.requests
        assert method == "session/request_permission"
        validate("schema.json", "RequestPermissionRequest", params, method)
        assert params["title"] == "Allow the agent to edit config.json?"
        assert params["subject"]["type"] == "tool_call"
        assert params["subject"]["toolCall"]["content"][0]["type"] == "diff"
        states = [u["state"] for u in updates if kind(u) == "state_update"]
        assert states == ["running", "requires_action", "running", "idle"]
        assert updates[-1]["stopReason"] == stop
        if verdict is not None:
            text = "".join(
                u["content"]["text"] for u in updates if kind(u) == "agent_message_chunk"
            )
            assert verdict in text


async def test_resume_replays_only_from_a_start_cursor(data_dir: Path, tmp_path: Path) -> None:
    cwd = str(tmp_path)
    async with agent(data_dir, "--protocol", "2", initialize=False) as client:
        await v2(client)
        sid = await new(client, cwd)
        await turn(client, sid, "plan")
    async with agent(data_dir, "--protocol", "2", initialize=False) as client:
        await v2(client)
        plain = await client.call("session/resume", {"sessionId": sid, "cwd": cwd})
        validate("schema.json", "ResumeSessionResponse", plain, "session/resume")
        assert "modes" not in plain
        assert {o["configId"] for o in plain["configOptions"]} == {
            "mode",
            "model",
            "effort",
            "verbose",
        }
        assert [kind(u) for u in client.of(sid)] == ["available_commands_update"]
        await client.call("session/resume", {"sessionId": sid, "cwd": cwd, "replayFrom": None})
        assert len(client.of(sid)) == 2
        # The replay arrives before the answer.
        replay = {"sessionId": sid, "cwd": cwd, "replayFrom": {"type": "start"}}
        await client.call("session/resume", replay)
        replayed = [kind(u) for u in client.of(sid)[2:]]
        assert replayed[0] == "user_message"
        assert "plan_update" in replayed
        assert "state_update" not in replayed
        await expect_error(
            client, -32602, "session/resume", {**replay, "replayFrom": {"type": "_message"}}
        )


async def test_cancel_is_confirmed_by_idle_cancelled(data_dir: Path, tmp_path: Path) -> None:
    async with agent(data_dir, "--protocol", "2", initialize=False) as client:
        await v2(client)
        sid = await new(client, str(tmp_path))
        assert await client.call("session/prompt", prompt_params(sid, "hang")) == {}
        await client.wait_for(lambda: any("hang" in str(u) for u in client.of(sid)[2:]))
        await expect_error(client, -32602, "session/prompt", prompt_params(sid, "again"))
        await client.conn.notify("session/cancel", {"sessionId": sid})
        with anyio.fail_after(TIMEOUT):
            await client.wait_for(lambda: client.of(sid)[-1].get("state") == "idle")
        assert client.of(sid)[-1]["stopReason"] == "cancelled"


async def test_login_config_options_and_logout(data_dir: Path, tmp_path: Path) -> None:
    async with agent(data_dir, "--protocol", "2", "--require-auth", initialize=False) as client:
        init = await v2(client)
        validate("schema.json", "InitializeResponse", init, "initialize")
        assert [(m["methodId"], m["type"]) for m in init["authMethods"]] == [
            ("demo-login", "agent"),
            ("demo-terminal-login", "terminal"),
        ]
        assert init["authMethods"][1]["env"] == [{"name": "ACP_TUI_DEMO_LOGIN", "value": "1"}]
        await expect_error(client, -32000, "session/new", {"cwd": str(tmp_path)})
        await expect_error(client, -32602, "auth/login", {"methodId": "nope"})
        assert await client.call("auth/login", {"methodId": "demo-login"}) == {}
        sid = await new(client, str(tmp_path))
        params = {"sessionId": sid, "configId": "model", "type": "id", "value": "demo-smart"}
        result = await client.call("session/set_config_option", params)
        validate("schema.json", "SetSessionConfigOptionResponse", result, "set_config_option")
        values = {o["configId"]: o["currentValue"] for o in result["configOptions"]}
        smart = {"model": "demo-smart", "effort": "low", "reasoning": "brief"}  # + its picker
        assert values == {"mode": "ask", **smart, "verbose": False}
        assert await client.call("auth/logout", {}) == {}
        await expect_error(client, -32000, "session/list", {})
