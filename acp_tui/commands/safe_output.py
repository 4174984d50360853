"""Provides safe_output: everything a headless command prints is shown, never obeyed.

A headless command prints what a registry, the config file or an agent says (names, arguments,
titles, descriptions, errors), and any of it may hold terminal escapes (OSC 52 writes the
clipboard, OSC 0 the window title) or bidi controls (text shown in another order than it is).
Rather than trust every call site to remember, the command's stdout and stderr go through the
one sanitiser (`acp_tui.client.safe_text.sanitize`) while it runs: control characters, escapes
and bidi controls are made visible; line breaks and tabs stay. JSON output (``--json``) is
ASCII with ``\\u`` escapes, so it passes unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from acp_tui.client.safe_text import sanitize

__all__ = ["SafeStream", "safe_output"]


class SafeStream:
    """A text stream that writes ``sanitize(text)`` to the stream it wraps."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(sanitize(text))
        return len(text)

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    @property
    def encoding(self) -> str:
        return self.inner.encoding

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


@contextmanager
def safe_output() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` through `SafeStream` for the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = SafeStream(out)
    sys.stderr = SafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
