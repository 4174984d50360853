"""A small Chrome DevTools Protocol client: headless Chromium driven over its websocket.

Python only (aiohttp, which `acp-tui serve` needs anyway), so CI needs no npm and no browser
download: the browser is Debian's ``chromium``. `Chromium` starts it (the flags the machine
notes give for root in a closed network, a fresh profile, a debugging port chosen by the
browser and read from ``DevToolsActivePort``) and ends its whole process group. `Tab` is one
page: navigate, run JavaScript, type, press keys, take a screenshot, and read what the page's
terminal shows from xterm.js's own buffer.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
]
VIEWPORT = (1200, 720)
"""Every tab's size in CSS pixels (and its screenshot's in pixels)."""

TERMINAL_TRAP = """
(() => {
  // textual.js keeps its xterm.js Terminal in a private object (this.terminal = new
  // Terminal(...)). Catch that one assignment, keep the terminal where the test can read it,
  // and take the trap away again.
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      delete Object.prototype.terminal;
      this.terminal = value;
      if (value && typeof value === "object" && "buffer" in value) {
        window.__acpTestTerminal = value;
      }
    },
  });
})();
"""

SCREEN_TEXT = """
(() => {
  const term = window.__acpTestTerminal;
  if (!term) return null;
  const buffer = term.buffer.active;
  const lines = [];
  for (let row = 0; row < term.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
})()
"""

KEYS = {
    "enter": ("Enter", "Enter", 13, "\r"),
    "escape": ("Escape", "Escape", 27, ""),
    "tab": ("Tab", "Tab", 9, "\t"),
    "down": ("ArrowDown", "ArrowDown", 40, ""),
    "up": ("ArrowUp", "ArrowUp", 38, ""),
}


class CdpError(Exception):
    """The browser answered a command with an error."""


class Connection:
    """One websocket to the browser; commands by id, events kept for the waiters."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._event_added = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            if "id" in data:
                future = self._pending.pop(data["id"], None)
                if future is not None and not future.done():
                    if "error" in data:
                        future.set_exception(CdpError(str(data["error"])))
                    else:
                        future.set_result(data.get("result", {}))
            else:
                self.events.append(data)
                self._event_added.set()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(CdpError("the browser closed the connection"))

    async def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> Any:
        number = next(self._ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[number] = future
        await self.ws.send_str(json.dumps(message))
        async with asyncio.timeout(60):
            return await future

    async def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], within: float = 30.0, after: int = 0
    ) -> dict[str, Any]:
        """The first event from number ``after`` on (come or to come) that ``predicate``
        accepts."""
        async with asyncio.timeout(within):
            while True:
                for event in self.events[after:]:
                    if predicate(event):
                        return event
                self._event_added.clear()
                await self._event_added.wait()

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        await self.ws.close()


class Chromium:
    """Headless Chromium in a fresh profile, controlled over the DevTools protocol."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.process: asyncio.subprocess.Process | None = None
        self.http: aiohttp.ClientSession | None = None
        self.cdp: Connection | None = None

    async def start(self) -> None:
        """Start the browser and connect; on any failure nothing is left running."""
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        assert CHROMIUM is not None
        self.profile.mkdir(parents=True, exist_ok=True)
        active = self.profile / "DevToolsActivePort"
        active.unlink(missing_ok=True)  # a profile used before: its port is not this browser's
        self.process = await asyncio.create_subprocess_exec(
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={self.profile}",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "about:blank",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own group: ended whole, and only it
        )
        deadline = time.monotonic() + 60
        while not (active.exists() and len(active.read_text().splitlines()) >= 2):
            if self.process.returncode is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError("chromium did not open its debugging port within 60 s")
            await asyncio.sleep(0.05)
        port, path = active.read_text().splitlines()[:2]
        self.http = aiohttp.ClientSession()
        ws = await self.http.ws_connect(f"ws://127.0.0.1:{port}{path}", max_msg_size=0)
        self.cdp = Connection(ws)

    async def new_tab(self) -> Tab:
        assert self.cdp is not None
        target = await self.cdp.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.cdp.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        tab = Tab(self.cdp, target["targetId"], attached["sessionId"])
        await tab.send("Page.enable")
        await tab.send("Runtime.enable")
        await tab.send("Page.addScriptToEvaluateOnNewDocument", {"source": TERMINAL_TRAP})
        width, height = VIEWPORT
        await tab.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        return tab

    async def targets(self) -> list[dict[str, Any]]:
        assert self.cdp is not None
        return list((await self.cdp.send("Target.getTargets"))["targetInfos"])

    async def stop(self) -> None:
        if self.cdp is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self.cdp.send("Browser.close")
            await self.cdp.close()
        if self.http is not None:
            await self.http.close()
        process = self.process
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the group of the browser we started
            await process.wait()


class Tab:
    """One page of the browser."""

    def __init__(self, cdp: Connection, target: str, session: str) -> None:
        self.cdp = cdp
        self.target = target
        self.session = session

    async def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.cdp.send(method, params, self.session)

    async def navigate(self, url: str) -> None:
        await self.send("Page.navigate", {"url": url})

    async def reload(self) -> None:
        """Reload the page and wait until it has loaded (its scripts have run)."""
        after = len(self.cdp.events)
        await self.send("Page.reload")
        await self.cdp.wait_event(
            lambda e: (
                e.get("method") == "Page.loadEventFired" and e.get("sessionId") == self.session
            ),
            after=after,
        )

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise CdpError(str(result["exceptionDetails"]))
        return result["result"].get("value")

    async def screen(self) -> str:
        """What the page's terminal shows now, row by row (xterm.js's buffer), or ""."""
        return str(await self.evaluate(SCREEN_TEXT) or "")

    async def wait_screen(self, predicate: Callable[[str], bool], within: float = 30.0) -> str:
        """The terminal's text once ``predicate`` accepts it (polled, bounded)."""
        deadline = time.monotonic() + within
        while True:
            text = await self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never showed what was expected; it shows:\n{text}")
            await asyncio.sleep(0.1)

    async def focus_terminal(self) -> None:
        await self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")

    async def type(self, text: str) -> None:
        await self.send("Input.insertText", {"text": text})

    async def press(self, name: str, modifiers: int = 0) -> None:
        """Press and release a key: one of ``KEYS`` or a letter."""
        if name in KEYS:
            key, code, vk, text = KEYS[name]
        else:
            key, code, vk, text = name, f"Key{name.upper()}", ord(name.upper()), name
        if modifiers:
            text = ""
        down = {"type": "keyDown", "key": key, "code": code, "modifiers": modifiers}
        down |= {"windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        if text:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", down)
        up = {"type": "keyUp", "key": key, "code": code, "modifiers": modifiers}
        await self.send("Input.dispatchKeyEvent", up | {"windowsVirtualKeyCode": vk})

    async def screenshot(self) -> bytes:
        """The page as it looks now, as PNG."""
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        return base64.b64decode(shot["data"])

    async def close(self) -> None:
        with contextlib.suppress(CdpError):
            await self.cdp.send("Target.closeTarget", {"targetId": self.target})
