"""Shared helpers for the app tests: waiting on a predicate instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from textual.pilot import Pilot
from textual.screen import Screen

S = TypeVar("S", bound=Screen[Any])


async def wait_for(pilot: Pilot[Any], predicate: Callable[[], bool], seconds: float = 15) -> None:
    """Let the app run until ``predicate()`` holds; fail after ``seconds``."""
    with anyio.fail_after(seconds):
        while not predicate():
            await pilot.pause(0.02)


async def wait_for_screen(pilot: Pilot[Any], screen_type: type[S], seconds: float = 15) -> S:
    """Wait until a ``screen_type`` is the active screen with its widgets mounted; return it.

    A pushed screen is active before it has composed, so querying it (or pressing its keys)
    right away races with its mounting.
    """

    def ready() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, screen_type) and screen.is_mounted

    await wait_for(pilot, ready, seconds)
    screen = pilot.app.screen
    assert isinstance(screen, screen_type)
    return screen
