"""`acp-tui serve` in a real browser: headless Chromium opens the page, types into it, and reads
what its terminal shows (xterm.js's buffer, see `tests.browser.cdp`), with the demo agent
behind it as a real process.

``ACP_TUI_SCREENSHOTS=DIR`` also saves the page as ``DIR/serve.png`` (the README's picture:
``ACP_TUI_SCREENSHOTS=screenshots pytest tests/browser -k reply``).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from aiohttp import web

from acp_tui.config.paths import Paths
from tests.browser.cdp import VIEWPORT, Chromium, Tab
from tests.serve_helpers import GONE_WITHIN, Served, ServeFactory, demo

pytestmark = pytest.mark.browser

STARTS_WITHIN = 60.0
CTRL = 2
"""The modifier bit of Ctrl in the DevTools protocol's key events."""
QUIET = 1.0
"""Longer than the dialogs' quiet time (0.8 s): after it they take keys."""


SCREENSHOT_PROJECT = Path("/tmp/acp-tui-screenshots/weather-app")
"""The project of the README's picture: a fixed path, as in ``scripts/screenshots.py``."""


def screenshots_folder() -> Path | None:
    folder = os.environ.get("ACP_TUI_SCREENSHOTS")
    return Path(folder) if folder else None


async def until(predicate: Callable[[], object], within: float, what: str) -> float:
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > within:
            raise AssertionError(f"not within {within} s: {what}")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def open_chat(chromium: Chromium, served: Served) -> Tab:
    """A new tab on the server's page, once its app shows the prompt and the agent is ready."""
    tab = await chromium.new_tab()
    await tab.navigate(served.url)
    await tab.wait_screen(lambda text: "ready" in text and "Message the agent" in text, 60)
    await tab.focus_terminal()
    return tab


async def send(tab: Tab, prompt: str) -> None:
    await tab.type(prompt)
    await tab.press("enter")


async def until_page(tab: Tab, expression: str, within: float = 30.0) -> None:
    """Wait until ``expression`` is true in the page."""
    started = time.monotonic()
    while not await tab.evaluate(expression):
        if time.monotonic() - started > within:
            raise AssertionError(f"not within {within} s: {expression}")
        await asyncio.sleep(0.05)


def flat(text: str) -> str:
    """The screen's text with its runs of spaces (and line ends) made one space."""
    return " ".join(text.split())


def agent_history(paths: Paths) -> str:
    """Everything the demo agent recorded of its sessions (it keeps them on disk)."""
    return "\n".join(
        path.read_text(errors="replace") for path in paths.demo_agent_dir.rglob("*.jsonl")
    )


async def test_a_prompt_typed_in_the_page_reaches_the_agent_and_its_reply_is_shown(
    serve: ServeFactory, chromium: Chromium, acp_home: Paths, tmp_path: Path
) -> None:
    project = SCREENSHOT_PROJECT if screenshots_folder() else tmp_path / "weather-app"
    project.mkdir(parents=True, exist_ok=True)
    served = serve(*demo(), cwd=project)
    tab = await open_chat(chromium, served)
    await send(tab, "hello from a browser tab")
    text = await tab.wait_screen(lambda text: "You said:" in text, 30)
    assert text.count("hello from a browser tab") >= 2  # the prompt, and the reply echoing it
    assert "hello from a browser tab" in agent_history(acp_home)  # the agent received it
    await send(tab, "plan markdown")
    text = await tab.wait_screen(lambda text: "def greet(name: str)" in text, 30)
    assert "A markdown reply" in text
    assert "Report back" in text  # the plan
    shot = await tab.screenshot()
    assert shot.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(shot[16:20], "big"), int.from_bytes(shot[20:24], "big")
    assert (width, height) == VIEWPORT
    await asyncio.to_thread((tmp_path / "serve.png").write_bytes, shot)
    if folder := screenshots_folder():
        await asyncio.to_thread((folder / "serve.png").write_bytes, shot)
    await tab.close()
    await until(lambda: not served.sessions(), GONE_WITHIN, "the app and agent gone")


async def test_a_permission_dialog_is_answered_in_the_page(
    serve: ServeFactory, chromium: Chromium
) -> None:
    served = serve(*demo())
    tab = await open_chat(chromium, served)
    await send(tab, "permission")
    text = await tab.wait_screen(lambda text: "Allow once" in text, 30)
    assert "Edit config.json" in text
    await asyncio.sleep(QUIET)  # no key until the keyboard was quiet: a late Enter picks nothing
    await tab.press("a")
    text = await tab.wait_screen(lambda text: "You chose" in text, 30)
    assert "You chose Allow once (allow_once), so I turned on debug" in flat(text)
    await tab.press("q", modifiers=CTRL)  # quit: the page says so and offers a new session
    await until_page(tab, "getComputedStyle(document.getElementById('ended')).display !== 'none'")
    await until(lambda: not served.sessions(), GONE_WITHIN, "the app and agent gone")
    await tab.close()


class LinkTarget:
    """A page on this machine for the agent's link: it notes who opened it."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.user_agent = ""
        self.referer: str | None = None

    async def page(self, request: web.Request) -> web.Response:
        self.user_agent = request.headers.get("User-Agent", "")
        self.referer = request.headers.get("Referer")
        self.opened.set()
        return web.Response(text="the agent's page", content_type="text/html")


async def test_a_link_from_the_agent_opens_in_the_pages_browser(
    serve: ServeFactory, chromium: Chromium
) -> None:
    """The URL dialog's `o` opens the link in a new tab of the browser showing the page, not in
    a browser of the server's machine; the link is not given the page's address (the token)."""
    target = LinkTarget()
    app = web.Application()
    app.router.add_get("/done", target.page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        link = f"http://127.0.0.1:{port}/done"
        served = serve(*demo())
        tab = await open_chat(chromium, served)
        await send(tab, f"ask-url never {link}")
        await tab.wait_screen(lambda text: link in text and "Host: 127.0.0.1" in text, 30)
        await asyncio.sleep(QUIET)
        await tab.press("o")
        await until(target.opened.is_set, 30, "the link opened")
        assert "HeadlessChrome" in target.user_agent
        assert target.referer is None  # Referrer-Policy: no-referrer
        pages = [t for t in await chromium.targets() if t["type"] == "page"]
        assert any(t["url"] == link for t in pages)
        assert any(t["url"] == served.url for t in pages)  # the chat stays where it was
        await tab.wait_screen(lambda text: "Opened in your browser" in text, 30)
        await tab.close()
    finally:
        await runner.cleanup()


async def test_the_browser_closing_mid_turn_stops_the_agent_and_the_session_can_be_resumed(
    serve: ServeFactory, chromium: Chromium, acp_home: Paths, tmp_path: Path
) -> None:
    served = serve(*demo())
    tab = await open_chat(chromium, served)
    prompt = "hang on to question seven"
    await send(tab, prompt)
    await tab.wait_screen(lambda text: "I will hang until you cancel" in text, 30)
    assert "working" in await tab.screen()  # the turn runs
    assert len(served.agents()) == 1
    await chromium.stop()  # the whole browser goes, mid-turn
    took = await until(lambda: not served.sessions(), GONE_WITHIN, "the app and agent gone")
    assert took < GONE_WITHIN
    # acp-tui's own copy of the session keeps the prompt.
    indexes = list((acp_home.data_dir / "transcripts").rglob("index.json"))
    recorded = [json.loads(path.read_text()) for path in indexes]
    assert prompt in json.dumps(recorded)
    # A page of a new browser lists it in the session browser and replays it.
    again = Chromium(tmp_path / "second-profile")
    await again.start()
    try:
        tab = await open_chat(again, served)
        await tab.press("b", modifiers=CTRL)
        # The list has the focus (its keys are in the footer); this page's own session is first.
        await tab.wait_screen(lambda text: prompt in text and "Mark R Resume" in text, 30)
        await tab.press("down")
        await tab.press("enter")  # replay it
        text = await tab.wait_screen(lambda text: "❯ " + prompt in text, 30)
        assert "I will hang until you cancel" in text  # the agent replayed what it had said
        await tab.close()
    finally:
        await again.stop()


async def test_twenty_reloads_leave_one_app_and_never_more_than_the_limit(
    serve: ServeFactory, chromium: Chromium
) -> None:
    served = serve(*demo("--max-sessions", "2"))
    tab = await open_chat(chromium, served)
    most = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal most
        while not stop.is_set():
            most = max(most, len(served.apps()))
            time.sleep(0.02)

    counter = threading.Thread(target=count, daemon=True)
    counter.start()
    try:
        for _ in range(20):
            await tab.reload()
            # Its websocket is open, so an app is starting for it, which the next reload ends.
            await until_page(tab, "document.body.classList.contains('-loaded')")
    finally:
        stop.set()
        counter.join()
    await tab.wait_screen(lambda text: "Message the agent" in text, STARTS_WITHIN)
    assert most <= 2
    await until(lambda: len(served.apps()) == 1, GONE_WITHIN, "one app left")
    await until(lambda: len(served.agents()) <= 1, GONE_WITHIN, "at most one agent left")
    assert "in use" not in served.stderr()  # no reload was turned away
    await tab.close()
    await until(lambda: not served.sessions(), GONE_WITHIN, "nothing left")
