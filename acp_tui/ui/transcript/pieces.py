"""Provides BlockScanner: cuts a growing message into bounded pieces (markdown groups, pieces
of code fences, pieces of plain text), at the same places however it streams in.

The transcript view lays each piece out as a unit of its own and renders it once, re-rendering
only the growing last one, so no unit is ever larger than a few kilobytes whatever the message's
size. Text only, no Rich: `acp_tui.ui.transcript.render` renders the pieces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["BlockScanner", "Piece", "PieceKind"]

PieceKind = Literal["md", "code", "plain"]

MD_LINES = 60
MD_CHARS = 6_000
GROUP_CHARS = 1_500
CODE_LINES = 40
CODE_CHARS = 2_400
PLAIN_LINES = 80
PLAIN_CHARS = 6_000
_FENCES = ("```", "~~~")


@dataclass(slots=True)
class Piece:
    """One bounded part of a message, as :class:`BlockScanner` cut it."""

    kind: PieceKind
    text: str
    glue: bool = False  # continues the previous piece: no blank line between them
    first: bool = True  # code: holds the opening fence; plain: starts the message
    last: bool = True  # code: holds the closing fence
    info: str = ""  # code: the lexer; md: an indented fence line to reopen (cut inside it)


def _marker(stripped: str) -> str:
    """The run of backticks or tildes that opens a fence."""
    return stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(marker) and stripped == stripped[0] * len(stripped)


def _cut(text: str, start: int, limit: int) -> int:
    """Where to cut one over-long line: after the last space before ``limit``, else at it."""
    space = text.rfind(" ", start, limit)
    return space + 1 if space > start else limit


class BlockScanner:
    """Cuts a growing message into bounded pieces, at the same places however it streams in.

    Markdown is cut at blank lines outside code fences once a group holds ``GROUP_CHARS``
    characters, around fences that start in column 0 (rendered as code pieces), and, for one
    giant paragraph or fence, every few dozen lines or kilobytes. Plain text is cut by lines.
    Only whole lines decide a cut, so a piece once returned is final. The scanner keeps the
    unconsumed text only; :meth:`compact` drops what was consumed.
    """

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.buffer = ""
        self.start = 0
        self.glue = False
        self.code: tuple[str, str] | None = None  # (marker, lexer) inside a column-0 fence
        self.code_first = True
        self.reopen = ""  # the indented fence line the current markdown piece starts inside

    def feed(self, text: str) -> None:
        self.buffer += text

    def compact(self) -> None:
        if self.start:
            self.buffer = self.buffer[self.start :]
            self.start = 0

    @property
    def pending(self) -> int:
        """Characters not yet returned as complete pieces."""
        return len(self.buffer) - self.start

    def next_piece(self) -> Piece | None:
        """The next complete piece, or None when what is left may still grow."""
        if not self.markdown:
            return self._plain()
        if self.code is not None:
            return self._code()
        return self._markdown()

    def tail(self) -> Piece | None:
        """What is left, as a provisional piece (the still-growing end of the message)."""
        text = self.buffer[self.start :]
        if self.code is not None:
            if not text and not self.code_first:
                return None
            return Piece("code", text, self.glue, self.code_first, True, self.code[1])
        if not text:
            return None
        if not self.markdown:
            return Piece("plain", text, self.glue, not self.glue)
        return Piece("md", text, self.glue, info=self.reopen)

    def _whole_lines(self, max_lines: int, max_chars: int) -> int | None:
        """The end of the longest run of whole lines within the caps, if a cut is due."""
        buf, start = self.buffer, self.start
        limit = start + max_chars
        end, lines = start, 0
        while lines < max_lines:
            newline = buf.find("\n", end, limit)
            if newline < 0:
                break
            end, lines = newline + 1, lines + 1
        if lines >= max_lines or (len(buf) >= limit and end > start):
            return end
        if len(buf) > limit:
            return _cut(buf, start, limit)
        return None

    def _take(self, kind: PieceKind, end: int, *, next_glue: bool, **fields: Any) -> Piece:
        piece = Piece(kind, self.buffer[self.start : end], self.glue, **fields)
        self.start, self.glue = end, next_glue
        return piece

    def _plain(self) -> Piece | None:
        end = self._whole_lines(PLAIN_LINES, PLAIN_CHARS)
        if end is None:
            return None
        return self._take("plain", end, next_glue=True, first=not self.glue)

    def _code(self) -> Piece | None:
        assert self.code is not None
        marker, lexer = self.code
        buf, start = self.buffer, self.start
        position, limit = start, start + CODE_CHARS
        for _ in range(CODE_LINES):
            newline = buf.find("\n", position, limit)
            if newline < 0:
                break
            if _closes(buf[position:newline], marker):
                piece = Piece("code", buf[start:position], self.glue, self.code_first, True, lexer)
                self.start, self.glue, self.code = newline + 1, False, None
                return piece
            position = newline + 1
        end = self._whole_lines(CODE_LINES, CODE_CHARS)
        if end is None:
            return None
        first, self.code_first = self.code_first, False
        return self._take("code", end, next_glue=True, first=first, last=False, info=lexer)

    def _markdown(self) -> Piece | None:
        buf, start = self.buffer, self.start
        opened = self.reopen.lstrip()
        fence = _marker(opened) if opened else None
        position, limit, lines = start, start + MD_CHARS, 0
        while lines < MD_LINES:
            newline = buf.find("\n", position, limit)
            if newline < 0:
                break
            line = buf[position:newline]
            stripped = line.lstrip()
            if fence is None and line.startswith(_FENCES):
                if position > start:
                    return self._markdown_piece(position, "")
                marker = _marker(line)
                self.code = (marker, line[len(marker) :].strip().partition(" ")[0] or "text")
                self.code_first, self.start = True, newline + 1
                return self._code()
            if fence is None and stripped.startswith(_FENCES):
                fence, opened = _marker(stripped), line
            elif fence is None and not stripped and newline + 1 - start >= GROUP_CHARS:
                return self._markdown_piece(newline + 1, "", glue=False)
            elif fence is not None and _closes(line, fence):
                fence = None
            position, lines = newline + 1, lines + 1
        if lines >= MD_LINES or (len(buf) >= limit and position > start):
            return self._markdown_piece(position, opened if fence else "")
        if len(buf) > limit:
            return self._markdown_piece(_cut(buf, start, limit), opened if fence else "")
        return None

    def _markdown_piece(self, end: int, reopen: str, *, glue: bool = True) -> Piece:
        piece = self._take("md", end, next_glue=glue, info=self.reopen)
        self.reopen = reopen
        if not reopen and end < len(self.buffer) and self.buffer.startswith(_FENCES, end):
            self.glue = False
        return piece
