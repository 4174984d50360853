"""The demo agent in the test's own event loop: its pipes, its command line, its end, its bytes.

Most client, Workspace and app tests reach the demo agent this way (``tests/in_process.py``);
these check that what they get is what a process gives.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.errors import AgentExited
from acp_tui.client.process.command import AgentCommand
from acp_tui.demo_agent.in_process import BytePipe, InProcessAgent, options_from_argv
from acp_tui.demo_agent.options import AgentOptions
from acp_tui.protocol.connection import Connection
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.jsonrpc import ConnectionClosed
from tests.in_process import AgentInProcess, InProcessConnect, demo_agent_args
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project

WAIT = 10


# -- the pipe ------------------------------------------------------------------------------------


async def test_a_pipe_holds_its_capacity_then_the_writer_waits_for_the_reader() -> None:
    pipe = BytePipe(capacity=8)
    written = anyio.Event()

    async def write() -> None:
        await pipe.writer.send(b"0123456789abcdef")
        written.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        await anyio.wait_all_tasks_blocked()
        assert not written.is_set()  # 16 bytes do not fit in 8
        assert await pipe.reader.receive(5) == b"01234"  # what was asked, no more
        await anyio.wait_all_tasks_blocked()
        assert not written.is_set()  # the room read made was filled again
        assert await pipe.reader.receive() == b"56789abc"
        await written.wait()
        assert await pipe.reader.receive() == b"def"
    await pipe.writer.aclose()
    with pytest.raises(anyio.EndOfStream):
        await pipe.reader.receive()


async def test_what_was_written_is_read_after_the_writer_closed_then_the_end() -> None:
    pipe = BytePipe()
    await pipe.writer.send(b"last words\n")
    await pipe.writer.aclose()
    assert await pipe.reader.receive() == b"last words\n"
    with pytest.raises(anyio.EndOfStream):
        await pipe.reader.receive()
    with pytest.raises(anyio.ClosedResourceError):
        await pipe.writer.send(b"more")


async def test_a_write_to_a_pipe_nobody_reads_any_more_fails() -> None:
    pipe = BytePipe(capacity=4)

    async def close_soon() -> None:
        await anyio.wait_all_tasks_blocked()
        await pipe.reader.aclose()

    async with anyio.create_task_group() as tg:
        tg.start_soon(close_soon)
        with pytest.raises(anyio.BrokenResourceError):
            await pipe.writer.send(b"more than four bytes")


async def test_a_write_cancelled_half_way_still_writes_its_whole_line() -> None:
    pipe = BytePipe(capacity=4)
    scope = anyio.CancelScope()

    async def write() -> None:
        with scope:
            await pipe.writer.send(b"a whole line\n")

    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        await anyio.wait_all_tasks_blocked()  # four bytes in, the rest waiting for room
        scope.cancel()
        got = b""
        with anyio.fail_after(WAIT):
            while len(got) < len(b"a whole line\n"):
                got += await pipe.reader.receive()
    assert got == b"a whole line\n"


# -- the command line ----------------------------------------------------------------------------


def test_it_takes_the_command_line_of_the_process(tmp_path: Path) -> None:
    options = options_from_argv(
        [
            "--data-dir",
            str(tmp_path),
            "--require-auth",
            "--fault",
            "slow-list",
            "--fault",
            "late-chunk",
            "--protocol",
            "2",
            "--hostile",
            "bidi",
            "--delay-ms",
            "5",
            "--capabilities",
            "list,load",
        ]
    )
    assert options.data_dir == tmp_path
    assert options.require_auth
    assert options.faults == {"slow-list", "late-chunk"}
    assert options.protocol == 2
    assert options.hostile is not None
    assert options.delay_ms == 5
    assert options.capabilities == {"list", "load"}


def test_without_a_data_dir_it_keeps_its_sessions_where_the_process_would(
    acp_home: Any,
) -> None:
    assert options_from_argv([]) == AgentOptions(data_dir=acp_home.demo_agent_dir.absolute())


@pytest.mark.parametrize(
    ("argv", "why"),
    [(["--fault", "no-such-fault"], "refuses"), (["--login"], "terminal")],
)
def test_what_it_cannot_serve_is_refused(argv: list[str], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        options_from_argv(argv)


# -- its end -------------------------------------------------------------------------------------


async def test_the_end_of_its_input_ends_it_with_code_0(tmp_path: Path) -> None:
    agent = InProcessAgent(["--data-dir", str(tmp_path)])
    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.run)
        await agent.stdin.aclose()
        with anyio.fail_after(WAIT):
            await agent.exited.wait()
    assert agent.returncode == 0
    assert agent.stderr == []


async def test_a_crash_on_purpose_ends_it_with_its_code_and_words(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with InProcessConnect()(demo_spec(tmp_path / "demo", project)) as client:
        session = await client.new_session(project)
        assert client.process.stderr_tail() == []
        with pytest.raises(AgentExited) as info:
            await client.prompt(session.session_id, [TextContent(text="crash")])
    assert info.value.exit_code == 3
    assert info.value.stderr_tail == ["acp-tui demo agent: crashing on purpose (keyword 'crash')"]
    assert "Crashing in three, two, one…" in agent_text(session.transcript)


async def test_kill_ends_it_at_once_as_sigkill_reports(tmp_path: Path) -> None:
    agent = InProcessAgent(["--data-dir", str(tmp_path), "--fault", "hang-initialize"])
    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.run)
        await agent.stdin.send(
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
        )
        await anyio.wait_all_tasks_blocked()
        agent.kill()
        with anyio.fail_after(WAIT):
            await agent.exited.wait()
    assert agent.returncode == -9
    assert agent.stderr == [
        "demo-agent WARNING acp_tui.demo_agent.server: fault hang-initialize: never answering "
        "initialize"
    ]  # its log, as the process prints it
    with pytest.raises(anyio.EndOfStream):
        await agent.stdout.receive()


# -- the same bytes as a process -----------------------------------------------------------------

Talk = Callable[[Connection], Any]

IDS = re.compile(r"demo-[0-9a-f]{32}|[a-z]+-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[0-9:.]+Z?")


@asynccontextmanager
async def wire(
    receive: anyio.abc.ByteReceiveStream, send: anyio.abc.ByteSendStream, lines: list[bytes]
) -> AsyncIterator[Connection]:
    async def on_request(method: str, params: Any) -> Any:
        return {"outcome": {"outcome": "selected", "optionId": "allow-once"}}

    async def on_notification(method: str, params: Any) -> None:
        pass

    conn = Connection(
        receive, send, on_request=on_request, on_notification=on_notification, name="agent"
    )
    conn.tap = lambda direction, line: lines.append(line) if direction == "recv" else None
    async with anyio.create_task_group() as tg:
        tg.start_soon(conn.run)
        yield conn
        tg.cancel_scope.cancel()


async def a_session(conn: Connection, cwd: str) -> None:
    with anyio.fail_after(WAIT):
        await conn.request(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": False}},
                "clientInfo": {"name": "test", "version": "0"},
            },
        )
        new = await conn.request("session/new", {"cwd": cwd, "mcpServers": []})
        prompt = [{"type": "text", "text": "markdown think plan diff permission"}]
        await conn.request("session/prompt", {"sessionId": new["sessionId"], "prompt": prompt})
        await conn.request("session/list", {})


def normalized(lines: list[bytes]) -> list[Any]:
    """Each line decoded, with ids and times (which differ on every run) replaced."""
    return [json.loads(IDS.sub("ID", line.decode())) for line in lines]


@pytest.mark.real_agent
async def test_it_writes_the_bytes_the_process_writes(tmp_path: Path) -> None:
    project = str(make_project(tmp_path))
    from_process: list[bytes] = []
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "process")]
    async with await anyio.open_process(argv) as proc:
        assert proc.stdout is not None
        assert proc.stdin is not None
        async with wire(proc.stdout, proc.stdin, from_process) as conn:
            await a_session(conn, project)
        await proc.stdin.aclose()
        with anyio.fail_after(WAIT):
            assert await proc.wait() == 0

    in_process: list[bytes] = []
    agent = InProcessAgent(["--data-dir", str(tmp_path / "in-process")])
    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.run)
        async with wire(agent.stdout, agent.stdin, in_process) as conn:
            await a_session(conn, project)
        await agent.stdin.aclose()
        with anyio.fail_after(WAIT):
            await agent.exited.wait()
    assert agent.returncode == 0
    assert len(from_process) > 20
    assert normalized(in_process) == normalized(from_process)


async def test_the_client_talks_to_it_through_the_real_connection(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with InProcessConnect()(demo_spec(tmp_path / "demo", project)) as client:
        assert isinstance(client.process, AgentInProcess)
        session = await client.new_session(project)
        await client.prompt(session.session_id, [TextContent(text="hello")])
        assert "hello" in agent_text(session.transcript)
    with pytest.raises(ConnectionClosed):
        await client.connection.request("session/list", {})


def test_only_what_needs_no_process_runs_in_process(tmp_path: Path) -> None:
    demo = [sys.executable, "-m", "acp_tui.demo_agent"]
    data = ["--data-dir", str(tmp_path)]
    assert demo_agent_args(AgentCommand([*demo, *data, "--fault", "slow-list"])) == [
        *data,
        "--fault",
        "slow-list",
    ]
    for command in (
        AgentCommand(["other-agent", "--acp"]),
        AgentCommand([*demo, *data], env={"DEMO": "1"}),
        AgentCommand([*demo, *data, "--login"]),
        AgentCommand([*demo, "--data-dir", "relative"], cwd=tmp_path),
    ):
        assert demo_agent_args(command) is None, command
