"""A poor man's sampling profiler of event-loop stalls (stdlib only), for a closer look.

cProfile sees the loop thread only, and misses a worker thread that holds the GIL (``json`` or
pydantic-core on a huge value) while the loop waits for it. This samples every thread's stack
from a thread of its own whenever the loop has not ticked for ``threshold`` seconds, so the
report says where both the loop and the other threads were during the stalls::

    sampler = StallSampler()
    sampler.start()       # and await sampler.tick() in a loop task, as often as it can run
    ...
    sampler.stop(); print(sampler.report())
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import traceback
from collections import Counter


class StallSampler:
    def __init__(self, threshold: float = 0.03, every: float = 0.002) -> None:
        self.threshold = threshold
        self.every = every
        self.last_tick = time.perf_counter()
        self.samples: Counter[tuple[str, str]] = Counter()
        """Seconds seen stalled, by thread kind and stack."""
        self.running = False
        self.thread = threading.Thread(target=self.sample, daemon=True, name="stall-sampler")
        self.loop_ident = threading.get_ident()

    def start(self) -> None:
        self.running = True
        self.thread.start()

    def stop(self) -> None:
        self.running = False
        self.thread.join()

    async def tick(self) -> None:
        while self.running:
            self.last_tick = time.perf_counter()
            await asyncio.sleep(0.001)

    def sample(self) -> None:
        me = threading.get_ident()
        last = time.perf_counter()
        while self.running:
            time.sleep(self.every)
            now = time.perf_counter()
            elapsed, last = now - last, now
            if time.perf_counter() - self.last_tick < self.threshold:
                continue
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                stack = traceback.extract_stack(frame)[-12:]
                where = " < ".join(
                    f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}:{f.name}" for f in reversed(stack)
                )
                who = "loop" if ident == self.loop_ident else "thread"
                self.samples[(who, where)] += elapsed

    def report(self, top: int = 12) -> str:
        lines = []
        for (who, where), seconds in self.samples.most_common(top):
            lines.append(f"{seconds * 1000:8.0f} ms  {who}: {where}")
        return "\n".join(lines)
