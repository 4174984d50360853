"""Shared helpers for the app tests: waiting on a predicate instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from textual.pilot import Pilot


async def wait_for(pilot: Pilot[Any], predicate: Callable[[], bool], seconds: float = 15) -> None:
    """Let the app run until ``predicate()`` holds; fail after ``seconds``."""
    with anyio.fail_after(seconds):
        while not predicate():
            await pilot.pause(0.02)
