"""Provides pattern_problem: a form field's ``pattern`` checked with a time bound.

The agent writes the pattern (ECMA 262 in JSON Schema; Python's ``regex`` reads nearly all of
it), and one made to backtrack for ever (``^(a|aa)+$`` on forty a's and a "!") froze the app for
over a minute: Python's ``re`` holds the GIL while it matches. Patterns are matched by the
``regex`` engine with a time bound, letting other threads run meanwhile (the UI checks forms in a
thread), and a pattern that takes longer is not applied from then on (the agent checks what it
receives). A pattern too long, or one the engine cannot read, is not applied either.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from functools import lru_cache

import regex

__all__ = ["MAX_PATTERN", "PATTERN_SECONDS", "pattern_problem", "pattern_usable"]

log = logging.getLogger(__name__)

MAX_PATTERN = 1000
"""A longer ``pattern`` is not applied (nor is one Python cannot read)."""
PATTERN_SECONDS = 0.1
"""The longest one ``pattern`` may take on one text."""
SLOW_PATTERNS_KEPT = 256


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str] | None:
    if len(pattern) > MAX_PATTERN:
        return None
    try:
        return regex.compile(pattern)
    except (regex.error, RecursionError, OverflowError, ValueError) as exc:
        log.info("elicitation pattern %r cannot be used: %s", pattern[:100], exc)
        return None


_too_slow: OrderedDict[str, None] = OrderedDict()
"""The patterns that took longer than ``PATTERN_SECONDS`` (the newest ones), no longer applied."""


def pattern_problem(pattern: str, text: str) -> str | None:
    """Why ``text`` does not match ``pattern`` (None: it does, or the pattern is not applied:
    unreadable, too long, or too slow to check)."""
    compiled = _compiled(pattern)
    if compiled is None or pattern in _too_slow:
        return None
    try:
        found = compiled.search(text, timeout=PATTERN_SECONDS, concurrent=True)
    except TimeoutError:
        log.warning("elicitation pattern %r took too long to check: not applied", pattern[:100])
        _too_slow[pattern] = None
        while len(_too_slow) > SLOW_PATTERNS_KEPT:
            _too_slow.popitem(last=False)
        return None
    return None if found is not None else f"must match the pattern {pattern}"


def pattern_usable(pattern: str) -> bool:
    """Whether ``pattern`` is applied at all (not too long, readable, not found too slow)."""
    return _compiled(pattern) is not None and pattern not in _too_slow
