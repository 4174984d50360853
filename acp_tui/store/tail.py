"""Provides read_tail: the last turns of a recorded transcript, read from its end.

Reopening a long session shows its last screen first: reading and parsing ten thousand turns to
show the last few would take seconds, so the file is read backwards in blocks until enough
prompts are found (or `MAX_TAIL_BYTES`), and only those lines are parsed. Each event comes with
its line number (as the library's search results give it), counted cheaply over the head of
the file, so the rest can be loaded behind the tail and a search hit found in either. Asked for
a line (a search hit's), the tail starts at the turn holding that line, when that is not too
far from the end.
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


def read_tail(
    path: Path,
    *,
    turns: int = 3,
    max_bytes: int = MAX_TAIL_BYTES,
    from_line: int | None = None,
    numbered: bool = True,
) -> Tail:
    """The events of the last ``turns`` turns of the transcript at ``path`` (fewer when the
    last turns are longer than ``max_bytes``), or from the turn holding line ``from_line`` on
    when that is longer and within ``max_bytes`` of the end; raises OSError. Without
    ``numbered`` (and ``from_line``) the lines are numbered from 0 at the tail's start, not
    counted over the rest of the file (60 MB for 10,000 long turns)."""
    with path.open("rb") as handle:
        lines, start = _last_lines(handle, turns, max_bytes)
        floor = None if from_line is None else _turn_before(handle, from_line, start, max_bytes)
        if floor is not None:
            handle.seek(floor)
            lines = handle.read(start - floor).split(b"\n")[:-1] + lines
            start = floor
        handle.seek(0)
        first_line = _count_lines(handle, start) if numbered or from_line is not None else 0
    parsed: list[tuple[int, RecordedEvent]] = []
    for number, raw in enumerate(lines, first_line):
        event = parse_line(raw)
        if event is not None:
            parsed.append((number, event))
    cut, found = 0, 0
    wanted = from_line if floor is not None else None
    for index in range(len(parsed) - 1, -1, -1):
        if _starts_turn(parsed[index][1], parsed[index - 1][1] if index else None):
            if wanted is not None:
                if parsed[index][0] <= wanted:  # the turn holding the line asked for
                    cut, found = index, turns
                    break
                continue
            found, cut = found + 1, index
            if found == turns:
                break
    if found < turns:
        cut = 0  # the start of the file, or the byte limit, came first: keep all that was read
    return Tail(parsed[cut:], start, start == 0 and cut == 0)


def _turn_before(handle: BinaryIO, line: int, start: int, max_bytes: int) -> int | None:
    """Where to read from so that the tail holds the turn of line ``line``: the start of the
    last line at or before it that may begin a turn (else of ``line`` itself); None when the
    tail from ``start`` holds that line already, or it is further than ``max_bytes`` from the
    end."""
    at = _line_offset(handle, line)
    size = os.fstat(handle.fileno()).st_size
    if at is None or at >= start or size - at > max_bytes:
        return None
    handle.seek(at)
    if b'"user' in handle.readline(BLOCK):
        return at
    end = at
    while end > 0 and size - end < max_bytes:
        step = min(BLOCK, end)
        handle.seek(end - step)
        block = handle.read(step + 4)  # a match across the blocks' border is seen too
        found = block.rfind(b'"user', 0, step + 4 if end < at else step)
        if found >= 0:
            return _line_start(handle, end - step + found)
        end -= step
    return at


def _line_start(handle: BinaryIO, offset: int) -> int:
    """The start of the line holding byte ``offset``."""
    end = offset
    while end > 0:
        step = min(BLOCK, end)
        handle.seek(end - step)
        found = handle.read(step).rfind(b"\n")
        if found >= 0:
            return end - step + found + 1
        end -= step
    return 0


def _line_offset(handle: BinaryIO, line: int) -> int | None:
    """Where line ``line`` (from 0) starts; None when the file has no such line."""
    size = os.fstat(handle.fileno()).st_size
    handle.seek(0)
    offset, seen = 0, 0
    while seen < line:
        block = handle.read(1 << 20)
        if not block:
            return None
        count = block.count(b"\n")
        if seen + count < line:
            seen, offset = seen + count, offset + len(block)
            continue
        at = -1
        for _ in range(line - seen):
            at = block.index(b"\n", at + 1)
        offset, seen = offset + at + 1, line
    return offset if offset < size else None


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
