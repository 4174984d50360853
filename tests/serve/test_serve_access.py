"""`acp-tui serve` refuses what it must, before any process starts: a wrong or missing token, a
page of another site (its Origin), a name of another site in Host (DNS rebinding); and serves
its page, with headers that keep it out of frames, caches and Referer, only with the token."""

from __future__ import annotations

import aiohttp
import pytest
from yarl import URL

from tests.serve_helpers import ServeFactory, demo

SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


async def test_a_wrong_or_missing_token_gets_403_and_starts_nothing(serve: ServeFactory) -> None:
    served = serve(*demo())
    assert served.url.startswith("http://127.0.0.1:")
    assert len(served.token) >= 43
    wrong = served.token[:-1] + ("A" if served.token[-1] != "A" else "B")
    async with aiohttp.ClientSession() as http:
        for path in ["/", f"/{wrong}/", f"/{wrong}/static/textual.js", f"/{served.token}x/", "/ws"]:
            async with http.get(served.base + path) as response:
                assert response.status == 403, path
                assert "token" in await response.text()
        for path in [f"/{wrong}/ws", "/ws", f"/{served.token[:10]}/ws"]:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(
                    served.base.replace("http", "ws") + path, origin=served.origin
                )
            assert refused.value.status == 403
    assert served.processes() == []  # no app, no agent, not even a watchdog
    assert "refused a request" in served.stderr()


async def test_the_page_and_its_files_need_the_token_and_come_with_safe_headers(
    serve: ServeFactory,
) -> None:
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        async with http.get(served.url) as page:
            assert page.status == 200
            html = await page.text()
            for name, value in SECURITY_HEADERS.items():
                assert page.headers[name] == value
            assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert "static/textual.js" in html
        assert "googleapis" not in html  # nothing is loaded from another site
        async with http.get(served.url.rstrip("/"), allow_redirects=False) as bare:
            assert bare.status == 308
            assert bare.headers["Location"] == f"/{served.token}/"
        async with http.get(served.url + "static/textual.js") as script:
            assert script.status == 200
            assert script.content_type == "application/javascript"
            assert b"WebSocket" in await script.read()
        async with http.get(served.url + "static/RobotoMono.ttf") as font:
            assert font.status == 200
        for missing in ["static/..%2F..%2Fpage.py", "static/page.py", "static/", "static/.."]:
            async with http.get(URL(served.url + missing, encoded=True)) as response:
                assert response.status == 404, missing
        async with http.post(served.url, data=b"x") as posted:
            assert posted.status == 405
    assert served.processes() == []  # a page alone starts nothing: its websocket does


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://127.0.0.1:1",  # another server of this machine
        "null",  # a sandboxed frame or a file
        None,  # no browser sends a websocket without one
    ],
)
async def test_a_websocket_from_another_page_gets_403_and_starts_nothing(
    serve: ServeFactory, origin: str | None
) -> None:
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(served.ws_url, origin=origin)
    assert refused.value.status == 403
    assert served.processes() == []
    assert "another site" in served.stderr()


async def test_a_host_name_of_another_site_is_refused_on_loopback(serve: ServeFactory) -> None:
    """A page of evil.example that made its name lead to 127.0.0.1 (DNS rebinding) is
    refused even with the token: such a page could read the answers."""
    served = serve(*demo())
    async with aiohttp.ClientSession() as http:
        host = f"evil.example:{served.port}"
        async with http.get(served.url, headers={"Host": host}) as page:
            assert page.status == 403
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(served.ws_url, origin=f"http://{host}", headers={"Host": host})
        assert refused.value.status == 403
        async with http.get(served.url, headers={"Host": f"localhost:{served.port}"}) as ok:
            assert ok.status == 200
    assert served.processes() == []
