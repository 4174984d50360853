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
    "snippet_in",
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
    pattern: re.Pattern[str] | None = None
    """Finds what the match found in a text (for snippets, made here rather than by FTS5)."""

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
    prefix = typing and bool(last_tokens) and len(last_tokens[-1]) >= MIN_PREFIX
    if prefix:
        pieces[-1] += "*"
    return Query(text, " AND ".join(pieces), id_prefix, cut, _pattern(terms, prefix))


def _pattern(terms: list[str], prefix: bool) -> re.Pattern[str] | None:
    """A regular expression for the words and phrases of ``terms`` as the index matches them:
    whole words, in any case, separated by anything but letters and digits."""
    alternatives = []
    for number, term in enumerate(terms):
        tokens = _TOKENS.findall(term)
        if not tokens:
            continue
        end = r"[^\W_]*" if prefix and number == len(terms) - 1 else r"(?![^\W_])"
        alternatives.append(r"(?<![^\W_])" + r"[\W_]+".join(map(re.escape, tokens)) + end)
    return re.compile("|".join(alternatives), re.IGNORECASE) if alternatives else None


_TOKENS = re.compile(r"[^\W_]+")


SNIPPET_BEFORE = 60
SNIPPET_CHARS = 200


def snippet_in(body: str, query: Query) -> Snippet:
    """A snippet of ``body`` around its first match of ``query`` (its start when none is found,
    e.g. a match the index made by removing diacritics), every match in it marked."""
    pattern = query.pattern
    found = pattern.search(body) if pattern is not None else None
    start = 0
    if found is not None and found.start() > SNIPPET_BEFORE:
        start = body.find(" ", found.start() - SNIPPET_BEFORE, found.start()) + 1
        start = start or found.start() - SNIPPET_BEFORE
    end = min(len(body), start + SNIPPET_CHARS)
    if end < len(body) and (space := body.rfind(" ", start + SNIPPET_CHARS // 2, end)) > 0:
        end = space
    marked: list[str] = ["…"] if start else []
    at = start
    for match in pattern.finditer(body, start, end) if pattern is not None else ():
        if match.end() > match.start():
            marked += [body[at : match.start()], MARK_START, match.group(), MARK_END]
            at = match.end()
    marked.append(body[at:end])
    if end < len(body):
        marked.append("…")
    return snippet_of("".join(marked))


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
