"""Provides Segmenter: the recorded events of a transcript, in order, as rows of indexed text.

A message (a prompt, a reply, a thought, a tool call's output) becomes one row, or several of at
most `SEGMENT_CHARS` for a long one (cut at a space), each carrying the line of the transcript
where the message starts and its turn (1 for the first prompt). Chunks join the message they
continue the way the live transcript joins them: same kind and same id (or no id on both), and
no end of turn between them.

The message still open when a batch of lines ends is kept (`OpenMessage`, stored with the
transcript's state) and its text so far is stored as a row of its own, so a streaming reply is
searchable while it streams; the next batch replaces that row as the message grows. The cost of
a streamed chunk is a few string operations, never a rewrite of the whole message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from acp_tui.store.library.text import (
    APPEND,
    MESSAGE_CHARS,
    PROMPT,
    SEAL,
    SKIP,
    WHOLE,
    Piece,
    plain,
)

__all__ = ["SEGMENT_CHARS", "OpenMessage", "Row", "Segmenter"]

SEGMENT_CHARS = 4000
"""The longest row of text; a longer message is stored in several."""

Row = tuple[int, int, int, str]
"""(line, turn, kind, text) of one stored segment."""


@dataclass(slots=True)
class OpenMessage:
    """The message the last batch of lines ended in, which the next lines may continue."""

    kind: int
    key: str | None
    line: int
    turn: int
    parts: list[str] = field(default_factory=list)
    size: int = 0
    """Characters in ``parts``: the text not yet stored as a full segment."""
    total: int = 0
    """Characters of the message indexed so far (bounded by `MESSAGE_CHARS`)."""
    row: int | None = None
    """The stored row holding ``parts`` as they were at the end of the last batch."""

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": self.kind,
                "key": self.key,
                "line": self.line,
                "turn": self.turn,
                "text": "".join(self.parts),
                "total": self.total,
                "row": self.row,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, raw: str | None) -> OpenMessage | None:
        """The stored open message; None when there is none or it is unreadable."""
        if not raw:
            return None
        try:
            data: Any = json.loads(raw)
            text = data["text"]
            row = data["row"]
            return cls(
                kind=int(data["kind"]),
                key=data["key"] if isinstance(data["key"], str) else None,
                line=int(data["line"]),
                turn=int(data["turn"]),
                parts=[text] if text else [],
                size=len(text),
                total=int(data["total"]),
                row=int(row) if isinstance(row, int) else None,
            )
        except (ValueError, TypeError, KeyError):
            return None


class Segmenter:
    """Turns pieces (see ``acp_tui.store.library.text.piece_of``) into rows, in order."""

    def __init__(
        self, turn: int = 0, open_message: OpenMessage | None = None, *, echo: bool = False
    ) -> None:
        self.turn = turn
        self.open = open_message
        self.echo = echo
        """A prompt this client sent was just recorded: the agent's echo of it (user chunks
        right after it) replaces it in the transcript, so it is neither a new turn nor new
        text."""
        self.rows: list[Row] = []
        """Complete segments to store."""
        self.stale: list[int] = []
        """Stored rows to delete (the open message's text grew past them)."""

    def feed(self, line: int, piece: Piece) -> None:
        action, kind, key, text = piece
        if action == SKIP:
            return
        if action == SEAL:
            self._close()
            self.echo = False
            return
        if self.echo and kind == PROMPT and (action == APPEND or key is not None):
            return
        self.echo = action == WHOLE and kind == PROMPT and key is None
        opened = self.open
        if action == APPEND and opened is not None and opened.kind == kind and opened.key == key:
            if text:
                self._add(opened, text)
            return
        self._close()
        if kind == PROMPT:
            self.turn += 1
        message = OpenMessage(kind, key, line, self.turn)
        if text:
            self._add(message, text)
        if action == APPEND:
            self.open = message
        else:
            self._flush(message, final=True)

    def finish(self) -> OpenMessage | None:
        """The message still open at the end of the batch (its text is not in ``rows``)."""
        return self.open

    def _add(self, message: OpenMessage, text: str) -> None:
        room = MESSAGE_CHARS - message.total
        if room <= 0:
            return
        if len(text) > room:
            text = text[:room]
        if message.row is not None:  # the stored partial row no longer holds all the text
            self.stale.append(message.row)
            message.row = None
        message.parts.append(text)
        message.size += len(text)
        message.total += len(text)
        if message.size >= SEGMENT_CHARS:
            self._flush(message, final=False)

    def _close(self) -> None:
        message, self.open = self.open, None
        if message is not None and message.row is None:
            self._flush(message, final=True)

    def _flush(self, message: OpenMessage, *, final: bool) -> None:
        """Store the message's full segments (all of it when ``final``)."""
        text = "".join(message.parts)
        while len(text) >= SEGMENT_CHARS or (final and text):
            if len(text) <= SEGMENT_CHARS:
                cut = len(text)
            else:
                cut = text.rfind(" ", SEGMENT_CHARS // 2, SEGMENT_CHARS) + 1 or SEGMENT_CHARS
            if not text[:cut].isspace():
                self.rows.append((message.line, message.turn, message.kind, plain(text[:cut])))
            text = text[cut:]
        message.parts = [text] if text else []
        message.size = len(text)
