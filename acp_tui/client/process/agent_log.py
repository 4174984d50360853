"""Provides AgentLog: the log file of one agent's stderr, bounded, written off the event loop.

One file per run, ``<name>-<date>-<time>-<pid>.log`` in the log directory, opened with a header
(the command, its cwd, when), closed with a footer (the exit code and the signals sent). The
file stops growing at MAX_LOG_BYTES so an agent flooding stderr cannot fill the disk; a file
that cannot be opened or written is logged and given up, never an error of the agent's run.
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import TextIO

import anyio.to_thread

from acp_tui.client.process.command import AgentCommand

__all__ = ["MAX_LOG_BYTES", "AgentLog"]

log = logging.getLogger(__name__)

MAX_LOG_BYTES = 16 * 1024 * 1024
"""A log file stops growing here so an agent flooding stderr cannot fill the disk."""


class AgentLog:
    """The stderr log of ``command``, run as process ``pid``, in ``log_dir``."""

    def __init__(self, command: AgentCommand, pid: int, log_dir: Path) -> None:
        self.command = command
        self.pid = pid
        self.log_dir = log_dir
        self.path: Path | None = None
        """The file, once it is open."""
        self._file: TextIO | None = None
        self._bytes = 0

    async def open(self) -> None:
        safe_name = re.sub(r"[^A-Za-z0-9._-]+", "_", self.command.name).strip("._")[:64] or "agent"
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.log_dir / f"{safe_name}-{stamp}-{self.pid}.log"
        header = (
            f"# acp-tui: agent {self.command.name!r} pid {self.pid} started "
            f"{time.strftime('%Y-%m-%d %H:%M:%S %z')}\n# argv: {list(self.command.argv)!r}\n"
            f"# cwd: {self.command.cwd or os.getcwd()}\n"
        )

        def open_log() -> TextIO:
            path.parent.mkdir(parents=True, exist_ok=True)
            file = path.open("a", encoding="utf-8", errors="replace")
            file.write(header)
            file.flush()
            return file

        try:
            self._file = await anyio.to_thread.run_sync(open_log)
            self.path = path
        except OSError as exc:
            log.warning("cannot open the log %s of agent %s: %s", path, self.command.name, exc)

    async def write(self, text: str) -> None:
        file = self._file
        if file is None or not text or self._bytes >= MAX_LOG_BYTES:
            return
        self._bytes += len(text)
        if self._bytes >= MAX_LOG_BYTES:
            text += f"\n# acp-tui: log truncated at {MAX_LOG_BYTES} bytes\n"

        def write() -> None:
            file.write(text)
            file.flush()

        try:
            await anyio.to_thread.run_sync(write)
        except OSError as exc:
            log.warning("cannot write the log of agent %s: %s", self.command.name, exc)
            self._bytes = MAX_LOG_BYTES

    async def close(self, footer: str) -> None:
        """Write ``footer`` (a line) and close the file, if it is open."""
        file, self._file = self._file, None
        if file is None:
            return

        def finish() -> None:
            try:
                file.write(footer)
            finally:
                file.close()

        try:
            await anyio.to_thread.run_sync(finish)
        except OSError as exc:
            log.warning("cannot close the log of agent %s: %s", self.command.name, exc)
