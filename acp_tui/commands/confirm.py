"""Provides confirm: a yes/no question on the terminal for the headless commands (delete,
prune), asked without blocking the agent's connection."""

from __future__ import annotations

import contextlib
import sys
import threading

import anyio
import anyio.from_thread
import anyio.lowlevel

from acp_tui.client.safe_text import sanitize

__all__ = ["confirm"]


async def confirm(question: str) -> bool:
    """Ask on the terminal (stderr, stdin) without blocking the agent's connection."""
    answer: list[str] = []
    done = anyio.Event()
    token = anyio.lowlevel.current_token()

    def ask() -> None:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"{sanitize(question)} [y/N] ")
            sys.stderr.flush()
            answer.append(sys.stdin.readline())
        with contextlib.suppress(RuntimeError):  # the command is gone already (interrupted)
            anyio.from_thread.run_sync(done.set, token=token)

    # A daemon thread: an interrupted command must not wait for a line that never comes.
    threading.Thread(target=ask, name="confirm", daemon=True).start()
    await done.wait()
    return bool(answer) and answer[0].strip().lower() in ("y", "yes")
