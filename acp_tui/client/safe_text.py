"""Provides sanitize: text from an agent made safe to show on a terminal, as plain text.

Everything an agent says (titles, names, paths, messages, errors) may be hostile. This one
function is what every such string goes through before it is shown, in the app and by the
headless commands alike, so it lives in the core and imports nothing but ``re``:

- control characters (C0, DEL, C1: so ESC and every OSC/CSI sequence) are made visible, never
  sent to the terminal (OSC 52 would set the clipboard, OSC 0 the window title);
- bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) are made visible,
  so that text cannot be shown in an order other than the one it is stored in;
- lone surrogates (which JSON can carry but no terminal can encode) are made visible.

The result is plain text: the UI shows it as ``Content``/``Text``, never parses it as markup
(see ``acp_tui.ui.plain_text``). A ``limit`` clips what is meant to be short (a name, a label):
an agent's ten-thousand-character title must not push a dialog's buttons off the screen.
"""

from __future__ import annotations

import re

__all__ = ["BIDI_CONTROLS", "one_line", "sanitize"]

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""The characters that change the display order of the text around them."""

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures" block: ESC is ␛
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"⟨U+{code:04X}⟩"  # C1 controls, bidi controls, lone surrogates


def sanitize(text: str, limit: int | None = None) -> str:
    """``text`` with every unsafe character made visible (tab and line feed are kept).

    A CRLF line end is an ordinary line end; a lone carriage return stays visible. With a
    ``limit``, text longer than ``limit`` characters is cut there and ends with "…".
    """
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return _UNSAFE.sub(_visible, text.replace("\r\n", "\n"))


def one_line(text: str) -> str:
    """``text`` sanitised for one line (a table cell, a text field): tabs and line ends are made
    visible too (␉, ␊)."""
    return sanitize(text).replace("\t", "\u2409").replace("\n", "\u240a")
