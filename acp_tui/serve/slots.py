"""Provides Slots: at most N apps at once, counted until every process of one is gone.

A page that is reloaded closes its old connection as the new one opens, so the old app is
still stopping when the new one asks for a slot. Such a request waits (boundedly) for a slot
that is being freed; with every slot held by a page still open it is refused at once. The
count never exceeds the limit, so neither do the processes.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["Slot", "Slots"]


class Slot:
    """One app's place; ``closing`` once its page has gone and it is being stopped."""

    def __init__(self, slots: Slots) -> None:
        self._slots = slots
        self.closing = False
        self.released = False

    def close(self) -> None:
        """Its page is gone: the app is being stopped (a waiting request may wait for it)."""
        if not self.closing:
            self.closing = True
            self._slots.changed()

    def release(self) -> None:
        """Its processes are gone: the place is free."""
        if not self.released:
            self.released = self.closing = True
            self._slots.held.discard(self)
            self._slots.changed()


class Slots:
    """A limit on the number of apps, with a wait for the ones being stopped."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("the limit must be at least 1")
        self.limit = limit
        self.held: set[Slot] = set()
        self._changed = asyncio.Condition()

    @property
    def open_pages(self) -> int:
        """The slots held by pages still open."""
        return sum(1 for slot in self.held if not slot.closing)

    @property
    def full(self) -> bool:
        """No slot is free and none will be soon: every one belongs to an open page."""
        return self.open_pages >= self.limit

    def changed(self) -> None:
        async def notify() -> None:
            async with self._changed:
                self._changed.notify_all()

        with contextlib.suppress(RuntimeError):  # no loop running: nobody waits
            asyncio.get_running_loop().create_task(notify())

    def try_take(self) -> Slot | None:
        if len(self.held) >= self.limit:
            return None
        slot = Slot(self)
        self.held.add(slot)
        return slot

    async def take(self, wait: float) -> Slot | None:
        """A slot, waiting up to ``wait`` seconds while slots are being freed; None when all
        belong to open pages (or none was freed in time)."""
        try:
            async with asyncio.timeout(wait), self._changed:
                while (slot := self.try_take()) is None:
                    if self.full:
                        return None
                    await self._changed.wait()
                return slot
        except TimeoutError:
            return None
