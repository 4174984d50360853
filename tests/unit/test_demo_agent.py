"""The demo agent, driven as a real subprocess through a client-side Connection."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.protocol.connection import Connection
from acp_tui.protocol.jsonrpc import ConnectionClosed, ErrorCode, RpcError
from tests.in_process import demo_agent_process

TIMEOUT = 10
FULL_CAPS: dict[str, Any] = {
    "fs": {"readTextFile": True, "writeTextFile": True},
    "terminal": True,
    "session": {"configOptions": {"boolean": {}}},
}
DIRS = {"additionalDirectories": ["/lib/x"]}
ALL_MARKERS = {"list", "resume", "close", "delete", "additionalDirectories", "fork"}


class Client:
    """The test's side of the wire: canned answers to agent requests, collected updates."""

    def __init__(self, proc: anyio.abc.Process) -> None:
        self.proc = proc
        self.conn: Connection
        self.init: dict[str, Any] = {}
        self.updates: list[dict[str, Any]] = []  # session/update params, in arrival order
        self.requests: list[tuple[str, Any]] = []
        self.notified: list[str] = []  # every notification's method
        self.permission: str | None = "allow-once"  # None answers "cancelled"
        self.hold_permission = False  # never answer: the agent must abandon the request
        self.abandoned = anyio.Event()
        self.read_error: str | None = None
        self._changed = anyio.Event()

    def _poke(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def on_notification(self, method: str, params: Any) -> None:
        self.notified.append(method)
        if method == "session/update":
            self.updates.append(params)
            self._poke()

    async def on_request(self, method: str, params: Any) -> Any:
        self.requests.append((method, params))
        self._poke()
        if method == "session/request_permission":
            if self.hold_permission:
                try:
                    await anyio.sleep_forever()
                finally:
                    self.abandoned.set()
            if self.permission is None:
                return {"outcome": {"outcome": "cancelled"}}
            return {"outcome": {"outcome": "selected", "optionId": self.permission}}
        if method == "fs/read_text_file":
            if self.read_error:
                raise RpcError(ErrorCode.INVALID_PARAMS, self.read_error)
            return {"content": "# Demo project\n\nHello.\n"}
        if method == "fs/write_text_file":
            return {}
        if method == "terminal/create":
            return {"terminalId": "term-1"}
        if method == "terminal/wait_for_exit":
            return {"exitCode": 0, "signal": None}
        if method == "terminal/output":
            return {"output": "hello\nsecond\n", "truncated": False}
        if method == "terminal/release":
            return {}
        raise RpcError.method_not_found(method)

    async def wait_for(self, predicate: Callable[[], bool]) -> None:
        with anyio.fail_after(TIMEOUT):
            while not predicate():
                await self._changed.wait()

    def of(self, session_id: str) -> list[dict[str, Any]]:
        """The update objects received for one session."""
        return [u["update"] for u in self.updates if u["sessionId"] == session_id]

    async def call(self, method: str, params: Any = None) -> Any:
        with anyio.fail_after(TIMEOUT):
            return await self.conn.request(method, params)

    async def new(self, cwd: str = "/work/project", **extra: Any) -> str:
        result = await self.call("session/new", {"cwd": cwd, "mcpServers": [], **extra})
        sid: str = result["sessionId"]
        await self.wait_for(
            lambda: any(kind(u) == "available_commands_update" for u in self.of(sid))
        )
        return sid

    async def prompt(self, session_id: str, text: str) -> str:
        prompt = [{"type": "text", "text": text}]
        result = await self.call("session/prompt", {"sessionId": session_id, "prompt": prompt})
        return str(result["stopReason"])

    async def list_all(self, **params: Any) -> list[list[dict[str, Any]]]:
        pages = []
        cursor = None
        while True:
            query = dict(params, **({"cursor": cursor} if cursor else {}))
            result = await self.call("session/list", query)
            pages.append(result["sessions"])
            cursor = result.get("nextCursor")
            if cursor is None:
                return pages


def kind(update: dict[str, Any]) -> str:
    return str(update["sessionUpdate"])


def squeeze(kinds: list[str]) -> list[str]:
    """Collapse runs of the same kind."""
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]


def text_of(updates: list[dict[str, Any]], kind_name: str = "agent_message_chunk") -> str:
    return "".join(u["content"]["text"] for u in updates if kind(u) == kind_name)


@asynccontextmanager
async def agent(
    data_dir: Path, *args: str, caps: dict[str, Any] | None = None, initialize: bool = True
) -> AsyncIterator[Client]:
    """Run the demo agent on ``data_dir`` (in the test's event loop unless the test is marked
    ``real_agent``); stop it (close stdin, then kill) on the way out."""
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(data_dir), *args]
    with (data_dir.parent / "agent-stderr.log").open("ab") as stderr:
        async with demo_agent_process(argv, stderr) as proc:
            client = Client(proc)
            try:
                assert proc.stdout is not None
                assert proc.stdin is not None
                client.conn = Connection(
                    proc.stdout,
                    proc.stdin,
                    on_request=client.on_request,
                    on_notification=client.on_notification,
                    name="demo agent",
                )
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.conn.run)
                    if initialize:
                        client.init = await client.call(
                            "initialize",
                            {
                                "protocolVersion": 1,
                                "clientCapabilities": FULL_CAPS if caps is None else caps,
                                "clientInfo": {"name": "test", "version": "0"},
                            },
                        )
                    yield client
                    tg.cancel_scope.cancel()
            finally:
                with anyio.CancelScope(shield=True):
                    if proc.stdin is not None:
                        with suppress(Exception):
                            await proc.stdin.aclose()
                    with anyio.move_on_after(5):
                        await proc.wait()
                    if proc.returncode is None:
                        proc.kill()
                        await proc.wait()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "demo-data"


async def expect_error(client: Client, code: int, method: str, params: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        await client.call(method, params)
    assert info.value.code == code, info.value
    return info.value


# -- initialize, capabilities, auth -----------------------------------------------------------


async def test_initialize_advertises_everything_by_default(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        init = client.init
        assert init["protocolVersion"] == 1
        assert init["agentInfo"]["name"] == "acp-tui-demo"
        caps = init["agentCapabilities"]
        assert caps["loadSession"] is True
        assert set(caps["sessionCapabilities"]) == ALL_MARKERS
        assert all(v == {} for v in caps["sessionCapabilities"].values())
        assert caps["promptCapabilities"] == {
            "image": False,
            "audio": False,
            "embeddedContext": True,
        }
        assert init["authMethods"] == []
        await expect_error(client, ErrorCode.METHOD_NOT_FOUND, "logout", {})
        await expect_error(client, ErrorCode.METHOD_NOT_FOUND, "no/such_method", {})


async def test_disabled_capabilities_are_neither_advertised_nor_served(data_dir: Path) -> None:
    async with agent(data_dir, "--capabilities", "list") as client:
        caps = client.init["agentCapabilities"]
        assert caps["loadSession"] is False
        assert caps["sessionCapabilities"] == {"list": {}}
        sid = await client.new(additionalDirectories=["/ignored"])  # ignored, not rejected
        base = {"sessionId": sid, "cwd": "/work/project", "mcpServers": []}
        for method in ("session/load", "session/resume", "session/fork"):
            await expect_error(client, ErrorCode.METHOD_NOT_FOUND, method, base)
        for method in ("session/close", "session/delete"):
            await expect_error(client, ErrorCode.METHOD_NOT_FOUND, method, {"sessionId": sid})
        (info,) = (await client.call("session/list", {}))["sessions"]
        assert info["sessionId"] == sid
        assert "additionalDirectories" not in info


async def test_require_auth_gates_session_methods(data_dir: Path) -> None:
    async with agent(data_dir, "--require-auth") as client:
        assert [m["id"] for m in client.init["authMethods"]] == ["demo-login"]
        params = {"cwd": "/work/project", "mcpServers": []}
        await expect_error(client, ErrorCode.AUTH_REQUIRED, "session/new", params)
        await expect_error(client, ErrorCode.AUTH_REQUIRED, "session/list", {})
        await expect_error(client, ErrorCode.INVALID_PARAMS, "authenticate", {"methodId": "nope"})
        assert await client.call("authenticate", {"methodId": "demo-login"}) == {}
        assert (await client.call("session/new", params))["sessionId"].startswith("demo-")


async def test_hang_initialize_never_answers(data_dir: Path) -> None:
    async with agent(data_dir, "--fault", "hang-initialize", initialize=False) as client:
        with anyio.move_on_after(0.5) as scope:
            await client.conn.request("initialize", {"protocolVersion": 1})
        assert scope.cancelled_caught


# -- session/new and the prompt turn --------------------------------------------------------


async def test_new_session_answers_modes_and_config_then_commands(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        result = await client.call("session/new", {"cwd": "/work/project", "mcpServers": []})
        assert result["modes"]["currentModeId"] == "ask"
        assert [m["id"] for m in result["modes"]["availableModes"]] == ["ask", "code"]
        options = {o["id"]: o for o in result["configOptions"]}
        assert options["model"]["category"] == "model"
        assert [v["value"] for v in options["model"]["options"]] == ["demo-fast", "demo-smart"]
        assert options["verbose"]["type"] == "boolean"
        sid = result["sessionId"]
        await client.wait_for(lambda: bool(client.of(sid)))
        (commands,) = client.of(sid)
        assert kind(commands) == "available_commands_update"
        assert any(c.get("input") for c in commands["availableCommands"])


async def test_new_session_validates_params(data_dir: Path) -> None:
    async with agent(data_dir, caps={}) as client:
        bad = ErrorCode.INVALID_PARAMS
        await expect_error(client, bad, "session/new", {"cwd": "relative", "mcpServers": []})
        err = await expect_error(
            client,
            bad,
            "session/new",
            {"cwd": "/p", "mcpServers": [], "additionalDirectories": ["/ok", "not/absolute"]},
        )
        assert "additionalDirectories[1]" in err.message
        params = {"cwd": "/p", "mcpServers": [], "additionalDirectories": [""]}
        await expect_error(client, bad, "session/new", params)
        result = await client.call("session/new", {"cwd": "/p", "mcpServers": []})
        assert "verbose" not in {o["id"] for o in result["configOptions"]}


async def test_prompt_keywords_stream_in_order(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        start = len(client.of(sid))
        text = "think, plan, markdown, a diff, permission, read, write, a terminal and usage"
        assert await client.prompt(sid, text) == "end_turn"
        turn = client.of(sid)[start:]
        assert squeeze([kind(u) for u in turn]) == [
            "user_message_chunk",
            "session_info_update",
            "agent_thought_chunk",
            "plan",
            "agent_message_chunk",
            "plan",
            "agent_message_chunk",  # markdown
            "tool_call",  # diff
            "tool_call_update",
            "agent_message_chunk",
            "tool_call",  # permission
            "tool_call_update",
            "agent_message_chunk",
            "tool_call",  # read
            "tool_call_update",
            "agent_message_chunk",
            "tool_call",  # write
            "tool_call_update",
            "agent_message_chunk",
            "tool_call",  # terminal
            "tool_call_update",
            "agent_message_chunk",
            "usage_update",  # usage keyword
            "plan",
            "agent_message_chunk",
            "usage_update",
        ]
        assert [m for m, _ in client.requests] == [
            "session/request_permission",
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release",
        ]
        chunks = [u for u in turn if kind(u).endswith("_chunk")]
        assert all(u.get("messageId") for u in chunks)
        info = next(u for u in turn if kind(u) == "session_info_update")
        assert info["title"].startswith("think, plan")
        assert info["updatedAt"].endswith("Z")
        plans = [u["entries"] for u in turn if kind(u) == "plan"]
        assert [e["status"] for e in plans[0]] == ["in_progress", "pending", "pending"]
        assert all(e["status"] == "completed" for e in plans[-1])
        reply = text_of(turn)
        assert "```python" in reply
        assert "## " in reply
        assert "Allow once" in reply
        assert "Hello." in reply
        assert "hello\nsecond" in reply
        diffs = [
            c
            for u in turn
            if kind(u) == "tool_call_update"
            for c in u.get("content") or []
            if c["type"] == "diff"
        ]
        assert any(d["oldText"] is None for d in diffs)
        assert any(d["oldText"] for d in diffs)
        assert any(
            c == {"type": "terminal", "terminalId": "term-1"}
            for u in turn
            for c in u.get("content") or []
        )
        read = dict(client.requests)["fs/read_text_file"]
        assert read == {"sessionId": sid, "path": "/work/project/README.md"}
        write = dict(client.requests)["fs/write_text_file"]
        assert write["path"] == "/work/project/demo-output.txt"
        create = dict(client.requests)["terminal/create"]
        assert create["sessionId"] == sid
        assert create["cwd"] == "/work/project"
        permission = dict(client.requests)["session/request_permission"]
        assert {o["kind"] for o in permission["options"]} == {
            "allow_once",
            "allow_always",
            "reject_once",
            "reject_always",
        }
        usage = turn[-1]
        assert usage["used"] > 0
        assert usage["size"] > 0
        assert usage["cost"]["currency"] == "USD"


async def test_prompt_without_keyword_echoes(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        assert await client.prompt(sid, "Hello there") == "end_turn"
        assert "You said:" in text_of(client.of(sid))
        assert "> Hello there" in text_of(client.of(sid))
        assert client.requests == []
        assert await client.prompt(sid, "title My renamed session") == "end_turn"
        titles = [u["title"] for u in client.of(sid) if "title" in u]
        assert titles == ["Hello there", "My renamed session"]
        (info,) = (await client.call("session/list", {}))["sessions"]
        assert info["title"] == "My renamed session"


async def test_client_capabilities_and_errors_are_reported(data_dir: Path) -> None:
    async with agent(data_dir, caps={}) as client:
        sid = await client.new()
        assert await client.prompt(sid, "read write terminal") == "end_turn"
        assert client.requests == []
        assert text_of(client.of(sid)).count("did not advertise") == 3
    async with agent(data_dir) as client:
        client.read_error = "outside the session roots"
        sid = await client.new()
        assert await client.prompt(sid, "read /etc/hostname") == "end_turn"
        assert client.requests[0] == (
            "fs/read_text_file",
            {"sessionId": sid, "path": "/etc/hostname"},
        )
        assert "outside the session roots" in text_of(client.of(sid))


async def test_permission_rejected_and_cancelled_outcomes(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        client.permission = "reject-always"
        assert await client.prompt(sid, "permission") == "end_turn"
        assert "Never allow" in text_of(client.of(sid))
        client.permission = None
        assert await client.prompt(sid, "permission usage") == "cancelled"


@pytest.mark.real_agent  # a 20 MB line through a real pipe
async def test_stream_malformed_and_huge(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        start = len(client.of(sid))
        assert await client.prompt(sid, "stream 50") == "end_turn"
        chunks = [u for u in client.of(sid)[start:] if kind(u) == "agent_message_chunk"]
        assert len(chunks) == 50
        assert len({u["messageId"] for u in chunks}) == 1
        assert await client.prompt(sid, "malformed") == "end_turn"
        assert client.conn.skipped_lines == 1
        start = len(client.of(sid))
        assert await client.prompt(sid, "huge") == "end_turn"
        (big,) = [u for u in client.of(sid)[start:] if kind(u) == "agent_message_chunk"]
        assert len(big["content"]["text"]) == 20 * 1024 * 1024


async def test_set_mode_and_config_options(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        assert await client.call("session/set_mode", {"sessionId": sid, "modeId": "code"}) == {}
        assert client.of(sid)[-1] == {
            "sessionUpdate": "current_mode_update",
            "currentModeId": "code",
        }
        model = {"sessionId": sid, "configId": "model", "value": "demo-smart"}
        options = (await client.call("session/set_config_option", model))["configOptions"]
        current = {o["id"]: o["currentValue"] for o in options}
        # The smart model brings a reasoning picker (a picker that changes the set of pickers).
        assert current == {
            "mode": "code",
            "model": "demo-smart",
            "effort": "low",
            "reasoning": "brief",
            "verbose": False,
        }
        verbose = {"sessionId": sid, "configId": "verbose", "type": "boolean", "value": True}
        options = (await client.call("session/set_config_option", verbose))["configOptions"]
        assert {o["id"]: o["currentValue"] for o in options}["verbose"] is True
        bad = ErrorCode.INVALID_PARAMS
        for wrong in (
            {"configId": "model", "value": "gpt-9"},
            {"configId": "nope", "value": "x"},
            {"configId": "verbose", "value": "yes"},
        ):
            await expect_error(
                client, bad, "session/set_config_option", {"sessionId": sid, **wrong}
            )
        await expect_error(client, bad, "session/set_mode", {"sessionId": sid, "modeId": "yolo"})
        assert await client.prompt(sid, "hi") == "end_turn"
        assert "Verbose mode" in text_of(client.of(sid), "agent_thought_chunk")


# -- cancellation and faults ----------------------------------------------------------------


async def _prompt_then_cancel(
    client: Client, sid: str, text: str, ready: Callable[[], bool]
) -> str:
    result: dict[str, str] = {}

    async def run() -> None:
        result["stop"] = await client.prompt(sid, text)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await client.wait_for(ready)
        await client.conn.notify("session/cancel", {"sessionId": sid})
    return result["stop"]


async def test_cancel_slow_and_hang_turns(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()

        def slow_started() -> bool:
            return "Taking it slowly" in text_of(client.of(sid))

        assert await _prompt_then_cancel(client, sid, "slow", slow_started) == "cancelled"
        assert text_of(client.of(sid)).count("Taking it slowly") < 20

        def hanging() -> bool:
            return "hang until you cancel" in text_of(client.of(sid))

        assert await _prompt_then_cancel(client, sid, "hang", hanging) == "cancelled"
        assert await client.prompt(sid, "still alive?") == "end_turn"


async def test_cancel_abandons_outstanding_permission_request(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        client.hold_permission = True

        def asked() -> bool:
            return any(m == "session/request_permission" for m, _ in client.requests)

        assert await _prompt_then_cancel(client, sid, "permission", asked) == "cancelled"
        with anyio.fail_after(TIMEOUT):
            await client.abandoned.wait()


@pytest.mark.real_agent  # the exit code of a process
async def test_crash_exits_with_code_3_mid_turn(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        with pytest.raises(ConnectionClosed):
            await client.prompt(sid, "crash")
        with anyio.fail_after(TIMEOUT):
            assert await client.proc.wait() == 3
        assert "Crashing" in text_of(client.of(sid))


# -- list -----------------------------------------------------------------------------------


async def test_list_pages_with_opaque_cursors(data_dir: Path) -> None:
    async with agent(data_dir, "--page-size", "2") as client:
        created = [await client.new() for _ in range(5)]
        pages = await client.list_all()
        assert [len(p) for p in pages] == [2, 2, 1]
        ids = [s["sessionId"] for p in pages for s in p]
        assert ids == list(reversed(created))  # newest first, each exactly once
        first = await client.call("session/list", {})
        cursor = first["nextCursor"]
        assert isinstance(cursor, str)
        assert created[-1] not in cursor
        bad = ErrorCode.INVALID_PARAMS
        for wrong in ("garbage!", "eyJ4IjogMX0", 42):
            err = await expect_error(client, bad, "session/list", {"cursor": wrong})
            assert "invalid cursor" in err.message
        params = {"cursor": cursor, "cwd": "/elsewhere"}
        await expect_error(client, bad, "session/list", params)


async def test_list_filters_cwd_and_additional_directories(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        a, b, x, y = "/work/a", "/work/b", "/lib/x", "/lib/y"
        plain = await client.new(a)
        ax = await client.new(a, additionalDirectories=[x])
        axy = await client.new(a, additionalDirectories=[x, y])
        ayx = await client.new(a, additionalDirectories=[y, x])
        bx = await client.new(b, additionalDirectories=[x])

        async def ids(**filters: Any) -> set[str]:
            return {s["sessionId"] for page in await client.list_all(**filters) for s in page}

        assert await ids() == {plain, ax, axy, ayx, bx}
        assert await ids(cwd=a) == {plain, ax, axy, ayx}
        assert await ids(additionalDirectories=[x]) == {ax, bx}
        assert await ids(cwd=a, additionalDirectories=[x]) == {ax}
        assert await ids(additionalDirectories=[x, y]) == {axy}
        assert await ids(additionalDirectories=[]) == {plain}
        sessions = (await client.call("session/list", {"cwd": a}))["sessions"]
        assert {s["sessionId"]: s["additionalDirectories"] for s in sessions} == {
            plain: [],
            ax: [x],
            axy: [x, y],
            ayx: [y, x],
        }
        assert all("title" not in s for s in sessions)  # no prompt yet, no title


# -- load, resume, close, delete, fork ------------------------------------------------------


async def test_load_replays_history_before_answering_and_resume_does_not(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        assert await client.prompt(sid, "plan diff") == "end_turn"
        history = [u for u in client.of(sid) if kind(u) != "available_commands_update"]
        client.updates.clear()
        params = {"sessionId": sid, "cwd": "/work/project", "mcpServers": []}
        loaded = await client.call("session/load", {**params, "additionalDirectories": ["/x"]})
        assert loaded["modes"]["currentModeId"] == "ask"
        assert loaded["configOptions"]
        replay = client.of(sid)  # everything that arrived before the answer
        assert replay[:-1] == history
        assert kind(replay[-1]) == "available_commands_update"
        (info,) = (await client.call("session/list", {}))["sessions"]
        assert info["additionalDirectories"] == ["/x"]
        client.updates.clear()
        resumed = await client.call("session/resume", params)
        assert resumed["modes"]["currentModeId"] == "ask"
        assert [kind(u) for u in client.of(sid)] == ["available_commands_update"]
        (info,) = (await client.call("session/list", {}))["sessions"]
        assert info["additionalDirectories"] == []  # omitted means none, not "restore"


async def test_close_delete_and_unknown_ids(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        assert await client.prompt(sid, "hello") == "end_turn"
        assert await client.call("session/close", {"sessionId": sid}) == {}
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        await expect_error(client, ErrorCode.RESOURCE_NOT_FOUND, "session/prompt", prompt)
        assert (data_dir / "history" / f"{sid}.jsonl").exists()
        for _ in range(2):
            assert await client.call("session/delete", {"sessionId": sid}) == {}
        assert await client.call("session/delete", {"sessionId": "demo-unknown"}) == {}
        assert (await client.call("session/list", {}))["sessions"] == []
        assert not (data_dir / "history" / f"{sid}.jsonl").exists()
        missing = ErrorCode.RESOURCE_NOT_FOUND
        base = {"sessionId": sid, "cwd": "/work/project", "mcpServers": []}
        for method, params in [
            ("session/load", base),
            ("session/resume", base),
            ("session/fork", base),
            ("session/close", {"sessionId": sid}),
            ("session/prompt", prompt),
            ("session/set_mode", {"sessionId": sid, "modeId": "code"}),
            ("session/set_config_option", {"sessionId": sid, "configId": "model", "value": "x"}),
        ]:
            err = await expect_error(client, missing, method, params)
            assert err.data == {"uri": sid}


async def test_close_cancels_a_running_turn(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new()
        result: dict[str, str] = {}

        async def run() -> None:
            result["stop"] = await client.prompt(sid, "hang")

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await client.wait_for(lambda: "hang until" in text_of(client.of(sid)))
            assert await client.call("session/close", {"sessionId": sid}) == {}
        assert result["stop"] == "cancelled"


async def test_fork_copies_history_with_explicit_roots(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        source = await client.new("/work/a", additionalDirectories=["/lib/x"])
        assert await client.prompt(source, "Fix the bug") == "end_turn"
        history = [u for u in client.of(source) if kind(u) != "available_commands_update"]
        params = {"sessionId": source, "cwd": "/work/b", "mcpServers": []}
        fork = await client.call("session/fork", {**params, "additionalDirectories": ["/lib/y"]})
        assert fork["sessionId"] != source
        assert fork["configOptions"]
        bare = (await client.call("session/fork", params))["sessionId"]
        infos = {s["sessionId"]: s for s in (await client.call("session/list", {}))["sessions"]}
        assert infos[fork["sessionId"]]["additionalDirectories"] == ["/lib/y"]
        assert infos[fork["sessionId"]]["cwd"] == "/work/b"
        assert infos[fork["sessionId"]]["title"] == "Fork of Fix the bug"
        assert infos[bare]["additionalDirectories"] == []
        assert infos[source]["additionalDirectories"] == ["/lib/x"]
        client.updates.clear()
        load = {"sessionId": fork["sessionId"], "cwd": "/work/b", "mcpServers": []}
        await client.call("session/load", load)
        assert client.of(fork["sessionId"])[:-1] == history


# -- persistence ----------------------------------------------------------------------------


async def test_sessions_survive_a_restart(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        sid = await client.new("/work/a", additionalDirectories=["/lib/x"])
        assert await client.prompt(sid, "Refactor the parser\nplease") == "end_turn"
        params = {"sessionId": sid, "configId": "model", "value": "demo-smart"}
        await client.call("session/set_config_option", params)
        await client.call("session/set_mode", {"sessionId": sid, "modeId": "code"})
        history = [
            u
            for u in client.of(sid)
            if kind(u) not in ("available_commands_update", "current_mode_update")
        ]
        before = (await client.call("session/list", {}))["sessions"]
    assert client.proc.returncode == 0  # EOF on stdin is a clean exit
    async with agent(data_dir) as client:
        assert (await client.call("session/list", {}))["sessions"] == before
        (info,) = before
        assert info["title"] == "Refactor the parser"
        assert info["additionalDirectories"] == ["/lib/x"]
        load = {
            "sessionId": sid,
            "cwd": "/work/a",
            "mcpServers": [],
            "additionalDirectories": ["/lib/x"],
        }
        loaded = await client.call("session/load", load)
        assert loaded["modes"]["currentModeId"] == "code"
        assert {o["id"]: o["currentValue"] for o in loaded["configOptions"]}[
            "model"
        ] == "demo-smart"
        assert client.of(sid)[:-1] == history
        assert await client.prompt(sid, "more") == "end_turn"
        after = (await client.call("session/list", {}))["sessions"][0]
        assert after["updatedAt"] > info["updatedAt"]
        assert after["title"] == "Refactor the parser"  # only the first prompt names it


SCHEMA_DIR = Path(__file__).parents[1] / "data" / "acp" / "schema" / "v1"
AGENT_REQUESTS = {
    "session/request_permission": "RequestPermissionRequest",
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "terminal/create": "CreateTerminalRequest",
    "terminal/wait_for_exit": "WaitForTerminalExitRequest",
    "terminal/output": "TerminalOutputRequest",
    "terminal/release": "ReleaseTerminalRequest",
}


@cache
def _schema_validator(definition: str) -> Any:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    # The unstable schema is the stable one plus session/fork and friends.
    contents = json.loads((SCHEMA_DIR / "schema.unstable.json").read_text(encoding="utf-8"))
    uri = "urn:acp:v1:schema.unstable.json"
    registry: Registry[Any] = Registry().with_resource(
        uri, Resource.from_contents(contents, default_specification=DRAFT202012)
    )
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


def assert_schema(definition: str, value: Any) -> None:
    errors = sorted(_schema_validator(definition).iter_errors(value), key=str)
    assert not errors, f"{definition}: {value}\n" + "\n".join(e.message for e in errors)


async def test_everything_sent_validates_against_the_schema(data_dir: Path) -> None:
    async with agent(data_dir) as client:
        assert_schema("InitializeResponse", client.init)
        new = await client.call("session/new", {"cwd": "/w", "mcpServers": [], **DIRS})
        assert_schema("NewSessionResponse", new)
        sid = new["sessionId"]
        text = "think plan stream 3 code diff permission read write run usage title Renamed"
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        assert_schema("PromptResponse", await client.call("session/prompt", prompt))
        assert await client.prompt(sid, "hello") == "end_turn"
        mode = await client.call("session/set_mode", {"sessionId": sid, "modeId": "code"})
        assert_schema("SetSessionModeResponse", mode)
        config = {"sessionId": sid, "configId": "model", "value": "demo-smart"}
        config_result = await client.call("session/set_config_option", config)
        assert_schema("SetSessionConfigOptionResponse", config_result)
        listed = await client.call("session/list", {})
        assert_schema("ListSessionsResponse", listed)
        load = {"sessionId": sid, "cwd": "/w", "mcpServers": []}
        assert_schema("LoadSessionResponse", await client.call("session/load", load))
        assert_schema("ResumeSessionResponse", await client.call("session/resume", load))
        assert_schema("ForkSessionResponse", await client.call("session/fork", load))
        closed = await client.call("session/close", {"sessionId": sid})
        assert_schema("CloseSessionResponse", closed)
        kinds = set()
        for params in client.updates:
            assert_schema("SessionNotification", params)
            kinds.add(kind(params["update"]))
        assert kinds >= {
            "user_message_chunk",
            "agent_message_chunk",
            "agent_thought_chunk",
            "tool_call",
            "tool_call_update",
            "plan",
            "available_commands_update",
            "current_mode_update",
            "session_info_update",
            "usage_update",
        }
        assert {m for m, _ in client.requests} == set(AGENT_REQUESTS)
        for method, params in client.requests:
            assert_schema(AGENT_REQUESTS[method], params)


def test_help_documents_the_keywords() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "acp_tui.demo_agent", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    words = ("think", "plan", "stream N", "permission", "permission-flood N", "crash", "hang")
    for word in (*words, "--page-size", "--hostile"):
        assert word in out


def test_permission_flood_is_one_keyword() -> None:
    from acp_tui.demo_agent.script import FLOOD, parse

    flood = parse("please permission-flood 50 cancel 7 and plan")
    assert flood.words == {FLOOD, "plan"}  # not "permission" on its own
    assert (flood.flood_count, flood.flood_cancel) == (50, 7)
    assert parse("permission-flood 3").flood_cancel is None
    assert parse("permission").words == {"permission"}


def test_terminal_takes_the_variables_of_the_commands_env() -> None:
    from acp_tui.demo_agent.script import parse

    kw = parse("terminal HOME=/tmp/plan LANG= and think")
    assert kw.words == {"terminal", "think"}  # "plan" in a value is no keyword
    assert kw.terminal_env == (("HOME", "/tmp/plan"), ("LANG", ""))
    assert parse("run").terminal_env == ()


async def test_hostile_mode_replaces_every_display_string(data_dir: Path) -> None:
    from acp_tui.demo_agent.hostile import HOSTILE_TEXTS

    hostile = HOSTILE_TEXTS["osc52"]
    caps = {**FULL_CAPS, "elicitation": {"form": {}}}
    async with agent(data_dir, "--hostile", "osc52", caps=caps) as client:
        assert client.init["agentInfo"]["title"] == hostile
        assert client.init["agentInfo"]["version"] != hostile
        # What only a wire inspector shows: a method, an id, a line that is not JSON.
        await client.wait_for(lambda: (hostile, {}) in client.requests)
        await client.wait_for(lambda: hostile in client.notified)
        assert client.conn.skipped_lines == 1
        sid = await client.new()
        assert await client.prompt(sid, "plan diff permission") == "end_turn"
        updates = client.of(sid)
        commands = next(u for u in updates if kind(u) == "available_commands_update")
        assert {c["description"] for c in commands["availableCommands"]} == {hostile}
        plans = [u for u in updates if kind(u) == "plan"]
        assert {e["content"] for p in plans for e in p["entries"]} == {hostile}
        calls = [u for u in updates if kind(u) == "tool_call"]
        assert {c["title"] for c in calls} == {hostile}
        assert {loc["path"] for c in calls for loc in c["locations"]} == {hostile}
        assert set(text_of(updates).split(hostile)) == {""}  # message text: the hostile one
        [(_, asked)] = [r for r in client.requests if r[0] == "session/request_permission"]
        assert {o["name"] for o in asked["options"]} == {hostile}
        assert asked["options"][0]["optionId"] == "allow-once"  # ids intact
        listed = await client.call("session/list", {})
        assert {s["title"] for s in listed["sessions"]} == {hostile}
        # A form: what a client shows of its fields, defaults and enum values (labels) too.
        assert await client.prompt(sid, "ask") == "end_turn"
        [(_, asked)] = [r for r in client.requests if r[0] == "elicitation/create"]
        fields = asked["requestedSchema"]["properties"]
        assert {f["title"] for f in fields.values()} == {hostile}
        assert fields["name"]["default"] == hostile
        assert fields["license"]["enum"] == [f"{hostile} {i}" for i in (1, 2, 3)]
        assert fields["platforms"]["items"]["enum"][0] == f"{hostile} 1"
        assert fields["platforms"]["default"] == [f"{hostile} 1"]  # still one of them
        assert fields["style"]["default"] == "ruff"  # a oneOf's values are ids: left alone
        error = await expect_error(client, ErrorCode.METHOD_NOT_FOUND, "no/such", {})
        assert error.message == hostile


def test_store_survives_torn_writes(tmp_path: Path) -> None:
    """A crash mid-append leaves a torn last line; it is skipped and never swallows the next."""
    from acp_tui.demo_agent.store import SessionRecord, SessionStore

    store = SessionStore(tmp_path)
    store.open()
    store.put(SessionRecord("demo-1", "/p", updated_at=store.now()))
    store.append_history("demo-1", {"sessionUpdate": "agent_message_chunk", "n": 1})
    store.close()
    with (tmp_path / "index.journal").open("ab") as fh:
        fh.write(b'{"op":"put","session":{"sessionId":"demo-2"')
    with (tmp_path / "history" / "demo-1.jsonl").open("ab") as fh:
        fh.write(b'{"sessionUpdate":"agent_mess')
    reopened = SessionStore(tmp_path)
    reopened.open()
    assert [r.session_id for r in reopened.ascending()] == ["demo-1"]
    reopened.append_history("demo-1", {"sessionUpdate": "agent_message_chunk", "n": 2})
    assert [u["n"] for u in reopened.read_history("demo-1")] == [1, 2]
    reopened.close()
    snapshot = json.loads((tmp_path / "index.json").read_text())
    assert [s["sessionId"] for s in snapshot["sessions"]] == ["demo-1"]


def test_history_lines_read_as_json_reads_them(tmp_path: Path) -> None:
    """The history is read with a faster parser; what it refuses but ``json`` takes (a lone
    surrogate escape) still comes back, and lines that are not JSON objects are skipped."""
    from acp_tui.demo_agent.store import SessionRecord, SessionStore

    store = SessionStore(tmp_path)
    store.open()
    store.put(SessionRecord("demo-1", "/p", updated_at=store.now()))
    store.close()
    lines = [b'{"n":1,"text":"caf\xc3\xa9"}', b'{"n":2,"text":"\\ud800"}', b"[3]", b"{oops"]
    lines.append(b'{"n":4,"big":123456789012345678901234567890}')
    (tmp_path / "history" / "demo-1.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    reopened = SessionStore(tmp_path)
    reopened.open()
    read = list(reopened.read_history("demo-1"))
    reopened.close()
    assert read == [json.loads(line) for line in (lines[0], lines[1], lines[4])]
    assert read[1]["text"] == "\ud800"


def test_paging_10000_sessions_is_exact(tmp_path: Path) -> None:
    """Keyset pages over a big index: every match once, newest first, filters bound to cursors."""
    from acp_tui.demo_agent.paging import decode_cursor, encode_cursor, fingerprint, page
    from acp_tui.demo_agent.store import SessionRecord, SessionStore

    store = SessionStore(tmp_path)
    store.open()
    for i in range(10_000):
        now = store.now()
        dirs = ["/lib/x"] if i % 3 == 0 else []
        store.put(SessionRecord(f"demo-{i:05d}", f"/p{i % 7}", dirs, None, now, now))
    ascending = store.ascending()
    store.close()

    def keep(record: SessionRecord) -> bool:
        return record.cwd == "/p3" and record.additional_directories == ["/lib/x"]

    filters = fingerprint("/p3", ["/lib/x"])
    seen: list[str] = []
    after = None
    while True:
        found, next_key = page(ascending, keep, after, 50)
        seen += [r.session_id for r in found]
        if next_key is None:
            break
        after = decode_cursor(encode_cursor(next_key, filters), filters)
    expected = [f"demo-{i:05d}" for i in reversed(range(10_000)) if i % 7 == 3 and i % 3 == 0]
    assert seen == expected
    with pytest.raises(RpcError):
        decode_cursor(encode_cursor(ascending[0].sort_key, filters), fingerprint(None, None))
