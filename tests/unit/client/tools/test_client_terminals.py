"""TerminalManager with real subprocesses: output, limits, exit status, kill, release, close."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from acp_tui.client.tools.roots import PathNotFound, PathRefused, RootSet
from acp_tui.client.tools.terminals import TerminalManager
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

PY = sys.executable

SLEEPER = "import time; print('ready', flush=True); time.sleep(60)"
IGNORES_TERM = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); time.sleep(60)"
)
# Starts a grandchild in the same process group, prints its pid, then sleeps.
PARENT_OF_CHILD = (
    "import subprocess, sys, time; "
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
    "print('child', child.pid, flush=True); time.sleep(60)"
)


class Watch:
    """The on_output callback: lets a test wait for output without sleeping."""

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.calls: list[str] = []

    def __call__(self, terminal_id: str) -> None:
        self.calls.append(terminal_id)
        self.event.set()

    async def until(self, terms: TerminalManager, terminal_id: str, text: str) -> str:
        with anyio.fail_after(10):
            while text not in (output := terms.output(terminal_id).output):
                self.event = anyio.Event()
                await self.event.wait()
        return output


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def until_dead(*pids: int) -> None:
    """Wait on a pidfd (the processes are not our children: no wait() is possible)."""
    with anyio.fail_after(10):
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            try:
                await anyio.wait_readable(fd)
            finally:
                os.close(fd)
    assert not any(alive(pid) for pid in pids)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    app = tmp_path.resolve() / "app"
    (app / "sub").mkdir(parents=True)
    return app


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def manager(root: Path, watch: Watch) -> Callable[[], TerminalManager]:
    """A manager to enter in the test itself (a task group cannot span fixture and test tasks)."""
    return lambda: TerminalManager(RootSet(str(root)), on_output=watch, kill_grace=5)


async def test_output_and_exit_code(manager: Callable[[], TerminalManager], watch: Watch) -> None:
    async with manager() as terms:
        code = (
            "import sys; print('to out', flush=True); print('to err', file=sys.stderr); sys.exit(3)"
        )
        tid = await terms.create(PY, ["-c", code], {}, None, None)
        with anyio.fail_after(10):
            assert await terms.wait_for_exit(tid) == (3, None)
        result = terms.output(tid)
        assert "to out\n" in result.output
        assert "to err\n" in result.output
        assert (result.truncated, result.exit_code, result.signal, result.exited) == (
            False,
            3,
            None,
            True,
        )
        assert tid in watch.calls
        await terms.release(tid)


async def test_running_terminal_has_no_status(
    manager: Callable[[], TerminalManager], watch: Watch
) -> None:
    async with manager() as terms:
        tid = await terms.create(PY, ["-c", SLEEPER], {}, None, None)
        await watch.until(terms, tid, "ready")
        result = terms.output(tid)
        assert (result.exit_code, result.signal, result.exited) == (None, None, False)
        await terms.release(tid)


async def test_cwd_defaults_to_session_cwd_and_env_is_passed(
    manager: Callable[[], TerminalManager], root: Path
) -> None:
    async with manager() as terms:
        code = "import os; print(os.getcwd()); print(os.environ['ACP_TEST_VAR'])"
        tid = await terms.create(PY, ["-c", code], {"ACP_TEST_VAR": "v✓"}, None, None)
        with anyio.fail_after(10):
            await terms.wait_for_exit(tid)
        assert terms.output(tid).output == f"{root}\nv✓\n"
        tid2 = await terms.create(
            PY, ["-c", "import os; print(os.getcwd())"], {}, str(root / "sub"), None
        )
        with anyio.fail_after(10):
            await terms.wait_for_exit(tid2)
        assert terms.output(tid2).output == f"{root / 'sub'}\n"


async def test_no_shell(manager: Callable[[], TerminalManager]) -> None:
    async with manager() as terms:
        tid = await terms.create(
            PY, ["-c", "import sys; print(sys.argv[1:])", "$HOME", "a;b"], {}, None, None
        )
        with anyio.fail_after(10):
            await terms.wait_for_exit(tid)
        assert terms.output(tid).output == "['$HOME', 'a;b']\n"


@pytest.mark.parametrize(
    ("char", "count", "limit", "expected"),
    [
        ("é", 20, 10, "é" * 5),  # 2-byte chars, exact fit
        ("é", 20, 11, "é" * 5),  # the cut lands mid-character: moved forward
        ("𝄞", 5, 6, "𝄞"),  # 4-byte chars
        ("€", 100, 0, ""),
    ],
    ids=["two-byte", "two-byte-odd", "four-byte", "zero"],
)
async def test_output_limit_truncates_from_beginning(
    manager: Callable[[], TerminalManager], char: str, count: int, limit: int, expected: str
) -> None:
    async with manager() as terms:
        code = f"import sys; sys.stdout.buffer.write(('{char}' * {count}).encode())"
        tid = await terms.create(PY, ["-c", code], {}, None, limit)
        with anyio.fail_after(10):
            await terms.wait_for_exit(tid)
        result = terms.output(tid)
        assert result.output == expected
        assert result.truncated
        assert len(result.output.encode()) <= limit


async def test_large_output_keeps_the_end(manager: Callable[[], TerminalManager]) -> None:
    async with manager() as terms:
        code = "import sys\nfor i in range(50000): print('line', i)\nprint('THE END')"
        tid = await terms.create(PY, ["-c", code], {}, None, 1000)
        with anyio.fail_after(20):
            await terms.wait_for_exit(tid)
        result = terms.output(tid)
        assert result.truncated
        assert result.output.endswith("line 49999\nTHE END\n")
        assert len(result.output.encode()) <= 1000


async def test_kill_kills_the_process_group(
    manager: Callable[[], TerminalManager], watch: Watch
) -> None:
    async with manager() as terms:
        tid = await terms.create(PY, ["-c", PARENT_OF_CHILD], {}, None, None)
        output = await watch.until(terms, tid, "\n")
        child = int(output.split()[1])
        assert alive(child)
        with anyio.fail_after(10):
            await terms.kill(tid)
            assert await terms.wait_for_exit(tid) == (None, "SIGTERM")
        await until_dead(child)
        result = terms.output(tid)  # still valid after kill
        assert (result.exit_code, result.signal, result.exited) == (None, "SIGTERM", True)
        await terms.release(tid)


async def test_kill_escalates_to_sigkill(root: Path, watch: Watch) -> None:
    async with TerminalManager(RootSet(str(root)), on_output=watch, kill_grace=0.2) as terms:
        tid = await terms.create(PY, ["-c", IGNORES_TERM], {}, None, None)
        await watch.until(terms, tid, "ready")
        with anyio.fail_after(10):
            await terms.kill(tid)
        assert terms.output(tid).signal == "SIGKILL"


async def test_release_kills_and_invalidates(
    manager: Callable[[], TerminalManager], watch: Watch
) -> None:
    async with manager() as terms:
        tid = await terms.create(PY, ["-c", PARENT_OF_CHILD], {}, None, None)
        output = await watch.until(terms, tid, "\n")
        child = int(output.split()[1])
        with anyio.fail_after(10):
            await terms.release(tid)
        await until_dead(child)
        with pytest.raises(RpcError) as info:
            terms.output(tid)
        assert info.value.code == ErrorCode.RESOURCE_NOT_FOUND
        assert tid in info.value.message
        for call in (terms.kill, terms.release, terms.wait_for_exit):
            with pytest.raises(RpcError) as info:
                await call(tid)
            assert info.value.code == ErrorCode.RESOURCE_NOT_FOUND
        snapshot = terms.snapshot(tid)  # still there for display
        assert snapshot is not None
        assert snapshot.output.startswith("child ")
        assert (snapshot.signal, snapshot.exited) == ("SIGTERM", True)
        assert tid not in terms


async def test_wait_for_exit_returns_when_killed_elsewhere(
    manager: Callable[[], TerminalManager], watch: Watch
) -> None:
    async with manager() as terms:
        tid = await terms.create(PY, ["-c", SLEEPER], {}, None, None)
        await watch.until(terms, tid, "ready")
        results: list[tuple[int | None, str | None]] = []

        async def waiter() -> None:
            results.append(await terms.wait_for_exit(tid))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(waiter)
                await terms.kill(tid)
        assert results == [(None, "SIGTERM")]


async def test_close_kills_everything(root: Path, watch: Watch) -> None:
    async with TerminalManager(RootSet(str(root)), on_output=watch) as terms:
        ids = [await terms.create(PY, ["-c", PARENT_OF_CHILD], {}, None, None) for _ in range(3)]
        pids = []
        for tid in ids:
            pids.append(int((await watch.until(terms, tid, "\n")).split()[1]))
        with anyio.fail_after(10):
            await terms.close()
        await until_dead(*pids)
        assert terms.terminal_ids == []
        for tid in ids:
            snapshot = terms.snapshot(tid)
            assert snapshot is not None
            assert snapshot.exited
        with pytest.raises(RpcError, match="closing"):
            await terms.create(PY, ["-c", "pass"], {}, None, None)


async def test_leaving_the_context_kills_running_terminals(root: Path, watch: Watch) -> None:
    with anyio.fail_after(10):
        async with TerminalManager(RootSet(str(root)), on_output=watch) as terms:
            tid = await terms.create(PY, ["-c", PARENT_OF_CHILD], {}, None, None)
            child = int((await watch.until(terms, tid, "\n")).split()[1])
    await until_dead(child)


async def test_cwd_outside_roots_refused(
    manager: Callable[[], TerminalManager], root: Path
) -> None:
    async with manager() as terms:
        with pytest.raises(PathRefused):
            await terms.create(PY, ["-c", "pass"], {}, str(root.parent), None)
        with pytest.raises(PathRefused):
            await terms.create(PY, ["-c", "pass"], {}, "relative/dir", None)
        (root / "out").symlink_to(root.parent)
        with pytest.raises(PathRefused):
            await terms.create(PY, ["-c", "pass"], {}, str(root / "out"), None)
        with pytest.raises(PathNotFound):
            await terms.create(PY, ["-c", "pass"], {}, str(root / "missing"), None)
        assert terms.terminal_ids == []


async def test_missing_command(manager: Callable[[], TerminalManager]) -> None:
    async with manager() as terms:
        with pytest.raises(RpcError, match="Command not found: 'no-such-command-acp-tui'") as info:
            await terms.create("no-such-command-acp-tui", [], {}, None, None)
        assert info.value.code == ErrorCode.RESOURCE_NOT_FOUND


async def test_not_executable(manager: Callable[[], TerminalManager], root: Path) -> None:
    async with manager() as terms:
        script = root / "script.sh"
        script.write_text("echo hi\n")
        with pytest.raises(RpcError, match="not executable"):
            await terms.create(str(script), [], {}, None, None)


@pytest.mark.parametrize(
    ("command", "args", "env", "limit"),
    [
        ("", [], {}, None),
        (PY, "not-a-list", {}, None),
        (PY, [1], {}, None),
        (PY, [], {"A": 1}, None),
        (PY, [], {}, -1),
        (PY, ["a\x00b"], {}, None),
    ],
    ids=["empty-command", "args-string", "args-int", "env-int", "negative-limit", "nul-arg"],
)
async def test_invalid_params(
    manager: Callable[[], TerminalManager],
    command: str,
    args: object,
    env: object,
    limit: int | None,
) -> None:
    async with manager() as terms:
        with pytest.raises(RpcError) as info:
            await terms.create(command, args, env, None, limit)  # type: ignore[arg-type]
        assert info.value.code == ErrorCode.INVALID_PARAMS


async def test_unknown_id(manager: Callable[[], TerminalManager]) -> None:
    async with manager() as terms:
        with pytest.raises(RpcError) as info:
            terms.output("term_nope")
        assert info.value.code == ErrorCode.RESOURCE_NOT_FOUND
        assert "term_nope" in info.value.message
        assert terms.snapshot("term_nope") is None


async def test_exit_is_reported_when_an_escaped_child_holds_the_output(
    root: Path, watch: Watch
) -> None:
    """A descendant that left the group (setsid) keeps the pipe open: exit is still reported."""
    code = (
        "import subprocess, sys; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
        "start_new_session=True); print('child', child.pid, flush=True)"
    )
    async with TerminalManager(RootSet(str(root)), on_output=watch, drain_seconds=0.1) as terms:
        tid = await terms.create(PY, ["-c", code], {}, None, None)
        child = int((await watch.until(terms, tid, "\n")).split()[1])
        try:
            with anyio.fail_after(10):
                assert await terms.wait_for_exit(tid) == (0, None)
                await terms.release(tid)
        finally:
            os.kill(child, signal.SIGKILL)
        await until_dead(child)
