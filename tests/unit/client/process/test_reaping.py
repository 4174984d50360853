"""No process acp-tui started outlives it: agent and terminal trees, the watchdog.

Real processes throughout. The scripted agent (tests/stubborn_agent.py) ignores EOF and SIGTERM
and starts a child in its group, a child in its own session (setsid) and a daemon whose parent
exited at once; every test checks each of them by pid and start time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from acp_tui.client.process import reaper, watchdog
from acp_tui.client.tools.roots import RootSet
from acp_tui.client.tools.terminals import TerminalManager
from tests.reap_helpers import (
    kill_all,
    stubborn_agent,
    survivors,
    wait_for_pids,
)

pytestmark = pytest.mark.skipif(not watchdog.have_proc(), reason="needs Linux /proc")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path.resolve()


@pytest.fixture
def cleanup() -> Iterator[list[watchdog.Proc]]:
    """Processes to kill if the test fails before they are gone."""
    procs: list[watchdog.Proc] = []
    yield procs
    kill_all(procs)


async def test_release_ends_a_terminal_tree_outside_its_group(
    tmp_path: Path, root: Path, cleanup: list[watchdog.Proc]
) -> None:
    pidfile = tmp_path / "terminal.json"
    argv = stubborn_agent(pidfile, "terminal")
    async with TerminalManager(RootSet(str(root)), kill_grace=0.2) as terms:
        tid = await terms.create(argv[0], argv[1:], {}, None, None)
        procs = await anyio.to_thread.run_sync(wait_for_pids, pidfile)
        cleanup.extend(procs.values())
        assert procs["leader"].pid == terms._terminals[tid].process.pid
        assert procs["session_child"].sid != procs["leader"].sid  # left the session
        assert procs["daemon"].ppid != procs["leader"].pid  # its parent exited
        with anyio.fail_after(20):
            await terms.release(tid)
        assert survivors(procs) == []
        assert terms.snapshot(tid) is not None
    assert all(r.pid != procs["leader"].pid for r in reaper.guarded())


async def test_a_daemon_left_by_a_finished_command_ends_at_release(
    root: Path, cleanup: list[watchdog.Proc]
) -> None:
    code = (
        "import subprocess, sys; p = subprocess.Popen(['sleep', '600'], start_new_session=True, "
        "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(p.pid, flush=True)"
    )
    async with TerminalManager(RootSet(str(root))) as terms:
        tid = await terms.create(sys.executable, ["-c", code], {}, None, None)
        with anyio.fail_after(20):
            assert await terms.wait_for_exit(tid) == (0, None)
        daemon = watchdog.read_stat(int(terms.output(tid).output))
        assert daemon is not None
        cleanup.append(daemon)
        assert survivors({"daemon": daemon}) == ["daemon"]  # it outlived its command...
        with anyio.fail_after(20):
            await terms.release(tid)
        assert survivors({"daemon": daemon}) == []  # ...but not the terminal


async def test_closing_the_manager_ends_every_terminal_tree(
    tmp_path: Path, root: Path, cleanup: list[watchdog.Proc]
) -> None:
    families = []
    async with TerminalManager(RootSet(str(root)), kill_grace=0.2) as terms:
        for n in range(2):
            argv = stubborn_agent(tmp_path / f"t{n}.json", "terminal")
            await terms.create(argv[0], argv[1:], {}, None, None)
        for n in range(2):
            procs = await anyio.to_thread.run_sync(wait_for_pids, tmp_path / f"t{n}.json")
            cleanup.extend(procs.values())
            families.append(procs)
        with anyio.fail_after(20):
            await terms.close()
    for procs in families:
        assert survivors(procs) == []


def test_the_watchdog_ends_guarded_trees_when_its_pipe_closes(
    tmp_path: Path, cleanup: list[watchdog.Proc]
) -> None:
    token, since = reaper.new_token(), reaper.spawn_time()
    kept_token, kept_since = reaper.new_token(), reaper.spawn_time()
    env = reaper.marked_env(os.environ, token)
    kept_env = reaper.marked_env(os.environ, kept_token)
    with (
        subprocess.Popen(stubborn_agent(tmp_path / "a.json", "terminal"), env=env,
                         start_new_session=True) as guarded,
        subprocess.Popen(stubborn_agent(tmp_path / "b.json", "terminal"), env=kept_env,
                         start_new_session=True) as forgotten,
    ):  # fmt: skip
        procs = wait_for_pids(tmp_path / "a.json")
        kept = wait_for_pids(tmp_path / "b.json")
        cleanup.extend([*procs.values(), *kept.values()])
        script = Path(watchdog.__file__)
        dog = subprocess.Popen(
            [sys.executable, "-I", "-S", str(script)], stdin=subprocess.PIPE,
            start_new_session=True,
        )  # fmt: skip
        assert dog.stdin is not None
        lines = [
            f"+ {guarded.pid} {procs['leader'].start} {since} {token}",
            f"+ {forgotten.pid} {kept['leader'].start} {kept_since} {kept_token}",
            "nonsense that is ignored",
            f"- {forgotten.pid}",
        ]
        dog.stdin.write(("\n".join(lines) + "\n").encode())
        dog.stdin.close()
        assert dog.wait(timeout=20) == 0
        assert guarded.wait(timeout=5) == -signal.SIGKILL  # it ignores SIGTERM
        assert survivors(procs) == []
        assert sorted(survivors(kept)) == sorted(kept)  # forgotten: left alone
        forgotten.kill()


def test_members_never_takes_a_reused_pid_or_an_older_process() -> None:
    me = watchdog.read_stat(os.getpid())
    assert me is not None
    parent = watchdog.read_stat(os.getppid())
    assert parent is not None
    # A root whose pid now names a process with another start time: nothing is its.
    reused = watchdog.Root(parent.pid, parent.start + 1, 0, "t")
    assert parent.pid not in watchdog.members([reused])
    # Processes that started before the root was spawned are never members.
    late = watchdog.Root(parent.pid, parent.start, parent.start + 10**9, "t")
    assert watchdog.members([late]) == {}
    assert watchdog.members([]) == {}


def test_parse_reads_only_well_formed_commands() -> None:
    assert watchdog.parse("+ 12 34 30 abc\n") == watchdog.Root(12, 34, 30, "abc")
    assert watchdog.parse("+ 12 -1 30 abc") == watchdog.Root(12, None, 30, "abc")
    assert watchdog.parse("- 12") == 12
    for bad in ("", "+ 12", "+ x 1 2 t", "- x", "* 1", "+ 1 2 3 4 5"):
        assert watchdog.parse(bad) is None


def test_marked_env_keeps_an_outer_acp_tuis_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(watchdog.MARKER, raising=False)
    assert reaper.marked_env({"A": "1"}, "t1") == {"A": "1", watchdog.MARKER: "t1"}
    monkeypatch.setenv(watchdog.MARKER, "outer")
    assert reaper.marked_env({watchdog.MARKER: "forged"}, "t2")[watchdog.MARKER] == "outer:t2"
