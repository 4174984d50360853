"""Provides exit_signals: SIGTERM, SIGHUP and SIGINT end acp-tui the way Ctrl+Q does.

The first signal asks the running program to exit through its normal path (the app's unmount,
a headless command's cancel scope), which stops every agent as Ctrl+Q does: EOF, then SIGTERM,
then SIGKILL to its whole tree. If that takes longer than ``grace`` seconds, or a second signal
arrives, every guarded tree is killed at once (``acp_tui.client.process.reaper.kill_all``) and the
process exits. The exit status is 128 + the signal's number.

SIGHUP usually means the terminal is gone: stdout and stderr, when they are a terminal that no
longer answers, are pointed at ``/dev/null``, so the way out does not try to draw on it.

The handlers are plain ``signal.signal`` handlers (installed from the main thread before the
event loop starts); they hand over to the running asyncio loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import NoReturn

log = logging.getLogger(__name__)

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
EXIT_GRACE = 10.0
"""How long the normal way out may take after a signal before the trees are killed."""
HARD_GRACE = 0.5
"""On the hard way out, how long the trees get between SIGTERM and SIGKILL."""

RequestExit = Callable[[int], None]
"""Asks the program to exit with this status through its normal path (runs in the loop)."""


class ExitSignals:
    """The handlers, what they received, and the exit status it means."""

    def __init__(self, request_exit: RequestExit | None = None, *, grace: float = EXIT_GRACE):
        self.request_exit = request_exit
        self.grace = grace
        self.received: signal.Signals | None = None
        self._previous: dict[signal.Signals, object] = {}
        self._timer: threading.Timer | None = None

    @property
    def status(self) -> int | None:
        """128 + the first signal received, or None."""
        return None if self.received is None else 128 + self.received.value

    def install(self) -> None:
        """Handle the exit signals (only the main thread can; elsewhere this does nothing)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in EXIT_SIGNALS:
            self._previous[sig] = signal.signal(sig, self.handle)

    def uninstall(self) -> None:
        """Restore the previous handlers and cancel a pending hard exit."""
        if self._timer is not None:
            self._timer.cancel()
        for sig, previous in self._previous.items():
            with suppress(TypeError, ValueError, OSError):
                signal.signal(sig, previous if previous is not None else signal.SIG_DFL)  # type: ignore[arg-type]
        self._previous.clear()

    def handle(self, signum: int, frame: FrameType | None = None) -> None:
        """The signal handler: the normal way out first, the hard one on a second signal."""
        sig = signal.Signals(signum)
        if self.received is not None:
            self.hard_exit(self.received)
        self.received = sig
        if sig == signal.SIGHUP:
            leave_dead_terminal()
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self.request_exit is None:
            self.hard_exit(sig)
        self._timer = threading.Timer(self.grace, self.hard_exit, (sig,))
        self._timer.daemon = True
        self._timer.start()
        loop.call_soon_threadsafe(self._request, sig)

    def _request(self, sig: signal.Signals) -> None:
        assert self.request_exit is not None
        try:
            self.request_exit(128 + sig.value)
        except Exception:
            log.exception("exiting on %s failed", sig.name)
            self.hard_exit(sig)

    def hard_exit(self, sig: signal.Signals) -> NoReturn:
        """Kill every guarded tree and exit now, with 128 + the signal's number."""
        # Not imported here: this module is loaded before the first frame, and if nothing has
        # loaded the reaper yet, no process was started that it would have to kill.
        reaper = sys.modules.get("acp_tui.client.process.reaper")
        try:
            if reaper is not None:
                reaper.kill_all(grace=HARD_GRACE)
        finally:
            for stream in (sys.stdout, sys.stderr):
                with suppress(Exception):
                    stream.flush()
            os._exit(128 + sig.value)


@contextmanager
def exit_signals(
    request_exit: RequestExit | None = None, *, grace: float = EXIT_GRACE
) -> Iterator[ExitSignals]:
    """Handle SIGTERM, SIGHUP and SIGINT while the block runs (see the module docstring).

    ``request_exit`` may also be set later, on the returned object, once the program knows how
    to stop (e.g. inside the event loop). Without it a signal takes the hard way out.
    """
    signals = ExitSignals(request_exit, grace=grace)
    signals.install()
    try:
        yield signals
    finally:
        signals.uninstall()


def leave_dead_terminal(fds: tuple[int, ...] = (1, 2)) -> None:
    """Point stdout and stderr at ``/dev/null`` when they are a terminal that hung up.

    Stdin is left alone: the program stops reading it as it exits (Textual first thing), and
    swapping it under a reader that was just told it is readable would block that reader.
    """
    dead = [fd for fd in fds if _is_dead_terminal(fd)]
    if not dead:
        return
    with suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in dead:
                os.dup2(null, fd)
        finally:
            os.close(null)


def _is_dead_terminal(fd: int) -> bool:
    """A character device, other than ``/dev/null``, that is not (any more) a working terminal."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISCHR(st.st_mode) or os.isatty(fd):
            return False
        return st.st_rdev != os.stat(os.devnull).st_rdev
    except OSError:
        return False
