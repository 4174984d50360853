"""Provides PageSession: one browser page's websocket joined to one app process.

Keys and size changes go from the page to the app; the app's screen goes to the page. When
either side ends (the tab closed, the connection dropped and the heartbeat noticed, the user
quit the app, the server stops), the other is ended too: the app and its agents are stopped
(`AppProcess.stop`), and only then is the session's slot free.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from acp_tui.serve.app_process import AppProcess
from acp_tui.serve.slots import Slot
from acp_tui.serve.wire import ProtocolError, browser_message

__all__ = ["MAX_URL", "PageSession", "openable_url"]

MAX_URL = 8192
"""The longest link handed to the page to open."""


def openable_url(meta: dict[str, Any]) -> str | None:
    """The link of an ``open_url`` meta packet if the page may open it: http or https only
    (a ``javascript:`` link opened by the page would run in it, next to its token)."""
    url = meta.get("url")
    if not isinstance(url, str) or len(url) > MAX_URL:
        return None
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in ("http", "https") or any(ord(c) < 0x21 or c == "\x7f" for c in url):
        return None
    return url


def _text_for_terminal(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-8", "replace")


class PageSession:
    """Run one page against one app until either ends, then end both."""

    def __init__(
        self,
        websocket: web.WebSocketResponse,
        app: AppProcess,
        slot: Slot,
        *,
        say: Callable[[str], None],
        name: str,
    ) -> None:
        self.websocket = websocket
        self.app = app
        self.slot = slot
        self.say = say
        self.name = name
        self.done = asyncio.Event()

    async def run(self) -> None:
        """Start the app, relay both ways until one side ends, then stop the app."""
        pump: asyncio.Task[None] | None = None
        try:
            try:
                await self.app.start()
            except OSError as exc:
                await self._tell_page(f"acp-tui could not be started: {exc}\n")
                return
            self.say(f"{self.name}: started acp-tui (pid {self.app.pid})")
            pump = asyncio.create_task(self._app_to_page())
            await self._page_to_app()
        finally:
            self.slot.close()
            if pump is not None:
                pump.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pump
            await self.app.stop()
            self.slot.release()
            with contextlib.suppress(Exception):
                await self.websocket.close()
            self.say(f"{self.name}: ended, with its app and agents")
            self.done.set()

    async def end(self) -> None:
        """Close the page's connection (the server stops); `run` then stops the app."""
        with contextlib.suppress(Exception):
            await self.websocket.close(code=1001, message=b"acp-tui serve stopped")

    async def _page_to_app(self) -> None:
        async for message in self.websocket:
            if message.type != WSMsgType.TEXT:
                continue  # the page sends text only; closing and errors end the loop
            checked = browser_message(message.data)
            if checked is None:
                continue
            if checked.kind == "stdin":
                await self.app.send_keys(checked.text)
            elif checked.kind == "resize":
                await self.app.send_meta(
                    {"type": "resize", "width": checked.width, "height": checked.height}
                )
            elif checked.kind == "ping":
                await self.websocket.send_str(json.dumps(["pong", checked.text]))
            else:
                await self.app.send_meta({"type": checked.kind})

    async def _app_to_page(self) -> None:
        """Relay the app's screen until it ends, then close the page's connection."""
        try:
            if not await self.app.wait_started():
                await self.app.stop(quit_grace=0.5)
                printed = self.app.stderr_text().strip()
                await self._tell_page(
                    "acp-tui did not start.\n" + (printed[-4000:] + "\n" if printed else "")
                )
                return
            while (packet := await self.app.read()) is not None:
                kind, payload = packet
                if kind == b"D":
                    await self.websocket.send_bytes(payload)
                elif kind == b"M":
                    await self._on_meta(payload)
        except ProtocolError as exc:
            self.say(f"{self.name}: {exc}")
        except ConnectionError:
            return  # the page is gone: the other direction ends the session
        with contextlib.suppress(Exception):
            await self.websocket.close()

    async def _on_meta(self, payload: bytes) -> None:
        try:
            meta = json.loads(payload)
        except ValueError:
            return
        if not isinstance(meta, dict) or meta.get("type") != "open_url":
            return  # "exit": the process ends, or starts its next app; the rest is unused
        url = openable_url(meta)
        if url is None:
            self.say(f"{self.name}: the app asked to open a link that is not http(s); refused")
            return
        # Always a new tab: the page itself must stay, or its session would end.
        await self.websocket.send_str(json.dumps(["open_url", {"url": url, "new_tab": True}]))

    async def _tell_page(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.send_bytes(_text_for_terminal(text))
