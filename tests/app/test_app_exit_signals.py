"""The real app in a pseudo-terminal ends every process it started, however it is ended.

``python -m acp_tui -- stubborn_agent.py`` runs in a pty that is its controlling terminal. The
scripted agent ignores EOF and SIGTERM, starts a group child, a setsid child and a daemon, and
asks the app for a terminal running the same family. Then the app gets Ctrl+Q, SIGTERM, SIGINT,
a real hangup (the pty's master is closed: the kernel sends SIGHUP) or SIGKILL; every process of
both trees, and the watchdog, must be gone within a bound. All but SIGKILL must take the way
Ctrl+Q takes (the agent's log shows EOF, then SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.client.process import watchdog
from acp_tui.config.paths import Paths
from tests.reap_helpers import (
    acp_tui,
    kill_all,
    stopped_like_ctrl_q,
    stubborn_agent,
    wait_for_child,
    wait_for_pids,
    wait_gone,
)

pytestmark = pytest.mark.skipif(not watchdog.have_proc(), reason="needs Linux /proc")

# Becomes the session leader with the pty as its controlling terminal, then runs acp-tui.
LOGIN_TTY = (
    "import os, sys; os.login_tty(os.open(sys.argv[1], os.O_RDWR)); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
)


class PtyApp:
    """A command running in a new pty; its output is drained so it never blocks on writing."""

    def __init__(self, argv: list[str], cwd: Path, rows: int = 30, cols: int = 100) -> None:
        self.master, self.slave = os.openpty()
        slave = self.slave  # kept open here: without an open slave, reading the master fails
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", LOGIN_TTY, os.ttyname(slave), *argv[1:]],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.output = bytearray()
        self._stop = threading.Event()
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _drain(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output += data

    def hang_up(self) -> None:
        """Close the terminal, as closing its window does."""
        self._stop.set()
        self._drainer.join()
        for fd in (self.master, self.slave):
            if fd >= 0:
                os.close(fd)
        self.master = self.slave = -1

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.hang_up()


@pytest.fixture
def cleanup() -> Iterator[list[watchdog.Proc]]:
    procs: list[watchdog.Proc] = []
    yield procs
    kill_all(procs)


@pytest.mark.parametrize(
    "how", ["ctrl+q", signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL], ids=str
)
def test_the_app_ends_the_agent_and_terminal_trees(
    how: str | signal.Signals, tmp_path: Path, acp_home: Paths, cleanup: list[watchdog.Proc]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # The agent's command runs without a question (the terminal dialog is tested elsewhere).
    acp_home.config_file.parent.mkdir(parents=True, exist_ok=True)
    acp_home.config_file.write_text('terminal = "allow"\n')
    agent = stubborn_agent(tmp_path / "agent.json", "session", str(tmp_path / "terminal.json"))
    app = PtyApp(acp_tui("--", *agent), cwd=project)
    try:
        procs = wait_for_pids(tmp_path / "agent.json", app.process)
        terminal = wait_for_pids(tmp_path / "terminal.json", app.process)
        procs.update({f"terminal {name}": proc for name, proc in terminal.items()})
        procs["watchdog"] = wait_for_child(app.process.pid, "watchdog")
        cleanup.extend(procs.values())
        if isinstance(how, str):  # Ctrl+Q
            os.write(app.master, b"\x11")
        elif how == signal.SIGHUP:
            app.hang_up()  # the kernel sends SIGHUP to the session leader: acp-tui
        else:
            app.process.send_signal(how)
        code = app.process.wait(timeout=40)
    finally:
        app.close()
    if isinstance(how, str):
        assert code == 0
    else:
        assert code == (-how if how == signal.SIGKILL else 128 + how)
    wait_gone(procs)
    if how != signal.SIGKILL:  # the normal way out, not the fallback
        assert stopped_like_ctrl_q(acp_home.log_dir)
