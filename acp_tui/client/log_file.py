"""Provides LogFile: acp-tui's warnings and errors, kept in a file under the state directory.

The client warns about what it skips or cannot do (a line that is not JSON, an update it
cannot read, a reply to no request...). In the app nothing showed those warnings: stderr is
behind the screen. They go to ``<state>/logs/acp-tui.log`` (warnings and up, rotated at 1 MB,
three old files kept), which ``--help`` and the exit and crash messages name; a headless
command also prints them on stderr, as before. Every message is sanitised on its way in: the
file is read in terminals (``tail -f``), and the warnings quote agents.

The agents' notices go there too (``NOTICE_LOGGER``, info ones included), and an agent may send
them by the thousand, as it may cause warnings by the thousand: each logger writes at most
``BURST`` records per ``WINDOW`` seconds, and the next record after a window says how many were
left out ("... 9,880 more from acp_tui.agent_notices not logged"). A flood so costs the file a
few hundred lines, not the three old files that hold the rest of the run.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from pathlib import Path

from acp_tui.client.safe_text import sanitize

__all__ = ["LOG_NAME", "LogFile"]

LOG_NAME = "acp-tui.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
NOTICE_LOGGER = "acp_tui.agent_notices"
"""Logged from info up (`acp_tui.client.session.notices` logs there)."""
BURST = 200
WINDOW = 60.0
"""At most ``BURST`` records of one logger per ``WINDOW`` seconds reach the file."""
_clock = time.monotonic


class _Sanitised(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return sanitize(super().format(record))


class _Rotating(logging.FileHandler):
    """A file handler that moves the file aside (``.1``, ``.2``...) once it passes ``MAX_BYTES``.

    (``logging.handlers`` has one, but importing it costs the first frame about 10 ms.)
    """

    def emit(self, record: logging.LogRecord) -> None:
        if self.stream is not None and self.stream.tell() >= MAX_BYTES:
            self.rotate()
        super().emit(record)

    def rotate(self) -> None:
        self.close()  # the next emit opens the file afresh
        base = self.baseFilename
        with contextlib.suppress(OSError):
            for number in range(BACKUPS - 1, 0, -1):
                if os.path.exists(f"{base}.{number}"):
                    os.replace(f"{base}.{number}", f"{base}.{number + 1}")
            os.replace(base, f"{base}.1")


class _Counter(logging.Handler):
    """Counts this client's warnings (not the agents' notices)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.name != NOTICE_LOGGER:
            self.count += 1


class _Bounded(logging.Filter):
    """Warnings and up, and the agents' notices from info up; at most ``BURST`` records of a
    logger per ``WINDOW`` seconds, the rest counted (said with the next one let through)."""

    def __init__(self) -> None:
        super().__init__()
        self._windows: dict[str, tuple[float, int, int]] = {}
        """Per logger: when its window started, records let through, records left out."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING and record.name != NOTICE_LOGGER:
            return False
        now = _clock()
        started, passed, left_out = self._windows.get(record.name, (now, 0, 0))
        if now - started >= WINDOW:
            started, passed = now, 0
        if passed >= BURST:
            self._windows[record.name] = (started, passed, left_out + 1)
            return False
        self._windows[record.name] = (started, passed + 1, 0)
        if left_out:
            what = "1 more record" if left_out == 1 else f"{left_out:,} more records"
            record.msg = f"(... {what} from {record.name} not logged: a flood) {record.msg}"
        return True


class LogFile:
    """The log file of this run (and, for a headless command, stderr) on the root logger."""

    def __init__(self, log_dir: Path, *, to_stderr: bool = False) -> None:
        self.path = log_dir / LOG_NAME
        self._counter = _Counter()
        self._handlers: list[logging.Handler] = [self._counter]
        self.problem: str | None = None
        """Why the file cannot be written (None: it can)."""
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            # Opened at the first warning: a quiet run writes nothing.
            file = _Rotating(self.path, encoding="utf-8", errors="replace", delay=True)
        except OSError as exc:
            self.problem = str(exc)
        else:
            file.setLevel(logging.INFO)
            file.addFilter(_Bounded())
            file.setFormatter(_Sanitised(FORMAT))
            self._handlers.append(file)
        if to_stderr:
            stream = logging.StreamHandler(sys.stderr)
            stream.setLevel(logging.WARNING)
            stream.setFormatter(_Sanitised("%(message)s"))
            self._handlers.append(stream)

    @property
    def warnings(self) -> int:
        """How many warnings (and worse) this run logged."""
        return self._counter.count

    def install(self) -> LogFile:
        logging.getLogger(NOTICE_LOGGER).setLevel(logging.INFO)
        root = logging.getLogger()
        for handler in self._handlers:
            root.addHandler(handler)
        return self

    def uninstall(self) -> None:
        root = logging.getLogger()
        for handler in self._handlers:
            root.removeHandler(handler)
            handler.close()

    def __enter__(self) -> LogFile:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    def summary(self) -> str | None:
        """One line for the end of a run that logged warnings (None when it logged none)."""
        count = self.warnings
        if not count:
            return None
        what = "1 warning" if count == 1 else f"{count} warnings"
        where = str(self.path) if self.problem is None else f"nowhere ({self.problem})"
        return f"{what} logged this run: {sanitize(where)}"
