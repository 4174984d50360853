"""Provides AppProcess: one acp-tui app started for one browser page, and its clean end.

The app runs as ``python -m acp_tui ARGS`` under Textual's web driver, in a session of its own
(no signal meant for the server's terminal reaches it), with the server's environment, so it
reads the same config and data (``ACP_TUI_HOME`` included), except the serve token. It is the
root of a process tree (`acp_tui.client.process.reaper`): its agents and their children carry
its marker, so they are found even after they left its process group, and the watchdog ends
them if the server dies without doing it.

`stop` ends it the way Ctrl+Q would (a ``quit`` meta packet: the app stops its agents as it
always does), and after ``quit_grace`` seconds sends SIGTERM, then SIGKILL, to whatever is left
of the tree; it sweeps the tree even when the app exited by itself, so a crashed app leaves no
agent behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from acp_tui.client.process import reaper, watchdog
from acp_tui.serve.wire import data_packet, meta_packet, read_packet, read_prelude

__all__ = ["QUIT_GRACE", "TERM_GRACE", "AppProcess", "app_argv", "app_env"]

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
QUIT_GRACE = 2.0
"""How long the app gets to quit by itself (stopping its agents) before its tree is killed."""
TERM_GRACE = 1.5
"""Between SIGTERM and SIGKILL to what is left of the tree."""
KILL_WAIT = 1.0
STDERR_KEPT = 64 * 1024
"""How much of the app's stderr is kept, to show when it fails to start."""

SECRET_ENV = ("ACP_TUI_SERVE_TOKEN",)
"""Variables of the server the app and its agents never see."""


def app_env(base: Mapping[str, str], width: int, height: int) -> dict[str, str]:
    """The app's environment: the server's, without its secrets, with the web driver and the
    page's terminal size."""
    env = {key: value for key, value in base.items() if key not in SECRET_ENV}
    env.update(
        TEXTUAL_DRIVER=WEB_DRIVER,
        TEXTUAL_FPS="60",
        TEXTUAL_COLOR_SYSTEM="truecolor",
        TERM_PROGRAM="acp-tui-serve",
        COLUMNS=str(width),
        ROWS=str(height),
    )
    return env


class AppProcess:
    """One app process: start it, talk to it in packets, stop it with its whole tree."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(env)
        self.process: asyncio.subprocess.Process | None = None
        self.root: watchdog.Root | None = None
        self.stderr_tail: deque[bytes] = deque()
        self._stderr_size = 0
        self._stderr_task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    async def start(self) -> None:
        """Start the app; raises OSError when it cannot be."""
        token = reaper.new_token()
        since = reaper.spawn_time()
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.cwd,
            env=reaper.marked_env(self.env, token),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=1024 * 1024,
        )
        self.root = reaper.guard(self.process.pid, token, since, "app")
        self._stderr_task = asyncio.create_task(self._drain_stderr())

    async def wait_started(self) -> bool:
        """Wait for the app's prelude; False if it ended (or printed garbage) instead."""
        return await read_prelude(self._stdout())

    async def read(self) -> tuple[bytes, bytes] | None:
        """The app's next packet (type, payload); None once its output ended."""
        return await read_packet(self._stdout())

    def _stdout(self) -> asyncio.StreamReader:
        if self.process is None or self.process.stdout is None:
            raise RuntimeError("the app was not started")
        return self.process.stdout

    async def send_keys(self, text: str) -> None:
        await self._write(data_packet(text.encode("utf-8", "replace")))

    async def send_meta(self, meta: dict[str, Any]) -> None:
        await self._write(meta_packet(meta))

    async def _write(self, packet: bytes) -> None:
        process = self.process
        if process is None or process.stdin is None or process.stdin.is_closing():
            return
        try:
            process.stdin.write(packet)
            await process.stdin.drain()
        except (ConnectionError, RuntimeError):
            pass  # the app is gone; its end is seen on its output

    async def _drain_stderr(self) -> None:
        if self.process is None or self.process.stderr is None:
            return
        stderr = self.process.stderr
        while chunk := await stderr.read(8192):
            self.stderr_tail.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr_size > STDERR_KEPT and len(self.stderr_tail) > 1:
                self._stderr_size -= len(self.stderr_tail.popleft())

    async def _discard_output(self) -> None:
        """Read the app's output into the void until it ends (see `stop`)."""
        if self.process is not None and self.process.stdout is not None:
            with contextlib.suppress(ConnectionError, RuntimeError):  # RuntimeError: read already
                while await self.process.stdout.read(65536):
                    pass

    def stderr_text(self) -> str:
        return b"".join(self.stderr_tail).decode("utf-8", "replace")

    async def stop(self, quit_grace: float = QUIT_GRACE) -> None:
        """End the app and every process of its tree (see the module docstring); safe to call
        more than once and from several tasks, and finishes even if the caller is cancelled.
        Nothing else may read the app's output meanwhile."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop(quit_grace))
        await asyncio.shield(self._stopping)

    async def _stop(self, quit_grace: float) -> None:
        process = self.process
        if process is None:
            return
        # Nobody reads the screen any more: let it go nowhere, or an app blocked on writing
        # it could not take the quit.
        discard = asyncio.create_task(self._discard_output())
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(quit_grace):  # a stuck app may not even read it
                    await self.send_meta({"type": "quit"})
                    await process.wait()
        if self.root is not None:
            root = self.root
            try:
                await asyncio.to_thread(watchdog.terminate, [root], TERM_GRACE, KILL_WAIT)
            finally:
                reaper.forget(root)
        if process.stdin is not None:
            process.stdin.close()
        with contextlib.suppress(ProcessLookupError):
            if process.returncode is None:  # not a member any more? never leave it running
                process.kill()
        # Done when the app is reaped and its pipes closed; a process that escaped the tree
        # holding one of them must not keep the server from going on.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), KILL_WAIT + 1.0)
        discard.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await discard
        if self._stderr_task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._stderr_task, 1.0)


def app_argv(chat_args: Sequence[str]) -> list[str]:
    """The command line of one app: this Python running acp-tui's chat with ``chat_args``."""
    return [sys.executable, "-m", "acp_tui", *chat_args]
