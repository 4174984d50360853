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


def cpu_seconds(pid: int) -> float:
    """The CPU time of every thread of ``pid`` so far, to the nanosecond (Linux schedstat;
    NaN elsewhere): unlike the wall time, it moves little with what else the machine runs."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as file:
                total += int(file.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")
    return total / 1e9


def first_frame(argv: list[str], marker: bytes, env: dict[str, str], cwd: Path) -> float:
    """Seconds from fork to the first frame that shows ``marker``."""
    return first_frame_and_cpu(argv, marker, env, cwd)[0]


def first_frame_and_cpu(
    argv: list[str], marker: bytes, env: dict[str, str], cwd: Path
) -> tuple[float, float]:
    """Seconds from fork to the first frame that shows ``marker``, and the CPU seconds the
    program had used by then."""
    start = time.perf_counter()
    pid, fd = os.forkpty()
    if pid == 0:  # the child
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    elapsed = cpu = float("nan")
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
                cpu = cpu_seconds(pid)
                break
    finally:
        stop(pid, fd)
    return elapsed, cpu


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
        bare_times, app_times, bare_cpu, app_cpu = [], [], [], []
        for _ in range(runs):
            wall, cpu = first_frame_and_cpu(bare, b"bare Textual", env, project)
            bare_times.append(wall)
            bare_cpu.append(cpu)
            wall, cpu = first_frame_and_cpu(app, b"ACP v1", env, project)
            app_times.append(wall)
            app_cpu.append(cpu)
    app_s = statistics.median(app_times)
    bare_s = statistics.median(bare_times)
    app_c, bare_c = statistics.median(app_cpu), statistics.median(bare_cpu)
    return {
        "bench": "startup",
        "first_frame_s": round(app_s, 4),
        "bare_textual_first_frame_s": round(bare_s, 4),
        "ratio": round(app_s / bare_s, 3),
        # The CPU each had used by its first frame: steadier than the wall time on a busy
        # machine, where another process's burst lands on one run and not the next.
        "first_frame_cpu_s": round(app_c, 4),
        "bare_textual_first_frame_cpu_s": round(bare_c, 4),
        "cpu_ratio": round(app_c / bare_c, 3),
        # Each run starts the two programs back to back: the median of the runs' own ratios
        # cancels the machine's speed, which drifts from one run to the next on a shared machine.
        "pair_ratio": round(
            statistics.median(app / bare for app, bare in zip(app_times, bare_times, strict=True)),
            3,
        ),
        "pair_cpu_ratio": round(
            statistics.median(app / bare for app, bare in zip(app_cpu, bare_cpu, strict=True)), 3
        ),
        "runs": runs,
    }
