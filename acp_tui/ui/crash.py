"""Provides CrashReport: what an unexpected error in the app leaves behind, and the exit status.

Textual ends the app on an uncaught exception with ``return_code`` 1 and prints the traceback
(with the values of local variables) to its ``error_console``, on stderr. Two things were wrong
with that for acp-tui: ``acp-tui`` still exited with 0 (a crash looked like a quit to a shell or
a script), and the traceback holds whatever the error was about, an agent's text included, which
reached the terminal raw. The report takes the error console's place: the traceback goes to a
file in the log directory, sanitised, and stderr gets one line that says where it is. If the
file cannot be written, the sanitised traceback goes to stderr instead.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from rich.console import Console

from acp_tui.ui.plain_text import sanitize

__all__ = ["CrashReport"]

WIDTH = 120
"""The width the traceback is laid out in (a file has none of its own)."""


class CrashReport:
    """Collects what Textual reports of a fatal error; `exit_status` writes it out."""

    def __init__(self, log_dir: Path, log_file: Path | None = None) -> None:
        self.log_dir = log_dir
        self.log_file = log_file
        """The run's log (its warnings before the crash), named beside the details."""
        self.buffer = io.StringIO()
        self.console = Console(
            file=self.buffer, markup=False, highlight=False, color_system=None, width=WIDTH
        )
        """Give this to the app as its ``error_console``."""

    @property
    def details(self) -> str:
        """What Textual reported (the traceback), sanitised; empty when it reported nothing."""
        return sanitize(self.buffer.getvalue())

    def exit_status(self, return_code: int | None, stderr: TextIO | None = None) -> int:
        """The process exit status for the app's ``return_code``; a failure is reported first.

        0 or None: a normal exit, 0. Anything else is an unexpected error: its details are
        written to a new file under ``log_dir`` and one line on ``stderr`` names the file.
        """
        if not return_code:
            return 0
        out = stderr if stderr is not None else sys.stderr
        details = self.details
        head = f"acp-tui: stopped by an unexpected error (exit status {return_code})"
        if not details.strip():
            print(f"{head}; no details were recorded.", file=out)
            return return_code
        try:
            path = self.write(details)
        except OSError as exc:
            print(f"{head}; the details could not be saved ({sanitize(str(exc))}):", file=out)
            print(details, file=out)
            return return_code
        print(f"{head}; the details are in {sanitize(str(path))}", file=out)
        if self.log_file is not None:
            print(f"acp-tui: the log of this run is {sanitize(str(self.log_file))}", file=out)
        return return_code

    def write(self, details: str) -> Path:
        """Write ``details`` to a new file in the log directory; returns its path."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.log_dir / f"acp-tui-crash-{stamp}-{os.getpid()}.log"
        path.write_text(details, encoding="utf-8", errors="replace")
        return path
