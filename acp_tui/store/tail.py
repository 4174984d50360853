"""Provides read_tail: the last turns of a recorded transcript, read from its end.

Reopening a long session shows its last screen first: reading and parsing ten thousand turns to
show the last three would take seconds, so the file is read backwards in blocks until enough
prompts are found (or `MAX_TAIL_BYTES`), and only those lines are parsed. Each event comes with
its line number (as the library's search results give it), counted cheaply over the head of
the file, so the rest can be loaded behind the tail and a search hit found in either.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from acp_tui.store.recorded import RecordedEvent, RecordedUpdate, RecordedUser, parse_line

__all__ = ["MAX_TAIL_BYTES", "Tail", "read_tail"]

BLOCK = 65_536
MAX_TAIL_BYTES = 8_000_000
"""At most this much of the end of a transcript is read for its tail."""
_USER_UPDATES = ("user_message_chunk", "user_message")


@dataclass(frozen=True, slots=True)
class Tail:
    events: list[tuple[int, RecordedEvent]]
    """(line number, event), in order, from the start of the first turn kept."""
    start: int
    """Byte offset in the file where the tail starts (the rest is before it)."""
    complete: bool
    """The tail is the whole transcript."""


def _starts_turn(event: RecordedEvent, before: RecordedEvent | None) -> bool:
    if isinstance(event, RecordedUser):
        return True
    if isinstance(event, RecordedUpdate) and event.update.get("sessionUpdate") in _USER_UPDATES:
        if isinstance(before, RecordedUpdate):
            return before.update.get("sessionUpdate") not in _USER_UPDATES
        return True
    return False


def read_tail(path: Path, *, turns: int = 3, max_bytes: int = MAX_TAIL_BYTES) -> Tail:
    """The events of the last ``turns`` turns of the transcript at ``path`` (fewer when the
    last turns are longer than ``max_bytes``); raises OSError."""
    with path.open("rb") as handle:
        lines, start = _last_lines(handle, turns, max_bytes)
        handle.seek(0)
        first_line = _count_lines(handle, start)
    parsed: list[tuple[int, RecordedEvent]] = []
    for number, raw in enumerate(lines, first_line):
        event = parse_line(raw)
        if event is not None:
            parsed.append((number, event))
    cut, found = 0, 0
    for index in range(len(parsed) - 1, -1, -1):
        if _starts_turn(parsed[index][1], parsed[index - 1][1] if index else None):
            found, cut = found + 1, index
            if found == turns:
                break
    if found < turns:
        cut = 0  # the start of the file, or the byte limit, came first: keep all that was read
    return Tail(parsed[cut:], start, start == 0 and cut == 0)


def _last_lines(handle: BinaryIO, turns: int, max_bytes: int) -> tuple[list[bytes], int]:
    """The whole lines at the end of the file, enough to hold ``turns`` prompts (counted
    generously), and the offset where the first of them starts."""
    size = os.fstat(handle.fileno()).st_size
    start, carry = size, b""
    lines: list[bytes] = []
    prompts = 0
    while start > 0 and size - start < max_bytes and prompts <= turns:
        step = min(BLOCK, start)
        start -= step
        handle.seek(start)
        parts = (handle.read(step) + carry).split(b"\n")
        if start > 0:
            carry, parts = parts[0], parts[1:]  # the first may have begun in an earlier block
        else:
            carry = b""
        lines[:0] = parts
        prompts += sum(1 for line in parts if b'"user' in line)
    first = start + len(carry) + 1 if carry or start > 0 else 0
    return lines, first


def _count_lines(handle: BinaryIO, end: int) -> int:
    """The number of line feeds in the file's first ``end`` bytes."""
    count, left = 0, end
    while left > 0:
        block = handle.read(min(1 << 20, left))
        if not block:
            break
        count += block.count(b"\n")
        left -= len(block)
    return count
