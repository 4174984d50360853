"""Provides duration and tokens: times and token counts as a status line shows them.

Plain functions with no imports, so the first frame (the status line) can use them before the
protocol models are loaded.
"""

from __future__ import annotations

__all__ = ["LONG_TURN", "duration", "tokens"]

LONG_TURN = 10.0
"""A turn at least this long (seconds) ends with a note of its time, as in Claude Code."""


def duration(seconds: float) -> str:
    """``8s``, ``1m 05s``, ``1h 02m``."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def tokens(count: int) -> str:
    """``950``, ``1.2k``, ``53k``, ``1.5M``."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"
