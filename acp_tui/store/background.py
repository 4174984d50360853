"""Provides BackgroundWrites: file writes done on a thread of their own, in order.

Writing a 50 MB line (an agent's padded update) takes a few hundred milliseconds: on the event
loop, that is a frozen app. A big write goes to one writer thread instead, and every write
after it follows it there until the queue is empty, so the file keeps the order of the calls.
Whatever reads, flushes, moves or closes the files first waits for the queue (``settle``), and
closing the transcripts ends the thread (``close``): a thread left waiting would keep the last
write's report, and with it the app that made it, alive for the life of the process.

An outcome (a full disk, or recovering from one) is reported on the event loop that submitted
the write, never on the writer thread.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable

__all__ = ["BIG_WRITE", "BackgroundWrites"]

log = logging.getLogger(__name__)

BIG_WRITE = 1_000_000
"""Lines longer than this (bytes, or characters before encoding) are written off the loop."""

Job = Callable[[], object]
Report = Callable[[object], None]


class BackgroundWrites:
    """One writer thread (started on first use) and the writes queued for it."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Job, Report, asyncio.AbstractEventLoop] | None] = (
            queue.SimpleQueue()
        )
        self._idle = threading.Condition()
        self._queued = 0
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        """Writes are queued or being done: a write now must queue behind them."""
        return self._queued > 0

    def submit(self, job: Job, report: Report) -> bool:
        """Run ``job`` on the writer thread, then ``report(its result)`` on this thread's
        event loop; False (nothing queued) when no event loop runs here."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        with self._idle:
            self._queued += 1
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="transcript-writer", daemon=True)
            self._thread.start()
        self._queue.put((job, report, loop))
        return True

    def settle(self) -> None:
        """Wait until every queued write is done."""
        if self._queued:
            with self._idle:
                self._idle.wait_for(lambda: self._queued == 0)

    def close(self) -> None:
        """Wait until every queued write is done, and end the writer thread (a write after
        this starts another)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)  # after the writes queued: the thread does them first
            thread.join()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            self._do(*item)

    def _do(self, job: Job, report: Report, loop: asyncio.AbstractEventLoop) -> None:
        try:
            outcome = job()
        except Exception as exc:  # reported like the job's own outcome
            outcome = exc
        try:
            loop.call_soon_threadsafe(report, outcome)
        except RuntimeError:  # the loop is closed: nobody to tell
            log.debug("a background write finished after its event loop closed")
        with self._idle:
            self._queued -= 1
            if self._queued == 0:
                self._idle.notify_all()
