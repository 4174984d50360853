"""Helpers for the `acp-tui serve` tests: the real command, and every process it started.

`start_serve` runs ``python -m acp_tui serve --port 0 ...`` as the user would, with this test's
``ACP_TUI_HOME``, and reads the URL it prints. Each server gets a marker in its environment,
inherited by everything it starts (apps, agents, watchdogs), so `Served.processes` finds
exactly those through ``/proc``, whatever else runs on the machine.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from acp_tui.client.process import watchdog
from acp_tui.client.process.watchdog import Proc

MARK = "ACP_TUI_TEST_SERVE"
URL_LINE = re.compile(r"acp-tui is served at (http://\S+/)")
STARTS_WITHIN = 60.0
GONE_WITHIN = 10.0
"""The issue's bound: a closed page's app and agents are gone within 10 s."""


def marked(mark: str) -> list[Proc]:
    """The running processes whose environment carries ``MARK=mark``."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for proc in watchdog.snapshot().values():
        if proc.pid == os.getpid() or proc.zombie:
            continue
        try:
            environ = Path(f"/proc/{proc.pid}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(proc)
    return found


def cmdline(proc: Proc) -> str:
    try:
        return Path(f"/proc/{proc.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_until(predicate: Callable[[], bool], within: float, what: str) -> float:
    """Poll ``predicate`` (bounded); the seconds it took. Fails with ``what`` on timeout."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > within:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.05)
    return time.monotonic() - started


@dataclass
class Served:
    """A running `acp-tui serve` and what it printed."""

    process: subprocess.Popen[bytes]
    url: str
    mark: str
    stderr_file: Path

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT`` (no token)."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def origin(self) -> str:
        return self.base

    @property
    def token(self) -> str:
        return urlsplit(self.url).path.strip("/")

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 80

    @property
    def ws_url(self) -> str:
        return f"ws://{urlsplit(self.url).netloc}/{self.token}/ws"

    def stderr(self) -> str:
        return self.stderr_file.read_text(errors="replace")

    def processes(self) -> list[Proc]:
        """Everything this server started and still runs (not the server itself)."""
        return [p for p in marked(self.mark) if p.pid != self.process.pid]

    def apps(self) -> list[Proc]:
        """The apps the server runs. A child an app has forked and not exec'd yet still has
        its command line, and is no second app (a run once counted one as such)."""
        found = [p for p in self.processes() if re.search(r"-m acp_tui (?!serve)", cmdline(p))]
        pids = {p.pid for p in found}
        return [p for p in found if p.ppid not in pids]

    def agents(self) -> list[Proc]:
        return [p for p in self.processes() if "acp_tui.demo_agent" in cmdline(p)]

    def sessions(self) -> list[Proc]:
        """The apps and agents (the server's own watchdog, which stays, left out)."""
        return self.apps() + self.agents()

    def wait_no_sessions(self, within: float = GONE_WITHIN) -> float:
        return wait_until(
            lambda: not self.sessions(),
            within,
            f"every app and agent gone; left: {[cmdline(p) for p in self.sessions()]}",
        )

    def stop(self, sig: signal.Signals = signal.SIGINT, within: float = 30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(within)


def serve_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "acp_tui", "serve", *args]


def start_serve(
    *args: str, cwd: Path, stderr_file: Path, env: dict[str, str] | None = None
) -> Served:
    """Start `acp-tui serve --port 0 ARGS` in ``cwd`` and wait for its URL."""
    mark = uuid.uuid4().hex
    environment = dict(os.environ if env is None else env)
    environment[MARK] = mark
    with stderr_file.open("wb") as err:
        process = subprocess.Popen(
            serve_argv("--port", "0", *args),
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    assert process.stdout is not None
    printed = b""
    deadline = time.monotonic() + STARTS_WITHIN
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while (match := URL_LINE.search(printed.decode(errors="replace"))) is None:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                process.wait()
                raise AssertionError(
                    f"no URL from acp-tui serve: {printed!r}\n{stderr_file.read_text()}"
                )
            if selector.select(0.1):
                printed += os.read(process.stdout.fileno(), 4096)
    return Served(process, match.group(1), mark, stderr_file)


@contextlib.contextmanager
def serving(*args: str, cwd: Path, stderr_file: Path) -> Iterator[Served]:
    """A server for the block; afterwards it is stopped and nothing it started is left."""
    served = start_serve(*args, cwd=cwd, stderr_file=stderr_file)
    try:
        yield served
    finally:
        with contextlib.suppress(subprocess.TimeoutExpired):
            served.stop()
        if served.process.poll() is None:
            served.process.kill()
            served.process.wait()
        if served.process.stdout is not None:
            served.process.stdout.close()
        # A failed test must not leave its apps and agents behind (ours only: by marker).
        watchdog.send(marked(served.mark), signal.SIGKILL)


ServeFactory = Callable[..., Served]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServeFactory]:
    """Start `acp-tui serve --port 0 ARGS...` in a project of this test; stopped afterwards."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    stack = contextlib.ExitStack()
    count = iter(range(1000))

    def start(*args: str, cwd: Path = project) -> Served:
        log = tmp_path / f"serve-{next(count)}.stderr"
        return stack.enter_context(serving(*args, cwd=cwd, stderr_file=log))

    with stack:
        yield start


def demo(*args: str) -> Sequence[str]:
    """The arguments for the bundled demo agent."""
    return ("-a", "demo", *args)
