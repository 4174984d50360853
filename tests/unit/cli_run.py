"""Runs an `acp-tui` command as the tests need it: as a process, or in the test's own process
as that process would run it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from acp_tui.cli import main
from acp_tui.demo_agent.in_process import AgentStderr

TIMEOUT = 60
"""The longest a command may take (as the subprocesses' timeout)."""


def run_process(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m acp_tui ARGV` as a process, with this test's environment (its ACP_TUI_HOME),
    no stdin and its output kept."""
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *argv],
        env=os.environ.copy(),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def run_here(argv: list[str], cwd: Path | None) -> subprocess.CompletedProcess[str]:
    """``main(argv)`` in this process, in ``cwd``, with an empty stdin and its output kept.

    What the in-process demo agent logs stays out of the command's stderr (a real agent's goes
    to its own). From an async test the command runs on a thread, the test waiting for it as it
    would for a process: the command runs an event loop of its own.
    """
    out, err = io.StringIO(), io.StringIO()
    statuses: list[int] = []
    before = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with (
            mock.patch.object(sys, "stdin", io.StringIO()),
            agent_log_apart(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            if asyncio_running():
                thread = threading.Thread(target=lambda: statuses.append(main(argv)))
                thread.start()
                thread.join(TIMEOUT)
                assert not thread.is_alive(), f"acp-tui {' '.join(argv)} did not end"
            else:
                statuses.append(main(argv))
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(argv, statuses[0], out.getvalue(), err.getvalue())


@contextlib.contextmanager
def agent_log_apart() -> Iterator[None]:
    """The in-process demo agent's records go to its own stderr only, as a process's do."""
    agent_log = logging.getLogger("acp_tui.demo_agent")
    own = AgentStderr()
    agent_log.addHandler(own)
    try:
        with mock.patch.object(agent_log, "propagate", False):
            yield
    finally:
        agent_log.removeHandler(own)


def asyncio_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
