"""Provides run_in_pty: run a command on the real terminal, and keep the end of what it printed.

A terminal login is interactive (it may ask for a code, open a browser, show a menu), so it runs
on the user's terminal while the app is suspended. If it fails, the user should still see why
once the app is back: the command runs in a pseudo-terminal whose output is passed through to the
real one and its last few kilobytes kept. Keys go to it as typed (raw mode), and the window size
is passed on. Without a terminal (stdin not a tty) it simply runs, its output captured.

The command is a guarded tree (``acp_tui.client.process.reaper``), like an agent: if acp-tui is
ended while it runs (SIGTERM, a hang-up, even SIGKILL through the watchdog), it ends too. ``Stop``
ends it from another thread: the app quitting cannot wait for a login that may never finish.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time
import tty
from pathlib import Path

from acp_tui.client.process import reaper

__all__ = ["KEEP", "Stop", "run_in_pty"]

KEEP = 4096
"""How many bytes of the output are kept (the end of it)."""
STOP_GRACE = 1.0
"""After ``Stop``, how long the command has between SIGTERM and SIGKILL."""


class Stop:
    """Ends a ``run_in_pty`` from another thread (a pipe its loop also waits on)."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        self.stopped = False

    def fileno(self) -> int:
        return self._read

    def set(self) -> None:
        """Stop the command (once; later calls do nothing)."""
        if not self.stopped:
            self.stopped = True
            with contextlib.suppress(OSError):
                os.write(self._write, b"x")

    def close(self) -> None:
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)


def run_in_pty(
    argv: list[str], env: dict[str, str], cwd: Path, stop: Stop | None = None
) -> tuple[int, str]:
    """Run ``argv``; returns its exit code (negative: killed by that signal) and the end of its
    output. Raises OSError when it cannot be started."""
    token = reaper.new_token()
    env = reaper.marked_env(env, token)
    if not sys.stdin.isatty():
        return _run_captured(argv, env, cwd, token, stop)
    since = reaper.spawn_time()
    pid, master = pty.fork()
    if pid == 0:  # the child: becomes the command
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        except OSError as exc:
            os.write(2, f"cannot run {argv[0]}: {exc.strerror or exc}\n".encode())
        os._exit(127)
    root = reaper.guard(pid, token, since, "terminal")
    tail = bytearray()
    stdin = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin)
    status: int | None = None
    try:
        _copy_window_size(stdin, master)
        tty.setraw(stdin)
        if not _pump(master, stdin, tail, stop):
            status = _end(pid)
    finally:
        termios.tcsetattr(stdin, termios.TCSAFLUSH, saved)
        with contextlib.suppress(OSError):
            os.close(master)
        if status is None:
            status = os.waitpid(pid, 0)[1]
        reaper.forget(root)
    return os.waitstatus_to_exitcode(status), bytes(tail).decode("utf-8", "replace")


def _run_captured(
    argv: list[str], env: dict[str, str], cwd: Path, token: str, stop: Stop | None
) -> tuple[int, str]:
    """Without a terminal: run it with its output captured (still guarded and stoppable)."""
    since = reaper.spawn_time()
    child = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    root = reaper.guard(child.pid, token, since, "terminal")
    tail = bytearray()
    try:
        assert child.stdout is not None
        output = child.stdout.fileno()
        waiting: list[int | Stop] = [output, *([stop] if stop is not None else [])]
        while True:
            readable, _, _ = select.select(waiting, [], [])
            if stop is not None and stop in readable:
                _signal_group(child.pid, signal.SIGTERM)
                try:
                    child.wait(STOP_GRACE)
                except subprocess.TimeoutExpired:
                    _signal_group(child.pid, signal.SIGKILL)
                break
            data = os.read(output, 4096)
            if not data:
                break
            tail.extend(data)
            del tail[:-KEEP]
        return child.wait(), bytes(tail).decode("utf-8", "replace")
    finally:
        if child.stdout is not None:
            child.stdout.close()
        reaper.forget(root)


def _end(pid: int) -> int:
    """End the command's process group (SIGTERM, then SIGKILL after ``STOP_GRACE``) and reap
    it; its wait status."""
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.02)
    _signal_group(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _copy_window_size(source: int, target: int) -> None:
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(source, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(target, termios.TIOCSWINSZ, size)


def _pump(master: int, stdin: int, tail: bytearray, stop: Stop | None) -> bool:
    """Copy the command's output to the terminal (keeping its end) and the keys to it, until it
    ends (True) or ``stop`` is set (False)."""
    stdout = sys.stdout.fileno()
    waiting: list[int | Stop] = [master, stdin, *([stop] if stop is not None else [])]
    while True:
        readable, _, _ = select.select(waiting, [], [])
        if stop is not None and stop in readable:
            return False
        if master in readable:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the command ended and closed its side
                return True
            if not data:
                return True
            os.write(stdout, data)
            tail.extend(data)
            del tail[:-KEEP]
        if stdin in readable:
            keys = os.read(stdin, 1024)
            if keys:
                with contextlib.suppress(OSError):
                    os.write(master, keys)
