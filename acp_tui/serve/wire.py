"""Provides the two wire formats the serve server translates between.

To and from the app (Textual's web driver, on the app's stdin and stdout): packets of one type
byte, a 4-byte big-endian length and the payload. ``D`` carries terminal bytes (the screen
out, the keys in), ``M`` a JSON object (meta: ``resize``, ``focus``, ``blur``, ``quit`` in;
``exit``, ``open_url`` out), ``P`` data we do not use (file deliveries). Before its first
packet, and again after an ``exit`` when the process runs a second app (the agent picker,
then the chat), the app writes the line ``__GANGLION__``.

From the browser (textual-serve's page script): JSON arrays, ``["stdin", text]``,
``["resize", {"width": w, "height": h}]``, ``["ping", data]``, ``["focus"]``, ``["blur"]``.
They come from the network, so `browser_message` checks each one and drops what is malformed.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "MAX_PACKET",
    "PRELUDE",
    "BrowserMessage",
    "ProtocolError",
    "browser_message",
    "clamp_size",
    "data_packet",
    "meta_packet",
    "read_packet",
    "read_prelude",
]

PRELUDE = b"__GANGLION__\n"
"""What a Textual app under the web driver writes when it starts."""
MAX_PACKET = 64 * 1024 * 1024
"""The largest packet taken from the app; anything bigger is a broken stream."""
MAX_COLUMNS = 1000
MAX_ROWS = 500


class ProtocolError(Exception):
    """The app's output does not follow the web driver's format."""


def _packet(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


def data_packet(data: bytes) -> bytes:
    """Terminal input for the app."""
    return _packet(b"D", data)


def meta_packet(meta: dict[str, Any]) -> bytes:
    """A meta message for the app (``{"type": "resize", ...}``, ``{"type": "quit"}``...)."""
    return _packet(b"M", json.dumps(meta).encode())


async def read_prelude(stream: asyncio.StreamReader, max_lines: int = 50) -> bool:
    """Skip what the app prints before it starts (warnings); True once the prelude came,
    False if the output ended or did not bring it within ``max_lines`` lines."""
    for _ in range(max_lines):
        line = await stream.readline()
        if not line:
            return False
        if line == PRELUDE:
            return True
    return False


async def read_packet(stream: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """The next packet from the app as (type, payload); None at the end of its output.

    A new prelude line (the process starts its next app) is skipped.
    """
    try:
        while True:
            kind = await stream.readexactly(1)
            if kind != PRELUDE[:1]:
                break
            rest = await stream.readline()
            if kind + rest != PRELUDE:
                raise ProtocolError(f"unexpected output from the app: {(kind + rest)[:40]!r}")
        size = int.from_bytes(await stream.readexactly(4), "big")
        if kind not in (b"D", b"M", b"P") or size > MAX_PACKET:
            raise ProtocolError(f"unexpected packet from the app: type {kind!r}, {size} bytes")
        return kind, await stream.readexactly(size)
    except asyncio.IncompleteReadError:
        return None


@dataclass(frozen=True, slots=True)
class BrowserMessage:
    """One checked message from the page."""

    kind: Literal["stdin", "resize", "ping", "focus", "blur"]
    text: str = ""
    """The keys typed (``stdin``), or the data to send back (``ping``)."""
    width: int = 0
    height: int = 0


def clamp_size(width: object, height: object) -> tuple[int, int] | None:
    """A terminal size from the page, kept within sane bounds; None if not two integers."""
    if type(width) is not int or type(height) is not int:
        return None
    return max(1, min(width, MAX_COLUMNS)), max(1, min(height, MAX_ROWS))


def browser_message(raw: str) -> BrowserMessage | None:
    """The message the page sent as ``raw`` JSON text; None for anything malformed or
    unknown (dropped, never an error: the page may be newer than this server)."""
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(message, list) or not message or not isinstance(message[0], str):
        return None
    kind, args = message[0], message[1:]
    if kind == "focus":
        return BrowserMessage("focus")
    if kind == "blur":
        return BrowserMessage("blur")
    if not args:
        return None
    if kind == "stdin" and isinstance(args[0], str):
        return BrowserMessage("stdin", text=args[0])
    if kind == "ping" and isinstance(args[0], str) and len(args[0]) <= 64:
        return BrowserMessage("ping", text=args[0])
    if kind == "resize" and isinstance(args[0], dict):
        size = clamp_size(args[0].get("width"), args[0].get("height"))
        if size is not None:
            return BrowserMessage("resize", width=size[0], height=size[1])
    return None
