"""A real pseudo-terminal for the tests: acp-tui as a terminal runs it, keys as terminals send them.

Pilot is not a terminal: it delivers Textual key events, never the bytes a terminal writes, and
it never suspends the driver. ``Terminal`` runs a command in a new pty that is its controlling
terminal (the command is its session leader, as a shell's job would be), sends raw bytes to it,
and keeps the screen it draws in a VT100 emulator (pyte), so a test can wait for what a user
would see. Every byte the command wrote is kept too (``output``), for what a screen cannot show
(an escape sequence that reached the terminal, a write made while the app was suspended).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pyte

__all__ = ["KEYS", "Terminal", "acp_tui_argv"]

# Becomes the session leader with the pty as its controlling terminal, then runs the command.
LOGIN_TTY = (
    "import os, sys; os.login_tty(os.open(sys.argv[1], os.O_RDWR)); "
    "os.execvp(sys.argv[2], sys.argv[2:])"
)

KEYS = {
    "enter": b"\r",
    "escape": b"\x1b",
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "backspace": b"\x7f",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "ctrl+c": b"\x03",
    "ctrl+q": b"\x11",
    "f12": b"\x1b[24~",
}
"""What xterm (and tmux, GNOME Terminal, iTerm) send for these keys."""


def acp_tui_argv(*args: str) -> list[str]:
    """The command line of acp-tui itself, from this checkout's interpreter."""
    return [sys.executable, "-m", "acp_tui", *args]


class Terminal:
    """``argv`` running in a new pseudo-terminal of ``rows`` x ``cols``; use as a context manager.

    The output is read all the time (a program never blocks on writing to it) and drawn on a
    pyte screen. ``hang_up`` closes the terminal as closing its window does (the kernel sends
    SIGHUP to the session leader).
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        env: Mapping[str, str] | None = None,
        rows: int = 30,
        cols: int = 100,
    ) -> None:
        self.rows, self.cols = rows, cols
        self.master, self.slave = os.openpty()
        # The slave stays open here: without an open slave, reading the master fails once the
        # command closes its side, and the test could not tell the end of the output.
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.output = bytearray()
        self.reads: list[tuple[int, float]] = []
        """The output's length after each read from the terminal, and when (monotonic)."""
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        full_env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
        for inherited in ("TEXTUAL", "COLUMNS", "LINES"):  # the size is the pty's, nothing else
            full_env.pop(inherited, None)
        if env is not None:
            full_env.update(env)
        self.process = subprocess.Popen(
            [sys.executable, "-c", LOGIN_TTY, os.ttyname(self.slave), *argv],
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._reading = False
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True, name="pty-reader")
        self._reader.start()

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- output ----------------------------------------------------------------------------------

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.master], [], [], 0.05)
            except (OSError, ValueError):
                return
            if not ready:
                continue
            with self._changed:
                self._reading = True  # what it reads is in neither the terminal nor `output`
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            with self._changed:
                self._reading = False
                if data:
                    self.output += data
                    self.reads.append((len(self.output), time.monotonic()))
                    # pyte may choke on a sequence; the raw bytes are kept anyway.
                    with contextlib.suppress(Exception):
                        self.stream.feed(data)
                self._changed.notify_all()
            if not data:
                return

    def text(self) -> str:
        """What the screen shows now, one line per row (trailing spaces dropped)."""
        with self._lock:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(
        self, what: str | re.Pattern[str] | Callable[[str], bool], timeout: float = 30.0
    ) -> str:
        """Wait until the screen shows ``what`` (text, a pattern, or a predicate of the screen's
        text); returns the screen. Fails with the screen in the message after ``timeout``."""
        if isinstance(what, str):
            found: Callable[[str], bool] = lambda text: what in text  # noqa: E731
        elif isinstance(what, re.Pattern):
            found = lambda text: what.search(text) is not None  # noqa: E731
        else:
            found = what
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if found(text):
                return text
            if self.process.poll() is not None:
                raise AssertionError(
                    f"the program exited ({self.process.returncode}) before the screen showed "
                    f"{what!r}; it showed:\n{text}"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"the screen did not show {what!r} within {timeout} s:\n{text}"
                )
            with self._changed:
                self._changed.wait(min(left, 0.1))

    def read_at(self, data: bytes, start: int = 0) -> float | None:
        """When the first ``data`` from offset ``start`` was read from the terminal (monotonic):
        how late the test acted on what the program wrote is measured from there."""
        with self._lock:
            at = self.output.find(data, start)
            if at < 0:
                return None
            end = at + len(data)
            return next(when for length, when in self.reads if length >= end)

    def wait_for_output(self, data: bytes, timeout: float = 30.0, start: int = 0) -> int:
        """Wait until the raw output from offset ``start`` contains ``data``; returns where."""
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                at = self.output.find(data, start)
                if at >= 0:
                    return at
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{data!r} was not written within {timeout} s")
                self._changed.wait(min(left, 0.1))

    # -- input -----------------------------------------------------------------------------------

    def send(self, data: bytes | str) -> None:
        """Write ``data`` to the terminal as typed (a str is UTF-8 encoded)."""
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def press(self, *keys: str) -> None:
        """Send each named key (``KEYS``) as the terminal would."""
        for key in keys:
            self.send(KEYS[key])

    def type(self, text: str, per_second: float = 30.0, gaps: list[float] | None = None) -> None:
        """Type ``text`` one key at a time, as a person does (a paste is one ``send``).
        ``gaps`` gets the time before each key (the first: since the call): on a loaded
        machine the typist may stall, which a test of the keyboard's pace must tell apart."""
        last = time.monotonic()
        for char in text:
            self.send(char)
            if gaps is not None:
                now = time.monotonic()
                gaps.append(now - last)
                last = now
            time.sleep(1.0 / per_second)

    def resize(self, rows: int, cols: int) -> None:
        """Change the window size (the command gets SIGWINCH)."""
        self.rows, self.cols = rows, cols
        with self._lock:
            self.screen.resize(rows, cols)
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGWINCH)

    # -- the end -----------------------------------------------------------------------------------

    def wait(self, timeout: float = 30.0) -> int:
        """The command's exit status, once it has exited (within ``timeout``) and everything it
        wrote is in ``output`` and on the screen."""
        status = self.process.wait(timeout=timeout)
        self._drain(timeout)
        return status

    def _drain(self, timeout: float) -> None:
        """Wait until the reader has taken in all the terminal holds (within ``timeout``): a
        command's last words are in the terminal when it exits, but a busy machine may not have
        run the reader since (a loaded run once found "not started" missing after the exit)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while time.monotonic() < deadline and self.master >= 0 and self._reader.is_alive():
                if not self._reading:
                    try:
                        unread, _, _ = select.select([self.master], [], [], 0)
                    except (OSError, ValueError):
                        return
                    if not unread:
                        return
                self._changed.wait(0.05)

    def hang_up(self) -> None:
        """Close the terminal, as closing its window does."""
        self._stop.set()
        self._reader.join()
        for fd in (self.master, self.slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = -1

    def close(self) -> None:
        """Kill the command if it still runs, and close the terminal."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.master >= 0:
            self.hang_up()
