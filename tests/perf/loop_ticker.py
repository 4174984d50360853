"""Provides Ticker: the longest event-loop stall while a benchmark runs (a task sleeping 5 ms).

ticker = Ticker()
tick = asyncio.create_task(ticker.run())
...
ticker.running = False
await tick
ticker.max_gap  # seconds
"""

from __future__ import annotations

import asyncio
import time

INTERVAL = 0.005


class Ticker:
    """The longest gap between 5 ms sleeps of the event loop, since the last ``reset``."""

    def __init__(self) -> None:
        self.max_gap = 0.0
        self.running = True
        self.over_50ms = 0
        """How many gaps were longer than 50 ms (since the last ``reset``)."""

    def reset(self) -> float:
        gap, self.max_gap, self.over_50ms = self.max_gap, 0.0, 0
        return gap

    async def run(self) -> None:
        last = time.perf_counter()
        while self.running:
            await asyncio.sleep(INTERVAL)
            now = time.perf_counter()
            gap = now - last - INTERVAL
            self.max_gap = max(self.max_gap, gap)
            self.over_50ms += gap > 0.05
            last = now
