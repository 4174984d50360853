"""Provides Server: the aiohttp application of `acp-tui serve`, and how it starts and stops.

Every address is under ``/TOKEN/``: the page (``/TOKEN/``), its files (``/TOKEN/static/NAME``)
and its websocket (``/TOKEN/ws``), which starts one app for as long as it is open. A request
is refused with 403, before anything else happens, when its first path segment is not the
token (compared in constant time) or, on loopback, its ``Host`` is not a loopback name; a
websocket also needs ``Origin`` to be this server's page. A page opened while every slot
belongs to an open page gets a page that says so (503), and its websocket a message in the
terminal, never a new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from acp_tui.serve.access import host_allowed, origin_allowed, same_token
from acp_tui.serve.app_process import KILL_WAIT, QUIT_GRACE, TERM_GRACE, AppProcess, app_env
from acp_tui.serve.page import SECURITY_HEADERS, Asset, busy_page, busy_text, terminal_page
from acp_tui.serve.page_session import PageSession
from acp_tui.serve.slots import Slots
from acp_tui.serve.wire import clamp_size

__all__ = ["HEARTBEAT", "ServeConfig", "Server", "listen"]

HEARTBEAT = 3.0
"""Seconds between pings to each page (without other traffic): a connection that stops
answering is closed within one and a half of these (4.5 s), and its app stopped within
another 4.5 s (`AppProcess.stop`): under the 10 s a dropped page may keep its agents."""
SLOT_WAIT = 10.0
"""How long a new page waits for a slot that is being freed (a reload)."""
MAX_MESSAGE = 1024 * 1024
"""The largest message taken from a page (a paste)."""
STOP_WITHIN = QUIT_GRACE + TERM_GRACE + KILL_WAIT + 2.0
"""How long stopping the server waits for every app and agent to be gone."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class ServeConfig:
    """What the server serves and how."""

    token: str
    app_argv: tuple[str, ...]
    """The command line of one app (``python -m acp_tui ARGS``)."""
    cwd: Path
    """Where each app starts (the session's directory)."""
    max_sessions: int = 4
    loopback_only: bool = True
    """Listening on loopback: only loopback names are accepted in ``Host``."""
    title: str = "acp-tui"
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    """The environment each app's is made from."""


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (its first address); OSError when it cannot be,
    e.g. the port is in use (another server is never shared with: no ``SO_REUSEPORT``)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if not infos:
        raise OSError(f"{host} has no address")
    family, _, _, _, address = infos[0]
    return socket.create_server(address[:2], family=family, backlog=128)


class Server:
    """The web server: its routes, its checks, its page sessions."""

    def __init__(
        self,
        config: ServeConfig,
        assets: Mapping[str, Asset],
        *,
        say: Callable[[str], None] = print,
    ) -> None:
        self.config = config
        self.assets = dict(assets)
        self.say = say
        self.slots = Slots(config.max_sessions)
        self.sessions: set[PageSession] = set()
        self.stopping = False
        self._numbers = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._refusals = 0

    # -- the application -----------------------------------------------------------------

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self.check_access], client_max_size=64 * 1024)
        app.router.add_get("/{token}", self.to_page)
        app.router.add_get("/{token}/", self.page)
        app.router.add_get("/{token}/ws", self.websocket)
        app.router.add_get("/{token}/static/{name}", self.static)
        app.on_response_prepare.append(self.add_headers)
        return app

    @web.middleware
    async def check_access(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The token and the host, before anything else (so before any process starts)."""
        token = request.path.lstrip("/").split("/", 1)[0]
        if not same_token(token, self.config.token):
            return self.refuse(request, "this address needs the token acp-tui serve printed")
        if not host_allowed(request.headers.get("Host"), loopback_only=self.config.loopback_only):
            return self.refuse(request, "this server answers to this machine's names only")
        return await handler(request)

    async def add_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        if not isinstance(response, web.WebSocketResponse):
            response.headers.update(SECURITY_HEADERS)

    def refuse(self, request: web.Request, why: str) -> web.Response:
        self._refusals += 1
        if self._refusals <= 10:
            self.say(f"refused a request from {request.remote}: {why}")
            if self._refusals == 10:
                self.say("(further refusals are not shown)")
        return web.Response(status=403, text=f"403 Forbidden: {why}.\n")

    # -- routes --------------------------------------------------------------------------

    async def to_page(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPPermanentRedirect(f"{request.path}/")

    async def page(self, request: web.Request) -> web.StreamResponse:
        if self.slots.full:
            return web.Response(
                status=503, text=busy_page(self.slots.limit), content_type="text/html"
            )
        return web.Response(text=terminal_page(self.config.title), content_type="text/html")

    async def static(self, request: web.Request) -> web.StreamResponse:
        asset = self.assets.get(request.match_info["name"])
        if asset is None:
            raise web.HTTPNotFound()
        return web.Response(body=asset.body, content_type=asset.content_type)

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """One page's session: an app for as long as the websocket is open."""
        if not origin_allowed(request.headers.get("Origin"), request.headers.get("Host")):
            return self.refuse(request, "a websocket from a page of another site")
        if self.stopping:
            raise web.HTTPServiceUnavailable(text="acp-tui serve is stopping\n")
        slot = await self.slots.take(SLOT_WAIT)
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
        try:
            await websocket.prepare(request)
        except BaseException:
            if slot is not None:
                slot.release()
            raise
        if slot is None:
            with contextlib.suppress(Exception):
                await websocket.send_bytes(busy_text(self.slots.limit))
                await websocket.close(code=1013, message=b"all sessions are in use")
            self.say(f"refused a page from {request.remote}: all {self.slots.limit} in use")
            return websocket
        size = clamp_size(_int(request.query.get("width")), _int(request.query.get("height")))
        width, height = size or (80, 24)
        env = app_env(self.config.env, width, height)
        app = AppProcess(self.config.app_argv, self.config.cwd, env)
        name = f"page {next(self._numbers)} from {request.remote}"
        session = PageSession(websocket, app, slot, say=self.say, name=name)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
        return websocket

    # -- start and stop ------------------------------------------------------------------

    async def start(self, sock: socket.socket) -> None:
        """Serve on the listening ``sock`` (see `listen`)."""
        self._runner = web.AppRunner(
            self.application(), handle_signals=False, access_log=None, shutdown_timeout=1.0
        )
        await self._runner.setup()
        await web.SockSite(self._runner, sock, shutdown_timeout=1.0).start()

    async def stop(self) -> None:
        """Stop taking pages, end every session (its app and agents), then the server."""
        self.stopping = True
        sessions = list(self.sessions)
        for session in sessions:
            await session.end()
        if sessions:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    asyncio.gather(*(s.done.wait() for s in sessions)), STOP_WITHIN
                )
        for session in sessions:  # whatever did not end in time: no process is left
            await session.app.stop(quit_grace=0)
        if self._runner is not None:
            await self._runner.cleanup()


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None
