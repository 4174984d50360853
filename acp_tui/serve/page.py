"""Provides what the serve server sends that is not the app: the page, its files, refusals.

The page is ours (textual-serve's own template loads its font from Google's servers and shows
its logo); its terminal is textual-serve's script (xterm.js and the websocket protocol), loaded
from the installed package, never from the network. Every response carries headers that keep
the page out of frames and caches and its address (with the token) out of ``Referer``.
"""

from __future__ import annotations

import html
import importlib.util
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "SECURITY_HEADERS",
    "Asset",
    "MissingFrontEnd",
    "busy_page",
    "busy_text",
    "find_assets",
    "terminal_page",
]

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "font-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cache-Control": "no-store",
}
"""On every response: no framing (clickjacking), no sniffing, no token in a ``Referer``, no
access from a page this one opens (``window.opener``), nothing kept in the browser's cache."""

OWN_STATIC = Path(__file__).resolve().parent / "static"
_FROM_TEXTUAL_SERVE = {
    "textual.js": ("js/textual.js", "application/javascript"),
    "xterm.css": ("css/xterm.css", "text/css"),
    "RobotoMono.ttf": ("fonts/RobotoMono-VariableFont_wght.ttf", "font/ttf"),
    "RobotoMono-Italic.ttf": ("fonts/RobotoMono-Italic-VariableFont_wght.ttf", "font/ttf"),
}
_OWN = {
    "acp-serve.js": "application/javascript",
    "acp-serve.css": "text/css",
}


class MissingFrontEnd(Exception):
    """textual-serve (the terminal's script) is not installed, or not as expected."""


@dataclass(frozen=True, slots=True)
class Asset:
    """A file the page loads, read once when the server starts."""

    body: bytes
    content_type: str


def find_assets() -> dict[str, Asset]:
    """The page's files by name (``static/NAME``): textual-serve's terminal and fonts, ours.

    Found through the package's location, without importing it (its server module would
    bring Rich along).
    """
    spec = importlib.util.find_spec("textual_serve")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise MissingFrontEnd(
            "textual-serve is not installed; install it with: pip install 'acp-tui[serve]'"
        )
    static = Path(locations[0]) / "static"
    assets: dict[str, Asset] = {}
    try:
        for name, (path, content_type) in _FROM_TEXTUAL_SERVE.items():
            assets[name] = Asset((static / path).read_bytes(), content_type)
        for name, content_type in _OWN.items():
            assets[name] = Asset((OWN_STATIC / name).read_bytes(), content_type)
    except OSError as exc:
        raise MissingFrontEnd(f"a file of the page is missing: {exc}") from None
    return assets


_PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="preload" href="static/RobotoMono.ttf" as="font" type="font/ttf" crossorigin>
<link rel="stylesheet" href="static/xterm.css">
<link rel="stylesheet" href="static/acp-serve.css">
<script src="static/textual.js"></script>
</head>
<body>
<div id="terminal" class="textual-terminal" data-font-size="{font_size}"></div>
<div id="ended">This session has ended. <a href="./">Start a new one</a></div>
<script src="static/acp-serve.js"></script>
</body>
</html>
"""


def terminal_page(title: str, font_size: int = 16) -> str:
    """The page with the app's terminal (the websocket address is set by ``acp-serve.js``)."""
    return _PAGE.format(title=html.escape(title), font_size=int(font_size))


_BUSY = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>acp-tui: all sessions in use</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="static/acp-serve.css">
</head>
<body>
<div id="busy" style="padding: 16px 24px">
<h1>All {limit} sessions are in use</h1>
<p>This acp-tui server runs at most {limit} at once (<code>--max-sessions {limit}</code>), and
each open page of it is one. Close one of those pages, then
<a href="./">load this page again</a>.</p>
</div>
</body>
</html>
"""


def busy_page(limit: int) -> str:
    """The page shown instead of a new session when every slot belongs to an open page."""
    return _BUSY.format(limit=int(limit))


def busy_text(limit: int) -> bytes:
    """The same, written into a page's terminal when its websocket is refused."""
    return (
        f"\x1b[2J\x1b[H\x1b[1mAll {limit} sessions of this acp-tui server are in use.\x1b[0m\r\n"
        f"It runs at most {limit} at once (--max-sessions {limit}). Close another page of it,"
        "\r\nthen load this one again.\r\n"
    ).encode()
