"""Tests for the agent subprocess: pipes, stderr, exit, and killing the whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TypedDict

import anyio
import pytest
from anyio.abc import ByteReceiveStream
from anyio.streams.buffered import BufferedByteReceiveStream

from acp_tui.client.errors import AgentExited, AgentNotFound, AgentStartFailed
from acp_tui.client.process import reaper
from acp_tui.client.process.agent_process import (
    AgentProcess,
    kill_live_process_groups,
    live_process_groups,
    spawn_agent,
)
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import Paths


class Timeouts(TypedDict):
    stop_timeout: float
    term_timeout: float


FAST: Timeouts = {"stop_timeout": 0.5, "term_timeout": 0.5}

ECHO = """
import sys
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
"""

# Ignores EOF and SIGTERM; its grandchild inherits the ignored SIGTERM and stays in the group.
STUBBORN = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(grandchild.pid, flush=True)
time.sleep(60)
"""

# Exits by itself at once, leaving a grandchild behind in the group (like an npm wrapper).
WRAPPER = """
import subprocess, sys
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(grandchild.pid, flush=True)
"""


def python(
    code: str, *, env: Mapping[str, str] | None = None, cwd: Path | None = None, name: str = "agent"
) -> AgentCommand:
    argv = [sys.executable, "-c", textwrap.dedent(code)]
    return AgentCommand(argv, env=env or {}, cwd=cwd, name=name)


async def read_line(stream: BufferedByteReceiveStream) -> str:
    """The next line, without its newline."""
    with anyio.fail_after(10):
        return (await stream.receive_until(b"\n", 65536)).decode()


def buffered(stream: ByteReceiveStream) -> BufferedByteReceiveStream:
    return BufferedByteReceiveStream(stream)


def is_gone(pid: int) -> bool:
    """Gone, or a zombie waiting for an init that may never reap it (nothing left running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return True
    return stat.rpartition(b")")[2].split()[0] in (b"Z", b"X")


async def wait_gone(pid: int) -> None:
    """Wait, bounded, until `pid` is gone; a reparented grandchild sends no event, so poll."""
    with anyio.fail_after(5):
        while not is_gone(pid):  # noqa: ASYNC110
            await anyio.sleep(0.02)


@pytest.fixture(autouse=True)
def no_leftover_groups() -> Iterator[None]:
    before = live_process_groups()
    yield
    leftover = live_process_groups() - before
    kill_live_process_groups()
    assert not leftover, f"process groups still registered: {leftover}"


async def test_echo_round_trip_env_and_cwd(tmp_path: Path) -> None:
    async with spawn_agent(python(ECHO), log_dir=tmp_path, **FAST) as agent:
        out = buffered(agent.stdout)
        await agent.stdin.send(b'{"jsonrpc":"2.0"}\n')
        assert await read_line(out) == '{"jsonrpc":"2.0"}'
        await agent.stdin.send("héllo\n".encode())
        assert await read_line(out) == "héllo"
        assert agent.pgid == agent.pid
        assert os.getpgid(agent.pid) == agent.pid
        assert agent.pgid in live_process_groups()
    assert agent.returncode == 0
    assert agent.signals_sent == []
    assert agent.pgid not in live_process_groups()

    workdir = tmp_path / "work dir"
    workdir.mkdir()
    code = """
    import os
    print(os.environ["ACP_TEST_VAR"])
    print(os.getcwd())
    print(os.environ["PATH"])
    """
    command = python(code, env={"ACP_TEST_VAR": "from-override"}, cwd=workdir)
    async with spawn_agent(command, log_dir=tmp_path, **FAST) as agent:
        out = buffered(agent.stdout)
        assert await read_line(out) == "from-override"
        assert await read_line(out) == str(workdir)  # tmp_path is already resolved
        assert await read_line(out) == os.environ["PATH"]  # the parent env is inherited
        assert await agent.wait() == 0


async def test_stubborn_child_and_grandchild_are_killed(tmp_path: Path) -> None:
    async with spawn_agent(python(STUBBORN), log_dir=tmp_path, **FAST) as agent:
        grandchild = int(await read_line(buffered(agent.stdout)))
        assert os.getpgid(grandchild) == agent.pgid
    assert agent.signals_sent[:2] == [signal.SIGTERM, signal.SIGKILL]
    # Under load the grandchild may still run when the leader's exit is seen: it is killed
    # again, never let be.
    assert set(agent.signals_sent[2:]) <= {signal.SIGKILL}
    assert agent.returncode == -signal.SIGKILL
    assert agent.exited.is_set()
    await wait_gone(agent.pid)
    await wait_gone(grandchild)


async def test_well_behaved_child_exits_on_eof_without_signals(tmp_path: Path) -> None:
    async with spawn_agent(
        python(ECHO), log_dir=tmp_path, stop_timeout=5.0, term_timeout=5.0
    ) as agent:
        assert await agent.shutdown() == 0
        assert await agent.shutdown() == 0  # idempotent
    assert agent.signals_sent == []
    assert agent.returncode == 0
    assert is_gone(agent.pid)


async def test_exit_code_stderr_tail_and_log(tmp_path: Path) -> None:
    code = """
    import sys
    for i in range(30):
        print(f"problem {i}", file=sys.stderr)
    sys.stderr.write("last words without newline")
    sys.exit(3)
    """
    log_dir = tmp_path / "logs" / "nested"
    async with spawn_agent(python(code, name="my agent/1"), log_dir=log_dir, **FAST) as agent:
        with anyio.fail_after(10):
            await agent.exited.wait()
        assert agent.returncode == 3
        assert await agent.wait() == 3
        tail = agent.stderr_tail(3)
        assert tail == ["problem 28", "problem 29", "last words without newline"]
        assert len(agent.stderr_tail()) == 20
        assert agent.stderr_tail(0) == []
        error = agent.exit_error("while starting")
        assert isinstance(error, AgentExited)
        assert error.exit_code == 3
        message = str(error)
        assert "code 3" in message
        assert "while starting" in message
        assert "problem 29" in message
        assert "last words without newline" in message
    assert agent.signals_sent == []
    assert agent.log_path is not None
    assert agent.log_path.parent == log_dir
    assert agent.log_path.name.startswith("my_agent_1-")
    assert agent.log_path.name.endswith(f"-{agent.pid}.log")
    text = agent.log_path.read_text()
    assert "problem 0\n" in text
    assert "problem 29\n" in text
    assert "last words without newline" in text
    assert "exit code 3" in text


async def test_log_goes_to_the_default_log_dir(acp_home: Paths) -> None:
    async with spawn_agent(python("import sys; sys.stderr.write('hi')"), **FAST) as agent:
        await agent.wait()
    assert agent.log_path is not None
    assert agent.log_path.parent == acp_home.log_dir
    assert "hi" in agent.log_path.read_text()


async def test_unwritable_log_dir_is_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = "import sys; print('oops', file=sys.stderr); sys.exit(1)"
    async with spawn_agent(python(code), log_dir=blocker / "logs", **FAST) as agent:
        assert await agent.wait() == 1
        assert agent.stderr_tail() == ["oops"]
    assert agent.log_path is None


async def test_stderr_flood_stays_bounded_and_never_blocks(tmp_path: Path) -> None:
    code = """
    import sys
    for i in range(50_000):
        sys.stderr.write(f"flood line {i}\\n")
    sys.stderr.write("x" * 1_000_000 + "\\n")
    sys.stderr.write("done\\n")
    print("finished", flush=True)
    """
    async with spawn_agent(python(code), log_dir=tmp_path, stderr_lines=100, **FAST) as agent:
        assert await read_line(buffered(agent.stdout)) == "finished"
        with anyio.fail_after(10):
            assert await agent.wait() == 0
        tail = agent.stderr_tail(1000)
        assert len(tail) == 100
        assert tail[-1] == "done"
        assert tail[-2].startswith("xxxx")
        assert tail[-2].endswith("truncated]")
        assert len(tail[-2].encode()) < 4200
        assert tail[-3] == "flood line 49999"
        assert len(agent._lines) == 100
    assert agent.signals_sent == []


async def test_missing_command_is_agent_not_found(tmp_path: Path) -> None:
    with pytest.raises(AgentNotFound, match="definitely-not-an-agent-xyz") as info:
        async with spawn_agent(AgentCommand(["definitely-not-an-agent-xyz"]), log_dir=tmp_path):
            pytest.fail("should not start")
    assert info.value.command == "definitely-not-an-agent-xyz"
    assert "PATH" in info.value.reason

    script = tmp_path / "not-executable.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(AgentNotFound, match="not executable"):
        async with spawn_agent(AgentCommand([str(script)]), log_dir=tmp_path):
            pytest.fail("should not start")

    with pytest.raises(AgentNotFound, match="no such file"):
        async with spawn_agent(AgentCommand(["./nope/agent"]), log_dir=tmp_path):
            pytest.fail("should not start")


async def test_bad_cwd_and_empty_argv_are_start_failures(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    with pytest.raises(AgentStartFailed, match="does not exist") as info:
        async with spawn_agent(python("pass", cwd=missing), log_dir=tmp_path):
            pytest.fail("should not start")
    assert str(missing) in str(info.value)

    with pytest.raises(AgentStartFailed, match="empty"):
        async with spawn_agent(AgentCommand([], name="blank"), log_dir=tmp_path):
            pytest.fail("should not start")

    with pytest.raises(TypeError):
        AgentCommand("cat")


async def test_leftover_grandchild_is_killed_after_the_leader_exits(tmp_path: Path) -> None:
    async with spawn_agent(python(WRAPPER), log_dir=tmp_path, **FAST) as agent:
        grandchild = int(await read_line(buffered(agent.stdout)))
        with anyio.fail_after(10):
            assert await agent.wait() == 0
        assert not is_gone(grandchild)
    assert agent.signals_sent == [signal.SIGTERM]
    assert agent.pgid not in live_process_groups()
    await wait_gone(grandchild)


async def test_cancelling_the_task_group_kills_the_process_group(tmp_path: Path) -> None:
    holder: list[AgentProcess] = []
    grandchildren: list[int] = []
    ready = anyio.Event()

    async def run_agent() -> None:
        async with spawn_agent(python(STUBBORN), log_dir=tmp_path, **FAST) as agent:
            holder.append(agent)
            grandchildren.append(int(await read_line(buffered(agent.stdout))))
            ready.set()
            await anyio.sleep_forever()

    with anyio.fail_after(15):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run_agent)
            await ready.wait()
            tg.cancel_scope.cancel()
    agent = holder[0]
    assert agent.returncode == -signal.SIGKILL
    assert agent.pgid not in live_process_groups()
    await wait_gone(agent.pid)
    await wait_gone(grandchildren[0])


async def test_body_error_propagates_unwrapped_and_the_agent_is_stopped(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="boom"):
        async with spawn_agent(python(ECHO), log_dir=tmp_path, **FAST) as agent:
            raise ValueError("boom")
    assert agent.returncode == 0
    assert agent.pgid not in live_process_groups()


def test_atexit_hook_kills_guarded_trees() -> None:
    token = reaper.new_token()
    since = reaper.spawn_time()
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        start_new_session=True,
        env=reaper.marked_env(os.environ, token),
    )
    foreign = reaper.Root(999_999_999, None, 0, "a-forked-parents")
    try:
        root = reaper.guard(child.pid, token, since, "agent")
        reaper._guarded[foreign.pid] = reaper._Guarded(foreign, "agent", os.getpid() + 1)
        assert child.pid in live_process_groups()
        assert foreign.pid not in live_process_groups()
        kill_live_process_groups()
        assert child.wait(timeout=10) == -signal.SIGKILL
        assert child.pid not in live_process_groups()
        assert root not in reaper.guarded()
        assert foreign.pid in reaper._guarded  # a forked parent's: kept
    finally:
        reaper._guarded.pop(foreign.pid, None)
        child.kill()
        child.wait()
