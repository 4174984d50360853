"""Startup benchmark: process spawn to first frame, acp-tui versus a bare Textual app.

Each program runs under a pseudo-terminal (80x24). The first frame is the first output after
the alternate screen is enabled ("\\x1b[?1049h") that carries the program's own first-screen text.
The program is then asked to quit (ctrl+q), and killed if it does not. acp-tui's marker is
"ACP v1" from its status line, which the first frame shows with the agent's name, the cwd and
"starting the agent…" while the transcript view and the client load just after it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

ALT_SCREEN = b"\x1b[?1049h"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def first_frame(argv: list[str], marker: bytes, env: dict[str, str], cwd: Path) -> float:
    """Seconds from fork to the first frame that shows ``marker``."""
    start = time.perf_counter()
    pid, fd = os.forkpty()
    if pid == 0:  # the child
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    elapsed = float("nan")
    deadline = start + 30
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            seen += data
            at = seen.find(ALT_SCREEN)
            if at >= 0 and marker in seen[at:]:
                elapsed = time.perf_counter() - start
                break
    finally:
        stop(pid, fd)
    return elapsed


def stop(pid: int, fd: int) -> None:
    """Ask the program to quit (ctrl+q), then kill its process group if it lingers."""
    with contextlib.suppress(OSError):
        os.write(fd, b"\x11")
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline:
        try:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                os.read(fd, 65536)
        except OSError:
            pass
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)


def run(runs: int = 11) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        project.mkdir()
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "ACP_TUI_HOME": str(home),
            "PYTHONPATH": str(REPO),
        }
        env.pop("TEXTUAL", None)
        # Both programs run with Python's bytecode cache, as an installed acp-tui does: the
        # warm-up runs below write it if the environment had turned it off.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        python = sys.executable
        bare = [python, str(HERE / "bare_app.py")]
        app = [python, "-m", "acp_tui"]
        first_frame(bare, b"bare Textual", env, project)  # warm the file cache
        first_frame(app, b"ACP v1", env, project)
        bare_times, app_times = [], []
        for _ in range(runs):
            bare_times.append(first_frame(bare, b"bare Textual", env, project))
            app_times.append(first_frame(app, b"ACP v1", env, project))
    app_s = statistics.median(app_times)
    bare_s = statistics.median(bare_times)
    return {
        "bench": "startup",
        "first_frame_s": round(app_s, 4),
        "bare_textual_first_frame_s": round(bare_s, 4),
        "ratio": round(app_s / bare_s, 3),
        "runs": runs,
    }
