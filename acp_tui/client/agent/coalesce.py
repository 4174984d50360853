"""Provides ChunkRun: consecutive text chunks of one message, joined before they are parsed.

A streamed reply arrives as thousands of `session/update` notifications, each a few words of
one message. Validating, applying, recording and showing each one on its own was most of the
client's time. The read loop now hands the AgentClient every notification of a block read from
the pipe; plain text chunks (``agent_message_chunk``, ``agent_thought_chunk``,
``user_message_chunk`` whose content is a bare text block) are recognised with a few dict
lookups and held back while they continue the same message, then passed on as one notification
of the same shape with their texts joined, when anything else arrives or the block ends
(``Connection.on_drain``). Arrival order is kept: nothing overtakes a held chunk.

The joined notification has exactly the keys of the first chunk, so it parses with whatever
dialect the session speaks, and it means the same to the transcript as its parts did.

Some updates each replace the whole of one state of a session: a plan (always the full list),
the available commands, the config options, the current mode, the usage; and a session's
title and time, of which each ``session_info_update`` replaces those it gives. A run of them of
one kind for one session, nothing else between (for session info: each giving at least what
the one before gave), means what its last one means: ``LatestRun`` holds the last one parsed
(each is still parsed, so a malformed one is skipped and said as ever) and hands it on when
anything else arrives or the block ends. A flood of 10,000 plans so costs the app a parse
each, and the rest (applying, recording, indexing, showing) once per block.
"""

from __future__ import annotations

from typing import Any

from acp_tui.protocol import updates as v1u

__all__ = ["SUPERSEDING", "ChunkRun", "LatestRun", "covers", "text_chunk"]

CHUNK_KINDS = frozenset({"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"})

Key = tuple[str, str, Any]
"""(session id, update kind, message id) of a chunk: chunks join only when these match."""


def text_chunk(params: Any) -> tuple[Key, str] | None:
    """The key and text of a plain text chunk's params, or None for anything else.

    Plain means no other field at all (no ``_meta``, no annotations), so joining loses nothing.
    """
    if type(params) is not dict or len(params) != 2:
        return None
    session_id = params.get("sessionId")
    update = params.get("update")
    if type(session_id) is not str or type(update) is not dict:
        return None
    kind = update.get("sessionUpdate")
    if kind not in CHUNK_KINDS:
        return None
    content = update.get("content")
    if type(content) is not dict or len(content) != 2 or content.get("type") != "text":
        return None
    text = content.get("text")
    if type(text) is not str:
        return None
    message_id = update.get("messageId")
    if "messageId" in update:
        if message_id is not None and type(message_id) is not str:
            return None
        if len(update) != 3:
            return None
    elif len(update) != 2:
        return None
    return (session_id, kind, message_id), text


class ChunkRun:
    """The text chunks held back: the first one's params and every text, in order."""

    __slots__ = ("count", "first", "key", "texts")

    def __init__(self) -> None:
        self.key: Key | None = None
        self.first: dict[str, Any] | None = None
        self.texts: list[str] = []
        self.count = 0

    def add(self, key: Key, text: str, params: dict[str, Any]) -> bool:
        """Hold this chunk back; False when it does not continue the run (flush it first)."""
        if self.key is None:
            self.key, self.first = key, params
        elif key != self.key:
            return False
        self.texts.append(text)
        self.count += 1
        return True

    def take(self) -> Any:
        """The held chunks as one notification's params (None when nothing is held); resets."""
        first, texts = self.first, self.texts
        if first is None:
            return None
        self.key = self.first = None
        self.texts = []
        self.count = 0
        if len(texts) == 1:
            return first
        update = dict(first["update"])
        update["content"] = {"type": "text", "text": "".join(texts)}
        return {"sessionId": first["sessionId"], "update": update}


SUPERSEDING: frozenset[type[Any]] = frozenset(
    {
        v1u.PlanUpdate,
        v1u.AvailableCommandsUpdate,
        v1u.ConfigOptionUpdate,
        v1u.CurrentModeUpdate,
        v1u.UsageUpdate,
        v1u.SessionInfoUpdate,
    }
)
"""The parsed updates each of which replaces the whole state the one before it set (the
transcript keeps nothing of a plan, command list, option list, mode or usage it replaced), or,
for session info, the part of it that it gives (`covers`)."""
_INFO_FIELDS = frozenset({"title", "updated_at"})


def covers(update: Any, held: Any) -> bool:
    """Whether ``update`` replaces everything ``held`` (of the same kind) set: a session info
    update gives at least the fields the held one gave (omitted ones are left as they were)."""
    if isinstance(update, v1u.SessionInfoUpdate):
        given: set[str] = update.model_fields_set & _INFO_FIELDS
        held_given: set[str] = held.model_fields_set & _INFO_FIELDS
        return given >= held_given
    return True


class LatestRun:
    """The last of a run of superseding updates of one kind for one session (see above)."""

    __slots__ = ("key", "latest", "superseded")

    def __init__(self) -> None:
        self.key: tuple[str, type[Any]] | None = None
        self.latest: Any = None
        self.superseded = 0
        """How many updates the held one replaced (all runs so far)."""

    @staticmethod
    def supersedes(events: list[Any]) -> bool:
        """Whether parsed ``events`` are one update a later one of its kind replaces whole."""
        return len(events) == 1 and type(events[0]) in SUPERSEDING

    def add(self, session_id: str, update: Any) -> bool:
        """Hold ``update`` in place of the one held; False when it does not continue the run
        (take the held one first)."""
        key = (session_id, type(update))
        if self.key is None:
            self.key = key
        elif key != self.key or not covers(update, self.latest):
            return False
        else:
            self.superseded += 1
        self.latest = update
        return True

    def take(self) -> tuple[str, Any] | None:
        """The session and the update held (None when nothing is); resets."""
        if self.key is None:
            return None
        held = (self.key[0], self.latest)
        self.key = self.latest = None
        return held
