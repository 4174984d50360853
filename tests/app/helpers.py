"""Shared helpers for the app tests: waiting on a predicate instead of sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from textual.pilot import Pilot
from textual.screen import Screen

from tests import in_process

S = TypeVar("S", bound=Screen[Any])


POLL = 0.02
"""How often a wait looks at its predicate (seconds)."""


WAIT = 15.0
"""How long a wait lasts before it fails, by default, when the demo agent runs in-process."""

WAIT_FOR_A_PROCESS = 45.0
"""The same when the demo agent is a real process (a test marked ``real_agent``): a clean-clone
CI run beside a second suite once gave up after 15 s on the first answer of one started cold
(its imports compiled afresh, eight workers busy)."""


def default_wait() -> float:
    return WAIT if in_process.wanted() else WAIT_FOR_A_PROCESS


async def wait_for(
    pilot: Pilot[Any], predicate: Callable[[], bool], seconds: float | None = None
) -> None:
    """Let the app run until ``predicate()`` holds, also once the app has handled what was
    pending then; fail after ``seconds`` (`default_wait` if not given).

    The app runs in this event loop, so waiting is sleeping. ``pilot.pause`` is kept for the
    moment the predicate holds: it sends a message to every widget on the screen and waits
    for all of them, which costs a fifth of a core when done fifty times a second (the
    suite's tests spend minutes waiting).
    """
    with anyio.fail_after(default_wait() if seconds is None else seconds):
        while True:
            if predicate():
                await pilot.pause(0)
                if predicate():
                    return
            await asyncio.sleep(POLL)


async def wait_for_screen(
    pilot: Pilot[Any], screen_type: type[S], seconds: float | None = None
) -> S:
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
