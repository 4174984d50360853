"""Helpers for the reaping tests: real processes, found and waited for through /proc."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from acp_tui.client.process import watchdog
from acp_tui.client.process.watchdog import Proc

AGENT = Path(__file__).resolve().parent / "stubborn_agent.py"
"""The scripted agent that ignores EOF and SIGTERM and starts a group child, a setsid child and
a daemon (see its docstring)."""
GONE_WITHIN = 20.0


def stubborn_agent(pidfile: Path, mode: str = "silent", *extra: str) -> list[str]:
    return [sys.executable, str(AGENT), str(pidfile), mode, *extra]


def acp_tui(*args: str) -> list[str]:
    return [sys.executable, "-m", "acp_tui", *args]


def wait_for_pids(
    pidfile: Path, process: subprocess.Popen[bytes] | None = None, within: float = 60.0
) -> dict[str, Proc]:
    """The processes the scripted agent wrote to ``pidfile``, once it has (polled, bounded)."""
    deadline = time.monotonic() + within
    while not pidfile.exists():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"acp-tui exited early with {process.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{pidfile} was not written within {within} s")
        time.sleep(0.02)
    pids: dict[str, int] = json.loads(pidfile.read_text())
    procs = {name: watchdog.read_stat(pid) for name, pid in pids.items()}
    missing = [name for name, proc in procs.items() if proc is None or proc.zombie]
    assert not missing, f"not running: {missing}"
    return {name: proc for name, proc in procs.items() if proc is not None}


def running(proc: Proc) -> bool:
    """Still running: the same process (same start time), and not a zombie."""
    now = watchdog.read_stat(proc.pid)
    return now is not None and now.start == proc.start and not now.zombie


def survivors(procs: Mapping[str, Proc]) -> list[str]:
    return [name for name, proc in procs.items() if running(proc)]


def wait_gone(procs: Mapping[str, Proc], within: float = GONE_WITHIN) -> None:
    """Wait, bounded, until none of ``procs`` runs (they are not our children: poll /proc)."""
    deadline = time.monotonic() + within
    while survivors(procs):
        if time.monotonic() > deadline:
            raise AssertionError(f"still running after {within} s: {survivors(procs)}")
        time.sleep(0.02)


def children(ppid: int, text: str) -> list[Proc]:
    """The running children of ``ppid`` whose command line contains ``text``."""
    found = []
    for proc in watchdog.snapshot().values():
        if proc.ppid != ppid or proc.zombie:
            continue
        try:
            cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            found.append(proc)
    return found


def wait_for_child(ppid: int, text: str, within: float = 30.0) -> Proc:
    deadline = time.monotonic() + within
    while not (found := children(ppid, text)):
        if time.monotonic() > deadline:
            raise AssertionError(f"no child of {ppid} running {text!r} within {within} s")
        time.sleep(0.02)
    return found[0]


def kill_all(procs: Iterable[Proc]) -> None:
    """Clean up after a failed test (pids checked by start time first)."""
    watchdog.send([proc for proc in procs if running(proc)], signal.SIGKILL)


def stopped_like_ctrl_q(log_dir: Path) -> bool:
    """Whether an agent's log ends as the normal shutdown writes it: EOF, then TERM, then KILL
    (the scripted agent ignores the first two). A hard exit writes no such line."""
    return any(
        "signals sent: SIGTERM, SIGKILL" in log.read_text(errors="replace")
        for log in log_dir.glob("*.log")
    )
