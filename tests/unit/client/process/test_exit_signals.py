"""exit_signals: the normal way out first; a timeout or a second signal kills the trees at once.

``acp-tui sessions list`` (the simplest real acp-tui process) is ended by each signal while it
waits for the scripted stubborn agent: the agent's whole tree must be gone, the exit status be
128 + the signal, and (but for SIGKILL) the agent be stopped as Ctrl+Q stops it.

The fallback's tests run a child Python process (a signal test must not end pytest): it guards
the scripted stubborn agent's family, installs the handlers with a ``request_exit`` that never
exits (an app stuck on its way out), and runs an event loop until the signals end it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.client.process import watchdog
from acp_tui.client.process.exit_signals import ExitSignals, leave_dead_terminal
from acp_tui.config.paths import Paths
from tests.reap_helpers import (
    AGENT,
    acp_tui,
    kill_all,
    stopped_like_ctrl_q,
    stubborn_agent,
    wait_for_child,
    wait_for_pids,
    wait_gone,
)

pytestmark = pytest.mark.skipif(not watchdog.have_proc(), reason="needs Linux /proc")

STUCK_PROGRAM = textwrap.dedent(
    """
    import asyncio, os, subprocess, sys
    from acp_tui.client.process import reaper
    from acp_tui.client.process.exit_signals import exit_signals

    pidfile, grace, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    token, since = reaper.new_token(), reaper.spawn_time()
    family = subprocess.Popen(
        [sys.executable, sys.argv[4], pidfile, "terminal"],
        env=reaper.marked_env(os.environ, token), start_new_session=True,
    )
    reaper.guard(family.pid, token, since, "agent")
    asked = []

    async def main():
        open(ready, "w").close()
        await asyncio.sleep(600)

    with exit_signals(asked.append, grace=grace):
        asyncio.run(main())
    """
)


def start_stuck_program(tmp_path: Path, grace: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", STUCK_PROGRAM, str(tmp_path / "pids.json"), str(grace),
         str(tmp_path / "ready"), str(AGENT)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip


def wait_ready(tmp_path: Path, program: subprocess.Popen[bytes]) -> dict[str, watchdog.Proc]:
    """The guarded family, once the program's event loop runs (polled, bounded)."""
    procs = wait_for_pids(tmp_path / "pids.json", program)
    deadline = time.monotonic() + 30
    while not (tmp_path / "ready").exists():
        assert time.monotonic() < deadline, "the program did not start its loop"
        time.sleep(0.02)
    return procs


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name
)
def test_a_stuck_exit_is_cut_short_after_the_grace(sig: signal.Signals, tmp_path: Path) -> None:
    with start_stuck_program(tmp_path, grace=0.5) as program:
        procs = wait_ready(tmp_path, program)
        try:
            program.send_signal(sig)
            _out, err = program.communicate(timeout=30)
        finally:
            kill_all(procs.values())
    assert program.returncode == 128 + sig, err.decode(errors="replace")
    wait_gone(procs)


def test_a_second_signal_does_not_wait_for_the_grace(tmp_path: Path) -> None:
    with start_stuck_program(tmp_path, grace=600) as program:
        procs = wait_ready(tmp_path, program)
        try:
            program.send_signal(signal.SIGTERM)
            with pytest.raises(subprocess.TimeoutExpired):  # the grace is long...
                program.wait(timeout=1)
            program.send_signal(signal.SIGINT)  # ...but a second signal ends it now
            _out, err = program.communicate(timeout=30)
        finally:
            kill_all(procs.values())
    assert program.returncode == 128 + signal.SIGTERM, err.decode(errors="replace")
    wait_gone(procs)


@pytest.fixture
def cleanup() -> Iterator[list[watchdog.Proc]]:
    """Processes to kill if the test fails before they are gone."""
    procs: list[watchdog.Proc] = []
    yield procs
    kill_all(procs)


@pytest.mark.parametrize(
    "sig",
    [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL],
    ids=lambda sig: sig.name,
)
def test_a_headless_command_ends_the_agent_tree_on_any_signal(
    sig: signal.Signals, tmp_path: Path, acp_home: Paths, cleanup: list[watchdog.Proc]
) -> None:
    pidfile = tmp_path / "agent.json"
    command = acp_tui("sessions", "list", "--", *stubborn_agent(pidfile))
    with subprocess.Popen(
        command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
    ) as acp:  # fmt: skip
        try:
            procs = wait_for_pids(pidfile, acp)
            procs["watchdog"] = wait_for_child(acp.pid, "watchdog")
            cleanup.extend(procs.values())
            acp.send_signal(sig)
            _out, err = acp.communicate(timeout=30)
        finally:
            if acp.poll() is None:
                acp.kill()
    expected = -sig if sig == signal.SIGKILL else 128 + sig
    assert acp.returncode == expected, err.decode(errors="replace")
    wait_gone(procs)
    if sig != signal.SIGKILL:  # the normal way out, not the fallback
        assert stopped_like_ctrl_q(acp_home.log_dir)


def test_the_status_names_the_first_signal() -> None:
    signals = ExitSignals()
    assert signals.status is None
    signals.received = signal.SIGHUP
    assert signals.status == 129


def test_output_to_a_terminal_that_hung_up_goes_to_dev_null() -> None:
    master, slave = os.openpty()
    dead, alive = os.dup(slave), None
    try:
        os.close(master)  # the terminal is gone: the slave side hangs up
        os.close(slave)
        other_master, other_slave = os.openpty()
        alive = other_slave
        leave_dead_terminal((dead, alive))
        assert os.readlink(f"/proc/self/fd/{dead}") == os.devnull
        assert os.isatty(alive)  # a working terminal is left alone
        os.close(other_master)
    finally:
        os.close(dead)
        if alive is not None:
            os.close(alive)
