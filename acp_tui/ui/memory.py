"""Provides settle_memory: keep long-lived objects out of the garbage collector's full passes.

A chat app accumulates many long-lived objects (transcript entries, rendered lines, listed
sessions). CPython's full collections walk all of them and stall the event loop for 50 to
200 ms with a long transcript or 10,000 listed sessions. Freezing after each large, long-lived
load moves what exists into the permanent generation, so later collections only look at what
came after. Garbage that is frozen is never freed, so this is called only after loads whose
objects stay (a session opened, a page of the session list), not per chunk.

Startup is the extreme case: see `acp_tui.ui.startup`.
"""

from __future__ import annotations

import gc


def settle_memory() -> None:
    """Collect once, then freeze what is left (see the module docstring)."""
    gc.collect(1)
    gc.freeze()
