"""Provides settle_memory: keep long-lived objects out of the garbage collector's full passes.

A chat app accumulates many long-lived objects (transcript entries, rendered lines, listed
sessions). CPython's full collections walk all of them and stall the event loop for 50 to
200 ms with a long transcript or 10,000 listed sessions. Freezing after each large, long-lived
load moves what exists into the permanent generation, so later collections only look at what
came after. Garbage that is frozen is never freed, so this is called only after loads whose
objects stay (a session opened, a page of the session list), not per chunk.

Startup is the extreme case: see `acp_tui.ui.startup`.

What is made after the last freeze still adds up: every open tab keeps its rendered lines and
Textual caches the strips of every frame. A full collection walks all of that (40 to 90 ms with
ten tabs open) and with CPython's default thresholds one came every few tab switches. The app
runs full collections ten times less often (`FULL_COLLECTION_EVERY`); the young generations,
where nearly all cyclic garbage dies, are collected as often as before.
"""

from __future__ import annotations

import gc

FULL_COLLECTION_EVERY = 100
"""Middle-generation collections between two full ones (CPython's default: 10)."""


def tune_collector() -> None:
    """Make full collections rarer (see the module docstring); the other thresholds stay."""
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def settle_memory() -> None:
    """Collect once, then freeze what is left (see the module docstring)."""
    gc.collect(1)
    gc.freeze()
