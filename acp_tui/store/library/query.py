"""Provides the search query builder: what the user typed, as an FTS5 query that is always
literal, and the snippets FTS5 returns, as plain text with the offsets of the matches.

What the user types is never FTS5 syntax. Each word must appear (in any order); words in double
quotes must appear together, in that order (a phrase; an unclosed quote runs to the end); the
last word, while it is being typed (no space after it), also matches as a prefix. Everything
else is text: ``*``, ``-``, ``:``, ``NEAR``, ``AND``, column names and parentheses are words or
separators like any other, so a query gives results or none, never a syntax error. Each word
(or phrase) goes to FTS5 as a quoted string, which its tokenizer splits exactly as it split the
indexed text (``foo.bar`` is the phrase "foo bar"). A long query is cut to `MAX_QUERY_CHARS` and
`MAX_TERMS` words (the results then match its start, and say so).

A query that looks like a session id (one word of letters, digits and ``-_.:``, with a digit,
at least four characters) also matches the sessions whose id starts with it; ids never match
otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MARK_END",
    "MARK_START",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "Query",
    "Snippet",
    "parse_query",
    "snippet_of",
]

MAX_QUERY_CHARS = 1000
MAX_TERMS = 16
MIN_PREFIX = 2
"""A last word shorter than this is matched whole, not as a prefix (one letter would match
most of the index)."""

MARK_START, MARK_END = "\ue000", "\ue001"
"""What FTS5 puts around matches in snippets (private-use characters the indexed text never
holds: ``acp_tui.store.library.text.plain`` replaces them)."""

_WORDY = re.compile(r"[^\W_]")
_ID_LIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{3,199}")
_SPACES = re.compile(r"\s+")
_MARKS = re.compile(f"([{MARK_START}{MARK_END}])")


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed search query."""

    text: str
    match: str | None
    """The FTS5 query (None: nothing to search, e.g. only punctuation)."""
    id_prefix: str | None
    """The query as a session id prefix, when it looks like one."""
    cut: bool = False
    """The query was longer than what is searched (only its start is used)."""

    def on(self, columns: str) -> str | None:
        """The match restricted to ``columns`` (e.g. ``"title"`` or ``"cwd dirs"``)."""
        return f"{{{columns}}} : ({self.match})" if self.match is not None else None


def _quoted(words: str) -> str:
    return '"' + words.replace('"', '""') + '"'


def parse_query(text: str) -> Query:
    """Build the literal FTS5 query of what the user typed."""
    cut = len(text) > MAX_QUERY_CHARS
    typed = text[:MAX_QUERY_CHARS]
    terms: list[str] = []
    typing = False
    parts = typed.split('"')
    for index, part in enumerate(parts):
        if index % 2:  # between quotes: one phrase
            words = [part] if _WORDY.search(part) else []
        else:
            words = [word for word in part.split() if _WORDY.search(word)]
        if words:
            terms.extend(words)
            # Still being typed when nothing (a space, a closing quote) follows it.
            typing = index == len(parts) - 1 and not part[-1].isspace()
    if len(terms) > MAX_TERMS:
        terms, cut, typing = terms[:MAX_TERMS], True, False
    stripped = text.strip()
    looks_like_id = _ID_LIKE.fullmatch(stripped) and any(c.isdigit() for c in stripped)
    id_prefix = stripped if looks_like_id else None
    if not terms:
        return Query(text, None, id_prefix, cut)
    pieces = [_quoted(term) for term in terms]
    last_tokens = _TOKENS.findall(terms[-1])
    if typing and last_tokens and len(last_tokens[-1]) >= MIN_PREFIX:
        pieces[-1] += "*"
    return Query(text, " AND ".join(pieces), id_prefix, cut)


_TOKENS = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Snippet:
    """Plain text around a match, on one line, and where the matches are in it."""

    text: str
    spans: tuple[tuple[int, int], ...]
    """[start, end) offsets of the matched words in ``text``."""


def snippet_of(marked: str) -> Snippet:
    """A snippet from text with FTS5's markers around the matches: on one line (whitespace runs
    become one space), the markers turned into spans."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    start: int | None = None
    length = 0
    for piece in _MARKS.split(_SPACES.sub(" ", marked).strip()):
        if piece == MARK_START:
            start = length
        elif piece == MARK_END:
            if start is not None and length > start:
                spans.append((start, length))
            start = None
        elif piece:
            out.append(piece)
            length += len(piece)
    return Snippet("".join(out), tuple(spans))
