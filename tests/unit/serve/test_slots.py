"""At most N apps: a slot is held until the app's processes are gone; a reload waits for one."""

from __future__ import annotations

import asyncio

import pytest

from acp_tui.serve.slots import Slots


async def test_slots_up_to_the_limit_then_none_while_their_pages_are_open() -> None:
    slots = Slots(2)
    first, second = await slots.take(1), await slots.take(1)
    assert first is not None
    assert second is not None
    assert slots.full
    started = asyncio.get_running_loop().time()
    assert await slots.take(5) is None  # every slot is an open page: refused at once
    assert asyncio.get_running_loop().time() - started < 1


async def test_a_request_waits_for_a_slot_being_freed() -> None:
    slots = Slots(1)
    held = await slots.take(1)
    assert held is not None
    held.close()  # its page went away; its app is stopping
    assert not slots.full
    waiting = asyncio.create_task(slots.take(5))
    await asyncio.sleep(0.05)
    assert not waiting.done()  # the app is not gone yet: still one process
    held.release()
    assert await asyncio.wait_for(waiting, 1) is not None
    assert len(slots.held) == 1


async def test_a_slot_that_is_not_freed_in_time_is_not_given() -> None:
    slots = Slots(1)
    held = await slots.take(1)
    assert held is not None
    held.close()
    assert await slots.take(0.1) is None
    assert len(slots.held) == 1


async def test_releasing_twice_frees_one_slot() -> None:
    slots = Slots(2)
    one = await slots.take(1)
    two = await slots.take(1)
    assert one is not None
    assert two is not None
    one.release()
    one.release()
    assert len(slots.held) == 1


def test_the_limit_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Slots(0)
