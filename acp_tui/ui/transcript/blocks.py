"""Provides the blocks of a transcript that the keyboard selects and copies.

A block is a whole entry (a message, a thought, a tool call, a plan, a notice) or one code
block of an agent's message (a fence that starts in column 0, which `BlockScanner` cuts into
code pieces). With the transcript focused, Up and Down walk the blocks in reading order: an
agent's message first, then each of its code blocks. A block is named by a :class:`BlockRef`
(entry index, code block number), not by lines, so it stays the same block while the entries
above it are rendered and their heights change.

Everything here reads the view's layouts and line offsets; nothing renders.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from acp_tui.client.session.entries import MessageEntry, TranscriptEntry
from acp_tui.ui.transcript.layout import Layout

__all__ = [
    "BlockRef",
    "block_at",
    "block_lines",
    "block_source",
    "code_runs",
    "edge_block",
    "last_reply",
    "step_block",
]


@dataclass(frozen=True, slots=True)
class BlockRef:
    """A whole entry (``code`` None) or the ``code``-th code block of an agent's message."""

    entry: int
    code: int | None = None


def code_runs(layout: Layout) -> list[tuple[int, int]]:
    """The first and last unit of each code block of a message's layout, in order."""
    runs: list[tuple[int, int]] = []
    for position, unit in enumerate(layout.units):
        piece = unit.piece
        if piece is None or piece.kind != "code":
            continue
        if piece.first or not runs or runs[-1][1] != position - 1:
            runs.append((position, position))
        else:
            runs[-1] = (runs[-1][0], position)
    return runs


def blocks_of(index: int, entry: TranscriptEntry, layout: Layout) -> list[BlockRef]:
    """The blocks of one entry in reading order (none when it is hidden)."""
    if not layout.units:
        return []
    refs = [BlockRef(index)]
    if isinstance(entry, MessageEntry) and entry.role == "agent":
        refs.extend(BlockRef(index, n) for n in range(len(code_runs(layout))))
    return refs


def step_block(
    ref: BlockRef, step: int, entries: Sequence[TranscriptEntry], layouts: Sequence[Layout]
) -> BlockRef | None:
    """The block after ``ref`` (``step`` 1) or before it (-1); None at either end."""
    count = min(len(entries), len(layouts))
    if not 0 <= ref.entry < count:
        return None
    here = blocks_of(ref.entry, entries[ref.entry], layouts[ref.entry])
    if ref in here and 0 <= here.index(ref) + step < len(here):
        return here[here.index(ref) + step]
    index = ref.entry + step
    while 0 <= index < count:
        found = blocks_of(index, entries[index], layouts[index])
        if found:
            return found[0] if step > 0 else found[-1]
        index += step
    return None


def edge_block(
    last: bool, entries: Sequence[TranscriptEntry], layouts: Sequence[Layout]
) -> BlockRef | None:
    """The first block of the transcript, or the last one."""
    count = min(len(entries), len(layouts))
    indexes = range(count - 1, -1, -1) if last else range(count)
    for index in indexes:
        found = blocks_of(index, entries[index], layouts[index])
        if found:
            return found[-1] if last else found[0]
    return None


def block_lines(ref: BlockRef, offsets: Sequence[int], layouts: Sequence[Layout]) -> range:
    """The lines of ``ref`` (without the blank line that follows an entry)."""
    if not 0 <= ref.entry < min(len(layouts), len(offsets) - 1):
        return range(0)
    layout = layouts[ref.entry]
    base = offsets[ref.entry]
    runs = code_runs(layout) if ref.code is not None else []
    if ref.code is None or ref.code >= len(runs):
        return range(base, base + layout.offsets[-1]) if layout.units else range(0)
    first, last = runs[ref.code]
    start = base + layout.offsets[first] + layout.units[first].sep
    return range(start, base + layout.offsets[last + 1])


def block_at(
    line: int,
    entries: Sequence[TranscriptEntry],
    offsets: Sequence[int],
    layouts: Sequence[Layout],
) -> BlockRef | None:
    """The innermost block on ``line`` (a code block inside a message, else its entry)."""
    count = min(len(entries), len(layouts), len(offsets) - 1)
    if count == 0:
        return None
    index = min(max(bisect.bisect_right(offsets, line) - 1, 0), count - 1)
    while index >= 0 and not layouts[index].units:
        index -= 1  # a hidden entry: the block before it
    if index < 0:
        return edge_block(False, entries, layouts)
    for ref in reversed(blocks_of(index, entries[index], layouts[index])):
        if line in block_lines(ref, offsets, layouts):
            return ref
    return BlockRef(index)


def block_source(
    ref: BlockRef, entries: Sequence[TranscriptEntry], layouts: Sequence[Layout]
) -> str | None:
    """What copying ``ref`` gives: a code block's code, a message's source (its markdown);
    None for the entries that are only ever shown rendered (tool calls, plans, notices)."""
    entry = entries[ref.entry]
    if ref.code is not None:
        runs = code_runs(layouts[ref.entry])
        if ref.code < len(runs):
            first, last = runs[ref.code]
            units = layouts[ref.entry].units[first : last + 1]
            return "".join(u.piece.text for u in units if u.piece is not None).rstrip("\n")
    if isinstance(entry, MessageEntry):
        return entry.text
    return None


def last_reply(entries: Sequence[TranscriptEntry]) -> str | None:
    """The agent's last reply: every message it sent since the prompt before it, joined.

    A reply is often several messages with tool calls between them; thoughts are not part of
    it. A prompt that has no answer yet is passed over, so this is the last reply there is.
    """
    parts: list[str] = []
    for entry in reversed(entries):
        if not isinstance(entry, MessageEntry):
            continue
        if entry.role == "agent":
            parts.append(entry.text.strip("\n"))
        elif entry.role == "user" and parts:
            break
    return "\n\n".join(reversed(parts)) if parts else None
