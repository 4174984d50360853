"""Provides sanitize: agent text made safe to show (no live escape sequences or controls).

A tiny module on its own, so that widgets drawn in the first frame can use it without loading
the renderers.
"""

from __future__ import annotations

import re

__all__ = ["sanitize"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures" block
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def sanitize(text: str) -> str:
    """Make control characters (escape sequences included) visible instead of live.

    A CRLF line end is an ordinary line end; a lone carriage return stays visible.
    """
    return _CONTROL.sub(_visible, text.replace("\r\n", "\n"))
