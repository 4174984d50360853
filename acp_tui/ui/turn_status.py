"""Provides turn_progress: what the status line adds while a turn runs.

The time the turn has taken, the tokens the agent reported (the context it uses) and the key
that stops it: ``working… · 12s · 8.4k tokens · esc to interrupt``. The pane redraws it once a
second while a turn runs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from acp_tui.client.session.figures import duration, tokens

if TYPE_CHECKING:
    from acp_tui.client.session.transcript import Transcript

__all__ = ["turn_progress"]


def turn_progress(transcript: Transcript) -> str:
    """``' · 12s · 8.4k tokens · esc to interrupt'`` while a turn runs, else ''."""
    started = transcript.turn_started
    if transcript.state != "running" or started is None:
        return ""
    parts = [duration(time.monotonic() - started)]
    if transcript.usage is not None:
        parts.append(f"{tokens(transcript.usage.used)} tokens")
    parts.append("esc to interrupt")
    return "".join(f" · {part}" for part in parts)
