"""`acp-tui serve` sessions without a browser: each websocket is one app with its agent, and
every way a page goes (closed, dropped, refused, the server stopped) leaves no process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from acp_tui.config.paths import Paths
from tests.serve_helpers import GONE_WITHIN, Served, ServeFactory, demo, serve_argv

STARTS_WITHIN = 60.0


class Page:
    """A websocket as a page holds it: the screen read as it comes (unless told to stop)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.screen = b""
        self.messages: list[aiohttp.WSMessage] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            self.messages.append(message)
            if message.type == aiohttp.WSMsgType.PING:  # only with autoping=False
                await self.ws.pong(message.data)
            elif message.type == aiohttp.WSMsgType.BINARY:
                self.screen += message.data

    async def stop_reading(self) -> None:
        """From now on the page reads nothing, and so answers no ping: it vanished."""
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader

    async def close(self) -> None:
        await self.stop_reading()
        await self.ws.close()


async def open_page(http: aiohttp.ClientSession, served: Served, **options: Any) -> Page:
    url = served.ws_url + "?width=100&height=30"
    return Page(await http.ws_connect(url, origin=served.origin, **options))


async def until(predicate: Callable[[], object], within: float, what: str) -> float:
    """Poll ``predicate`` without blocking the loop (the websockets need it); seconds taken."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > within:
            raise AssertionError(f"not within {within} s: {what}")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def app_up(page: Page, served: Served, agents: int = 1) -> None:
    """Wait until the page shows the app's prompt and ``agents`` agents run."""
    await until(lambda: b"Message the agent" in page.screen, STARTS_WITHIN, "the app's prompt")
    await until(lambda: len(served.agents()) >= agents, STARTS_WITHIN, "the agent up")


async def test_a_websocket_runs_one_app_and_its_agent_and_closing_it_ends_both(
    serve: ServeFactory,
) -> None:
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        page = await open_page(http, served)
        await app_up(page, served)
        assert len(served.apps()) == 1
        assert len(served.agents()) == 1
        await page.close()
        took = await until(lambda: not served.sessions(), GONE_WITHIN, "the app and agent gone")
    assert took < GONE_WITHIN
    await until(lambda: "ended, with its app and agents" in served.stderr(), 5, "said so")


async def test_with_several_agents_the_page_asks_which_then_runs_the_chat(
    serve: ServeFactory, acp_home: Paths
) -> None:
    """The agent picker and then the chat are two Textual apps in one process: the page gets
    both, as the terminal would."""
    demo_agent = ", ".join(json.dumps(a) for a in ["-m", "acp_tui.demo_agent"])
    acp_home.config_file.parent.mkdir(parents=True)
    acp_home.config_file.write_text(
        "".join(
            f"[agents.{name}]\ncommand = {json.dumps(sys.executable)}\nargs = [{demo_agent}]\n"
            for name in ("first", "second")
        )
    )
    served = serve()
    async with aiohttp.ClientSession() as http:
        page = await open_page(http, served)
        await until(lambda: b"Which agent" in page.screen, STARTS_WITHIN, "the agent picker")
        assert not served.agents()
        await page.ws.send_str(json.dumps(["stdin", "\r"]))  # Enter: the first one
        await app_up(page, served)
        await page.close()


async def test_a_dropped_connection_ends_its_app_and_agent_within_10_s(
    serve: ServeFactory,
) -> None:
    """A connection that stops answering (a laptop closed, a network gone) is noticed by the
    server's pings, not only a tab that says goodbye."""
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        page = await open_page(http, served, autoping=False)  # pings are ours to answer
        await app_up(page, served)
        await page.stop_reading()  # and no pong goes back, as from a peer that vanished
        took = await until(lambda: not served.sessions(), GONE_WITHIN, "the app and agent gone")
        await page.close()
    assert took < GONE_WITHIN


async def test_one_page_more_than_max_sessions_gets_a_clear_page_and_no_process(
    serve: ServeFactory,
) -> None:
    served = serve(*demo("--max-sessions", "1"))
    async with aiohttp.ClientSession() as http:
        first = await open_page(http, served)
        await app_up(first, served)
        async with http.get(served.url) as page:
            assert page.status == 503
            text = await page.text()
        assert "All 1 sessions are in use" in text
        assert "--max-sessions 1" in text
        second = await open_page(http, served)
        await until(lambda: second.reader.done(), 10, "the refused page closed")
        assert b"All 1 sessions of this acp-tui server are in use" in second.screen
        assert second.ws.close_code == 1013  # try again later
        assert len(served.apps()) == 1
        await first.close()
        await until(lambda: not served.sessions(), GONE_WITHIN, "the first app gone")
        third = await open_page(http, served)  # its slot is free again
        await app_up(third, served)
        await third.close()


async def test_a_reopened_page_waits_for_the_slot_its_old_app_is_freeing(
    serve: ServeFactory,
) -> None:
    """A reload closes the old connection as the new one opens: with one slot, the new page
    is not refused while the old app stops, and there is never more than one app."""
    served = serve(*demo("--max-sessions", "1"))
    async with aiohttp.ClientSession() as http:
        old = await open_page(http, served)
        await app_up(old, served)
        await old.close()
        new = await open_page(http, served)
        assert len(served.apps()) <= 1
        await app_up(new, served)
        assert len(served.apps()) == 1
        await new.close()
    assert "in use" not in served.stderr()  # never refused


async def test_ctrl_c_ends_every_app_and_agent_then_the_server(serve: ServeFactory) -> None:
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        pages = [await open_page(http, served) for _ in range(2)]
        for page in pages:
            await app_up(page, served, agents=2)
        assert len(served.agents()) == 2
        served.process.send_signal(signal.SIGINT)
        status = await asyncio.to_thread(served.process.wait, 30)
        for page in pages:
            await page.close()
    assert status == 128 + signal.SIGINT
    await until(lambda: not served.processes(), 5, "no process at all, watchdogs included")
    assert "stopped" in served.stderr()


async def test_sigterm_stops_it_the_same_way(serve: ServeFactory) -> None:
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        page = await open_page(http, served)
        await app_up(page, served)
        served.process.send_signal(signal.SIGTERM)
        status = await asyncio.to_thread(served.process.wait, 30)
        await page.close()
    assert status == 128 + signal.SIGTERM
    await until(lambda: not served.processes(), 5, "no process at all")


async def test_a_killed_server_leaves_no_app_or_agent(serve: ServeFactory) -> None:
    """Even SIGKILL, which it cannot answer: the watchdog it started ends what it guarded."""
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        page = await open_page(http, served)
        await app_up(page, served)
        served.process.kill()
        await asyncio.to_thread(served.process.wait, 10)
        await page.close()
    await until(lambda: not served.processes(), 15, "every app, agent and watchdog gone")


def test_a_second_server_on_a_used_port_says_so(serve: ServeFactory) -> None:
    served = serve(*demo())
    second = subprocess.run(
        serve_argv("--port", str(served.port), "-a", "demo"),
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert second.returncode == 1
    assert f"cannot listen on 127.0.0.1:{served.port}" in second.stderr
    assert "already in use" in second.stderr
    assert second.stdout == ""  # no URL: nothing is served
    assert served.process.poll() is None  # the first one carries on


async def test_the_apps_and_agents_never_see_the_token(
    serve: ServeFactory, monkeypatch: object
) -> None:
    token = "a-token-of-my-own-1234"
    os.environ["ACP_TUI_SERVE_TOKEN"] = token
    try:
        served = serve(*demo())
    finally:
        del os.environ["ACP_TUI_SERVE_TOKEN"]
    assert served.token == token
    async with aiohttp.ClientSession() as http:
        page = await open_page(http, served)
        await app_up(page, served)
        for proc in served.sessions():
            environ = Path(f"/proc/{proc.pid}/environ").read_bytes()  # noqa: ASYNC240
            assert token.encode() not in environ
        await page.close()
