"""Provides the process-tree finder and killer, and the watchdog that uses them after acp-tui dies.

Every agent and terminal acp-tui starts is the root of a tree. The tree is found in ``/proc``
(Linux) as: the root itself, every process of its process group or session, every process whose
environment carries the root's token in ``ACP_TUI_TREE`` (inherited through fork, exec and
``setsid``, so a daemon whose parent already exited is still found), and every descendant of
those by parent pid. Only processes that started after the root was spawned count, so a reused
pid is never taken for a member; signals go through a pidfd opened after the start time was
checked again. Without ``/proc`` (macOS) a tree is its process group.

The watchdog is this module run as a tiny stdlib-only process (``python -I -S watchdog.py``),
started by acp-tui with its first agent or terminal. Its stdin is a pipe whose write end only
acp-tui holds; acp-tui writes ``+ PID START SINCE TOKEN`` to guard a root and ``- PID`` to
forget it. At end of file (acp-tui exited, even by SIGKILL) it sends SIGTERM to every guarded
tree, waits briefly, then SIGKILLs what is left. It reads nothing else and uses no CPU while
waiting.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from collections.abc import Iterable
from typing import NamedTuple

MARKER = "ACP_TUI_TREE"
"""The environment variable whose ``:``-separated tokens name the trees a process belongs to."""
TERM_GRACE = 1.0
"""How long the watchdog waits after SIGTERM before SIGKILL."""
KILL_WAIT = 2.0

_MARKER_PREFIX = MARKER.encode() + b"="
try:
    _TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
except (AttributeError, OSError, ValueError):
    _TICKS_PER_SECOND = 100


class Root(NamedTuple):
    """A process acp-tui started, as the watchdog and the finder know it."""

    pid: int
    start: int | None
    """Its start time in clock ticks after boot (``/proc/PID/stat``), None if unknown."""
    since: int
    """A time before it started: its descendants cannot have started earlier."""
    token: str
    """The value its tree carries in ``ACP_TUI_TREE``."""


class Proc(NamedTuple):
    pid: int
    ppid: int
    pgrp: int
    sid: int
    start: int
    zombie: bool


def have_proc() -> bool:
    """Whether ``/proc`` describes processes (Linux); otherwise trees are process groups."""
    return os.path.exists(f"/proc/{os.getpid()}/stat")


def boot_ticks() -> int:
    """Now, in the clock ticks after boot that ``/proc`` start times use (0 if unknown)."""
    clock = getattr(time, "CLOCK_BOOTTIME", None)
    if clock is None:
        return 0
    return int(time.clock_gettime(clock) * _TICKS_PER_SECOND)


def read_stat(pid: int) -> Proc | None:
    """What ``/proc/PID/stat`` says of a process; None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
        fields = data.rpartition(b")")[2].split()
        ppid, pgrp, sid, start = int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])
        return Proc(pid, ppid, pgrp, sid, start, fields[0] in (b"Z", b"X"))
    except (OSError, ValueError, IndexError):
        return None


def snapshot() -> dict[int, Proc]:
    """Every process ``/proc`` shows (empty without ``/proc``)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    procs: dict[int, Proc] = {}
    for name in names:
        if name.isdigit() and (proc := read_stat(int(name))) is not None:
            procs[proc.pid] = proc
    return procs


def tree_tokens(pid: int) -> frozenset[str]:
    """The tokens in the process's ``ACP_TUI_TREE`` (as it was when it started)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            data = file.read()
    except OSError:
        return frozenset()
    for entry in data.split(b"\0"):
        if entry.startswith(_MARKER_PREFIX):
            value = entry[len(_MARKER_PREFIX) :].decode("ascii", "replace")
            return frozenset(token for token in value.split(":") if token)
    return frozenset()


def members(roots: Iterable[Root], procs: dict[int, Proc] | None = None) -> dict[int, Proc]:
    """The living processes of the trees of ``roots`` (never this process)."""
    roots = list(roots)
    if not roots:
        return {}
    if procs is None:
        procs = snapshot()
    me = os.getpid()
    chosen: dict[int, Proc] = {}
    for root in roots:
        current = procs.get(root.pid)
        # The root's pid names its group and session only while it is not reused, and it is
        # not reused while any process still belongs to them.
        reused = current is not None and root.start is not None and current.start != root.start
        for proc in procs.values():
            if proc.pid == me or proc.start < root.since or proc.pid in chosen:
                continue
            if proc.pid == root.pid:
                if not reused:
                    chosen[proc.pid] = proc
            elif not reused and root.pid in (proc.pgrp, proc.sid):
                chosen[proc.pid] = proc
    since = min(root.since for root in roots)
    tokens = {root.token for root in roots}
    for proc in procs.values():
        if proc.pid == me or proc.pid in chosen or proc.start < since or proc.zombie:
            continue
        if tree_tokens(proc.pid) & tokens:
            chosen[proc.pid] = proc
    children: dict[int, list[Proc]] = {}
    for proc in procs.values():
        children.setdefault(proc.ppid, []).append(proc)
    stack = list(chosen)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child.pid != me and child.pid not in chosen:
                chosen[child.pid] = child
                stack.append(child.pid)
    return {pid: proc for pid, proc in chosen.items() if not proc.zombie}


def _pidfd(proc: Proc) -> int | None:
    """A pidfd for exactly this process (same start time), or None if it is gone."""
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:
        return None
    now = read_stat(proc.pid)
    if now is None or now.start != proc.start:
        os.close(fd)
        return None
    return fd


def send(procs: Iterable[Proc], sig: signal.Signals) -> None:
    """Signal each process, unless its pid now names another process."""
    can_pidfd = hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal")
    for proc in procs:
        if not can_pidfd:
            now = read_stat(proc.pid)
            if now is not None and now.start == proc.start:
                _kill(proc.pid, sig)
            continue
        fd = _pidfd(proc)
        if fd is None:
            continue
        try:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, sig)
        finally:
            os.close(fd)


def _kill(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, sig)


def signal_trees(roots: Iterable[Root], sig: signal.Signals) -> dict[int, Proc]:
    """Send ``sig`` to every process of the trees; returns the processes found."""
    roots = list(roots)
    if not have_proc():
        for root in roots:
            with contextlib.suppress(OSError):
                os.killpg(root.pid, sig)
        return {}
    found = members(roots)
    groups = {proc.pgrp for proc in found.values()} & {root.pid for root in roots}
    for pgid in groups:  # a living member keeps the group id from being reused
        with contextlib.suppress(OSError):
            os.killpg(pgid, sig)  # also reaches a process forked since the snapshot
    send(found.values(), sig)
    return found


def wait_gone(procs: Iterable[Proc], timeout: float) -> bool:
    """Wait until these processes have exited (zombies count as gone); False on timeout."""
    deadline = time.monotonic() + timeout
    fds: dict[int, int] = {}
    polled: list[Proc] = []
    try:
        for proc in procs:
            if not hasattr(os, "pidfd_open"):
                polled.append(proc)
            elif (fd := _pidfd(proc)) is not None:
                fds[fd] = proc.pid
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        while fds or polled:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if polled:
                polled = [p for p in polled if _running(p)]
                time.sleep(min(left, 0.02))
                continue
            for fd, _event in poller.poll(max(1, int(left * 1000))):
                poller.unregister(fd)
                os.close(fd)
                del fds[fd]
        return True
    finally:
        for fd in fds:
            os.close(fd)


def _running(proc: Proc) -> bool:
    now = read_stat(proc.pid)
    return now is not None and now.start == proc.start and not now.zombie


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def trees_alive(roots: Iterable[Root]) -> bool:
    """Whether any process of the trees still runs."""
    roots = list(roots)
    if not have_proc():
        return any(group_alive(root.pid) for root in roots)
    return bool(members(roots))


def wait_trees_gone(roots: Iterable[Root], timeout: float) -> bool:
    """Wait until no process of the trees runs (looking again for late forks); False on timeout."""
    roots = list(roots)
    deadline = time.monotonic() + timeout
    proc = have_proc()
    while True:
        found = members(roots) if proc else {}
        if not found if proc else not trees_alive(roots):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if found:
            wait_gone(found.values(), left)
        else:
            time.sleep(min(left, 0.02))


def terminate(roots: Iterable[Root], grace: float, kill_wait: float = KILL_WAIT) -> bool:
    """SIGTERM the trees, wait up to ``grace``, SIGKILL what is left; True once all are gone."""
    roots = list(roots)
    if grace > 0:
        signal_trees(roots, signal.SIGTERM)
        if wait_trees_gone(roots, grace):
            return True
    signal_trees(roots, signal.SIGKILL)
    return wait_trees_gone(roots, kill_wait)


def parse(line: str) -> Root | int | None:
    """One command from acp-tui: ``+ PID START SINCE TOKEN`` (a root) or ``- PID`` (its pid)."""
    parts = line.split()
    try:
        if len(parts) == 5 and parts[0] == "+":
            start = int(parts[2])
            return Root(int(parts[1]), None if start < 0 else start, int(parts[3]), parts[4])
        if len(parts) == 2 and parts[0] == "-":
            return int(parts[1])
    except ValueError:
        pass
    return None


def main() -> int:
    """Guard what acp-tui says over stdin; once stdin closes, end every guarded tree."""
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    guarded: dict[int, Root] = {}
    for raw in sys.stdin.buffer:
        command = parse(raw.decode("ascii", "replace"))
        if isinstance(command, Root):
            guarded[command.pid] = command
        elif command is not None:
            guarded.pop(command, None)
    if guarded:
        terminate(guarded.values(), TERM_GRACE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
