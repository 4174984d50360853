"""Provides Handover: a transcript laid out behind the one shown, then shown in its place
without a jump.

A session reopened with its history shows the end of acp-tui's local copy at once, then the
agent's replay of it. When the view is given a transcript that ends with what it shows (that
replay, or a reload that brought the same history; see `acp_tui.client.session.agreement`),
the new one is laid out behind the old one, a few milliseconds per loop iteration, while the
old one stays on screen; then, in one step, its lines replace the old ones, scrolled so that
the entry at the top of the view (or the end, while the view follows it) stays where it was,
and the lines in view are rendered before the next frame. A transcript that does not end so
is shown at once, from its end.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable

from acp_tui.client.session.agreement import entry_key, matched_end
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.big import quiet_gc
from acp_tui.ui.transcript.lines import TranscriptLines
from acp_tui.ui.transcript.painter import Painter
from acp_tui.ui.transcript.render import TerminalLookup

__all__ = ["Handover", "continues", "entry_at"]

GROW_STEP = 4000
"""Entries taken per step (each gets an empty layout)."""


def entry_at(lines: TranscriptLines, line: int) -> int:
    """The index of the entry on ``line``."""
    return max(bisect.bisect_right(lines.offsets, line) - 1, 0)


def continues(old: Transcript | None, new: Transcript, since: int) -> bool:
    """Whether ``new`` ends with the entries of ``old`` from ``since`` on (notices aside),
    at least one of them a message, a tool call or a plan."""
    if old is None or old is new or not old.entries or not new.entries:
        return False
    places = matched_end(old.entries, new.entries, since=since)
    return places is not None and any(entry_key(old.entries[i]) is not None for i in places)


class Handover:
    """The lines of a transcript being laid out behind the ones shown (see the module)."""

    def __init__(
        self,
        painter: Painter,
        shown: TranscriptLines,
        transcript: Transcript,
        terminal_lookup: TerminalLookup | None,
    ) -> None:
        lines = self.lines = TranscriptLines(painter)
        lines.show_thoughts = shown.show_thoughts
        lines.expand_thoughts = shown.expand_thoughts
        lines.markdown = shown.markdown
        lines.on_change = shown.on_change
        lines.show(transcript, terminal_lookup)
        self.unsubscribe: Callable[[], None] = transcript.subscribe(lines.note_change)

    def lay_out(self, width: int, budget: float) -> bool:
        """Lay the new transcript out for about ``budget`` seconds; whether it is all (then
        it may be shown at once). Its entries are taken in a first step, and the offsets of
        all of them are counted once, in a step of their own: per step, for 30,000 entries,
        that took longer than the budget."""
        lines = self.lines
        # The layouts made stay as long as the view shows them: frozen, the collector does
        # not walk them all again (a pass over 30,000 entries' new layouts took 118 ms).
        with quiet_gc(freeze=True):
            if lines.width != width or len(lines.layouts) < len(lines.entries):
                lines.resize(width)
                lines.grow(at_most=GROW_STEP)
                return False
            if lines.dirty:
                lines.lay_out(time.perf_counter() + budget)
                return False
        if lines.stale_from is not None:
            lines.rebuild_offsets()
            return False
        return True

    def place(self, shown: TranscriptLines, top: int) -> int | None:
        """The line of the new transcript where line ``top`` of the one shown is (the same
        entry, as far into it); None when the new one no longer ends with what is shown."""
        old, new = shown.transcript, self.lines.transcript
        if old is None or new is None:
            return None
        index = entry_at(shown, top)
        places = matched_end(old.entries, new.entries, since=index)
        if places is None or index not in places:
            return None
        offsets = self.lines.offsets
        at = min(places[index], len(offsets) - 1)
        return offsets[at] + max(0, top - shown.offsets[index])

    def cancel(self) -> None:
        self.unsubscribe()
