"""Provides the guard over every process tree acp-tui starts: agents and terminals.

A spawner gives its child ``marked_env`` (the tree's token in ``ACP_TUI_TREE``), takes
``spawn_time`` before spawning and calls ``guard`` right after; once the tree is gone it calls
``forget``. Guarded roots are told to the watchdog (``acp_tui.client.process.watchdog``), started
with the first root, which ends their trees if this process dies without doing it, even by SIGKILL.
``kill_all`` ends every guarded tree at once: the ``atexit`` safety net, and the fallback of a
signal whose graceful exit takes too long (``acp_tui.client.process.exit_signals``).

The tree of a root is found by ``watchdog.members`` (process group, session, the environment
marker, descendants), so a descendant that called ``setsid()`` is found too, even once its
parent has exited. Limit: a process that both leaves the session and drops or hides
``ACP_TUI_TREE`` (a new environment, or a non-dumpable process) is found only while its chain of
parents still leads to the root.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from acp_tui.client.process import watchdog
from acp_tui.client.process.watchdog import MARKER, Proc, Root

if TYPE_CHECKING:
    import subprocess

log = logging.getLogger(__name__)

Kind = Literal["agent", "terminal", "app"]
"""What a root is: an agent, a terminal's command, or an app `acp-tui serve` started."""

__all__ = [
    "MARKER",
    "Kind",
    "Proc",
    "Root",
    "forget",
    "guard",
    "guarded",
    "kill_all",
    "marked_env",
    "new_token",
    "spawn_time",
]


@dataclass(frozen=True, slots=True)
class _Guarded:
    root: Root
    kind: Kind
    owner: int  # the pid of the acp-tui process that started it (a forked child must not kill it)


_guarded: dict[int, _Guarded] = {}


def new_token() -> str:
    """A fresh token naming one tree."""
    return os.urandom(8).hex()


def marked_env(env: Mapping[str, str], token: str) -> dict[str, str]:
    """``env`` with the tree's token added to the ``ACP_TUI_TREE`` this process inherited.

    Tokens of an outer acp-tui are kept, so its trees still include this one's.
    """
    inherited = os.environ.get(MARKER, "")
    marked = dict(env)
    marked[MARKER] = f"{inherited}:{token}" if inherited else token
    return marked


def spawn_time() -> int:
    """Take just before spawning: the root and its descendants start no earlier."""
    return watchdog.boot_ticks() - 1


def guard(pid: int, token: str, since: int, kind: Kind) -> Root:
    """Register a root that was just spawned (and tell the watchdog)."""
    proc = watchdog.read_stat(pid)
    start = proc.start if proc is not None else None
    if start is not None:
        since = min(since, start)
    root = Root(pid, start, since, token)
    _guarded[pid] = _Guarded(root, kind, os.getpid())
    _WATCHDOG.watch(root)
    return root


def forget(root: Root) -> None:
    """The root's tree is gone: stop guarding it."""
    entry = _guarded.get(root.pid)
    if entry is not None and entry.root == root:
        del _guarded[root.pid]
        _WATCHDOG.forget(root)


def guarded(kind: Kind | None = None) -> list[Root]:
    """The roots this process started and still guards (of one kind, or all)."""
    me = os.getpid()
    return [
        entry.root
        for entry in _guarded.values()
        if entry.owner == me and (kind is None or entry.kind == kind)
    ]


def kill_all(kind: Kind | None = None, grace: float = 0.0) -> None:
    """End every guarded tree now: SIGTERM, ``grace`` seconds, then SIGKILL; forget them."""
    roots = guarded(kind)
    if not roots:
        return
    try:
        watchdog.terminate(roots, grace, kill_wait=1.0)
    except Exception:  # a safety net must not fail on the way out
        log.exception("killing the process trees failed")
    for root in roots:
        forget(root)


class _Watchdog:
    """The client side of the watchdog process: started lazily, told about roots."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def watch(self, root: Root) -> None:
        if self._running():
            self._write(_watch_line(root))
        else:
            self._start()  # tells it every guarded root, this one included

    def forget(self, root: Root) -> None:
        if self._fd is not None:
            self._write(f"- {root.pid}\n")

    def close(self) -> None:
        """Close our end: the watchdog ends what it still guards, then exits."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def forked(self) -> None:
        """In a forked child: the pipe is the parent's, and so is the watchdog."""
        self.close()
        self._process = None

    def _running(self) -> bool:
        return self._fd is not None and self._process is not None and self._process.poll() is None

    def _start(self) -> bool:
        import subprocess

        self.close()
        read_end, write_end = os.pipe()  # both close-on-exec: no child inherits the write end
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "watchdog.py")
        argv = [sys.executable, "-I", "-S", script]
        if not os.path.isfile(script):
            argv = [sys.executable, "-m", "acp_tui.client.process.watchdog"]
        try:
            self._process = subprocess.Popen(
                argv,
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                start_new_session=True,  # no signal meant for acp-tui's group or terminal
            )
        except (OSError, ValueError) as exc:
            log.warning("cannot start the process watchdog: %s", exc)
            os.close(write_end)
            return False
        finally:
            os.close(read_end)
        self._fd = write_end
        self._write("".join(_watch_line(root) for root in guarded()))
        return True

    def _write(self, text: str) -> None:
        if self._fd is None or not text:
            return
        try:
            os.write(self._fd, text.encode("ascii"))
        except OSError as exc:  # it died: the next root starts a new one
            log.warning("the process watchdog is gone: %s", exc)
            self.close()


def _watch_line(root: Root) -> str:
    start = -1 if root.start is None else root.start
    return f"+ {root.pid} {start} {root.since} {root.token}\n"


_WATCHDOG = _Watchdog()


def watchdog_pid() -> int | None:
    """The watchdog process's pid, once started (for tests)."""
    return _WATCHDOG.pid


def _at_exit() -> None:
    kill_all(grace=0.0)
    _WATCHDOG.close()


atexit.register(_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCHDOG.forked)
