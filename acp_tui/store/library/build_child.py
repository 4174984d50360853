"""Provides ChildBuild: a big first build of the history library, in a process of its own.

A first build reads every local transcript (a gigabyte for ten thousand long sessions): a minute
or more of CPU, most of it parsing JSON in Python. In the app's process that work holds the GIL
in turns with the event loop, and on a busy machine the loop waits for it (stalls of 50 to
100 ms were measured, with the build's thread at a lower priority or not). So a build of more
than `CHILD_BYTES` (or a transcript that big, rewritten whole: a long session's copy replaced
by the agent's replay) runs in a child process (``python -m acp_tui.store.library.build_child DB
TRANSCRIPTS``), at a lower priority, with a GIL of its own: the app's writer thread only relays
its progress and serves the app's own writes meanwhile (SQLite takes the two writers in turns,
each step of the build being one short transaction).

The child prints its progress as a JSON line now and then, and stops at its next step once its
standard input closes (the app quit, or was killed). Whatever it did not index, the writer
thread catches up itself, as it does after a small build: a child that cannot start (a frozen
app, no interpreter) only makes the build run in the app's process, as before.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["CHILD_BYTES", "ChildBuild", "Progress", "main"]

log = logging.getLogger(__name__)

CHILD_BYTES = 16_000_000
"""A build (or a transcript rewritten whole) with more than this to read is indexed in a child
process: about two seconds of parsing, against a tenth of a second to start the child."""
NICER = 10
"""How much nicer than the app the child is (its build yields the CPU to the app)."""
PROGRESS_EVERY = 0.2
STOP_WAIT = 5.0

Progress = tuple[int, int, int, int]
"""Sessions done, sessions to do, bytes read, bytes to read."""


class ChildBuild:
    """The app's side of a build in a child process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.finished = False
        """The child's output ended (it is done, or gone)."""
        self.error: str | None = None
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, name="library-build-output", daemon=True).start()

    @classmethod
    def start(
        cls,
        db_path: Path,
        transcripts_root: Path,
        only: Sequence[tuple[int, Path]] | None = None,
    ) -> ChildBuild | None:
        """Start the child; None when it cannot be started (the caller builds itself).
        ``only``: catch up these transcripts (session row id, path) instead of planning a
        whole build (one long copy being rewritten, say)."""
        if getattr(sys, "frozen", False):
            return None  # a bundled app's executable is the app itself, not Python
        package_parent = str(Path(__file__).resolve().parents[3])
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, path]))}
        argv = [sys.executable, "-m", __name__, str(db_path), str(transcripts_root)]
        if only is not None:
            argv += ["--only", json.dumps([[session, str(where)] for session, where in only])]
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        except OSError as exc:
            log.info("the history library builds in the app: no child process (%s)", exc)
            return None
        return cls(process)

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        with contextlib.suppress(OSError, ValueError):
            for line in stdout:
                self._lines.put(line)
        self._lines.put(None)

    def progress(self, timeout: float) -> Progress | None:
        """The latest progress the child gave within ``timeout`` seconds (None: none new);
        ``finished`` is set once its output ends."""
        latest: Progress | None = None
        deadline = time.monotonic() + timeout
        while not self.finished:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                self.finished = True
                break
            latest = self._parse(line) or latest
            if self._lines.empty():
                break
        return latest

    def _parse(self, line: bytes) -> Progress | None:
        try:
            data = json.loads(line)
        except ValueError:
            return None
        if isinstance(data, dict):
            self.error = str(data.get("error"))
            return None
        if isinstance(data, list) and len(data) == 4 and all(isinstance(n, int) for n in data):
            return (data[0], data[1], data[2], data[3])
        return None

    def stop(self) -> None:
        """Close the child's input (it stops at its next step) and wait for it, briefly."""
        stdin = self.process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError):
                stdin.close()
        try:
            self.process.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.error:
            log.warning("the history library's build process failed: %s", self.error)


# -- the child -----------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    """Build the library at ``argv[0]`` from the transcripts under ``argv[1]`` (only the
    transcripts of ``--only JSON``, a list of [session row id, path], when given)."""
    from acp_tui.store.library import schema
    from acp_tui.store.library.build import BuildPlan, plan_build
    from acp_tui.store.library.catchup import catch_up_step

    db_path, root = Path(argv[0]), Path(argv[1])
    only = json.loads(argv[3]) if argv[2:3] == ["--only"] else None
    with contextlib.suppress(AttributeError, OSError):
        os.nice(NICER)
    stopped = threading.Event()
    threading.Thread(target=_wait_for_eof, args=(sys.stdin.fileno(), stopped), daemon=True).start()
    try:
        conn = schema.connect(db_path)
        if only is not None:
            plan = BuildPlan([(int(session), Path(where)) for session, where in only])
        else:
            conn.execute("BEGIN IMMEDIATE")
            plan = plan_build(conn, root)
            conn.execute("COMMIT")
        total = len(plan.transcripts)
        read, shown = 0, 0.0
        for number, (session, path) in enumerate(plan.transcripts):
            while True:
                if stopped.is_set():
                    return 1
                step = catch_up_step(conn, session, path)
                read += step.read
                if time.monotonic() - shown >= PROGRESS_EVERY:
                    shown = time.monotonic()
                    _say([number, total, read, plan.bytes])
                if step.done:
                    break
        _say([total, total, read, plan.bytes])
        conn.close()
    except Exception as exc:  # the app catches up itself, and says what goes wrong then
        _say({"error": f"{type(exc).__name__}: {exc}"})
        return 2
    return 0


def _wait_for_eof(fd: int, stopped: threading.Event) -> None:
    """Set ``stopped`` once the app closes our input (raw reads: a daemon thread blocked in a
    buffered read aborts the interpreter at exit)."""
    with contextlib.suppress(OSError):
        while os.read(fd, 4096):
            pass
    stopped.set()


def _say(data: object) -> None:
    try:
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        raise SystemExit(1) from None  # nobody reads: the app is gone


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
