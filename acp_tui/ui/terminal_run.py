"""Provides run_in_pty: run a command on the real terminal, and keep the end of what it printed.

A terminal login is interactive (it may ask for a code, open a browser, show a menu), so it runs
on the user's terminal while the app is suspended. If it fails, the user should still see why
once the app is back: the command runs in a pseudo-terminal whose output is passed through to the
real one and its last few kilobytes kept. Keys go to it as typed (raw mode), and the window size
is passed on. Without a terminal (stdin not a tty) it simply runs, its output captured.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import tty
from pathlib import Path

__all__ = ["KEEP", "run_in_pty"]

KEEP = 4096
"""How many bytes of the output are kept (the end of it)."""


def run_in_pty(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run ``argv``; returns its exit code (negative: killed by that signal) and the end of its
    output. Raises OSError when it cannot be started."""
    if not sys.stdin.isatty():
        done = subprocess.run(
            argv, env=env, cwd=cwd, check=False, stdin=subprocess.DEVNULL, capture_output=True
        )
        output = (done.stdout + done.stderr)[-KEEP:]
        return done.returncode, output.decode("utf-8", "replace")
    pid, master = pty.fork()
    if pid == 0:  # the child: becomes the command
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        except OSError as exc:
            os.write(2, f"cannot run {argv[0]}: {exc.strerror or exc}\n".encode())
        os._exit(127)
    tail = bytearray()
    stdin = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin)
    try:
        _copy_window_size(stdin, master)
        tty.setraw(stdin)
        _pump(master, stdin, tail)
    finally:
        termios.tcsetattr(stdin, termios.TCSAFLUSH, saved)
        with contextlib.suppress(OSError):
            os.close(master)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code, bytes(tail).decode("utf-8", "replace")


def _copy_window_size(source: int, target: int) -> None:
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(source, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(target, termios.TIOCSWINSZ, size)


def _pump(master: int, stdin: int, tail: bytearray) -> None:
    """Copy the command's output to the terminal (keeping its end) and the keys to it."""
    stdout = sys.stdout.fileno()
    while True:
        readable, _, _ = select.select([master, stdin], [], [])
        if master in readable:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the command ended and closed its side
                return
            if not data:
                return
            os.write(stdout, data)
            tail.extend(data)
            del tail[:-KEEP]
        if stdin in readable:
            keys = os.read(stdin, 1024)
            if keys:
                with contextlib.suppress(OSError):
                    os.write(master, keys)
