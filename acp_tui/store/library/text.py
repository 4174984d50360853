"""Provides what the library takes from one recorded event: which message it belongs to, and its
text made plain and bounded.

Indexed: prompts (typed or replayed), replies, thoughts (marked as such), tool calls' titles and
text output, and the names of attached files. Left out: images, audio, plans, terminals' bytes,
everything else. Text is plain: control characters, terminal escapes, bidi controls and lone
surrogates become one visible character each (so a snippet can be shown literally, and the
offsets of its matches stay right), and everything is cut at `MESSAGE_CHARS` per message.

A line longer than `LINE_BYTES` (a hostile 10 MB update) is not parsed whole: the text at its
start is decoded from its first bytes (`partial_event`), so indexing never holds the GIL for
long and never allocates the whole line's objects.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "APPEND",
    "KIND_NAMES",
    "LINE_BYTES",
    "MESSAGE_CHARS",
    "PROMPT",
    "REPLY",
    "SEAL",
    "SKIP",
    "THOUGHT",
    "TOOL",
    "WHOLE",
    "Piece",
    "partial_event",
    "piece_of",
    "plain",
]

PROMPT, REPLY, THOUGHT, TOOL = 0, 1, 2, 3
KIND_NAMES = ("prompt", "reply", "thought", "tool")

APPEND, WHOLE, SEAL, SKIP = 0, 1, 2, 3
"""What an event does: adds to the open message, is a message by itself, ends the turn (the
next chunk starts a new message), or adds nothing."""

MESSAGE_CHARS = 256_000
"""At most this much of one message is indexed."""
TOOL_CHARS = 64_000
"""At most this much of one tool call event (title and text output)."""
LINE_BYTES = 1_000_000
"""Longer recorded lines are read only in part (their first bytes)."""
PARTIAL_SCAN = 65_536
"""How far into a long line its kind and ids are looked for."""

Piece = tuple[int, int, str | None, str]
"""(action, kind, key, text): key is the message or tool call id, when there is one."""

_SKIP: Piece = (SKIP, 0, None, "")
_SEAL: Piece = (SEAL, 0, None, "")

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ue000\ue001]"
)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return " "
    if code < 0x20:
        return chr(0x2400 + code)  # the "control pictures": ESC shows as ␛
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"  # C1 and bidi controls, lone surrogates, the snippets' own markers


def plain(text: str) -> str:
    """``text`` with every unsafe character replaced by one visible character (tab and line
    feed kept)."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_visible, text)


def block_text(block: Any) -> str:
    """The searchable text of one content block: its text, or the name of a linked or embedded
    resource; nothing for images and audio."""
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if kind == "resource_link":
        name, uri = block.get("name"), block.get("uri")
        return name if isinstance(name, str) and name else uri if isinstance(uri, str) else ""
    if kind == "resource":
        resource = block.get("resource")
        uri = resource.get("uri") if isinstance(resource, dict) else None
        return uri if isinstance(uri, str) else ""
    return ""


def blocks_text(blocks: Any) -> str:
    if not isinstance(blocks, list):
        return ""
    return "\n".join(text for text in map(block_text, blocks) if text)


def _tool_text(update: dict[str, Any]) -> str:
    parts: list[str] = []
    title = update.get("title")
    if isinstance(title, str) and title:
        parts.append(title)
    content = update.get("content")
    items = content if isinstance(content, list) else [content] if content else []
    size = len(parts[0]) if parts else 0
    for item in items:
        if size >= TOOL_CHARS or not isinstance(item, dict):
            continue
        kind = item.get("type")
        text = ""
        if kind == "content":
            text = block_text(item.get("content"))
        elif kind == "diff":
            path = item.get("path")
            text = path if isinstance(path, str) else ""
        if text:
            parts.append(text)
            size += len(text)
    return "\n".join(parts)[:TOOL_CHARS]


def _key(update: dict[str, Any], field: str) -> str | None:
    value = update.get(field)
    return value if isinstance(value, str) else None


_CHUNKS = {
    "agent_message_chunk": REPLY,
    "agent_thought_chunk": THOUGHT,
    "user_message_chunk": PROMPT,
}
_WHOLE_MESSAGES = {"agent_message": REPLY, "agent_thought": THOUGHT, "user_message": PROMPT}


def piece_of(event: Any) -> Piece:
    """What one parsed transcript line (``{"t": ...}``) adds to the index."""
    if not isinstance(event, dict):
        return _SKIP
    kind = event.get("t")
    if kind == "update":
        update = event.get("update")
        return _update_piece(update) if isinstance(update, dict) else _SKIP
    if kind == "user":
        return (WHOLE, PROMPT, None, blocks_text(event.get("blocks")))
    if kind == "end":
        return _SEAL
    return _SKIP


def _update_piece(update: dict[str, Any]) -> Piece:
    what = update.get("sessionUpdate")
    chunk = _CHUNKS.get(what) if isinstance(what, str) else None
    if chunk is not None:
        return (APPEND, chunk, _key(update, "messageId"), block_text(update.get("content")))
    whole = _WHOLE_MESSAGES.get(what) if isinstance(what, str) else None
    if whole is not None:
        return (WHOLE, whole, _key(update, "messageId"), blocks_text(update.get("content")))
    if what in ("tool_call", "tool_call_update"):
        return (WHOLE, TOOL, _key(update, "toolCallId"), _tool_text(update))
    if what == "tool_call_content_chunk":
        return (APPEND, TOOL, _key(update, "toolCallId"), _tool_text(update))
    if what == "state_update" and update.get("state") == "idle":
        return _SEAL
    return _SKIP


_UPDATE_KIND = re.compile(rb'"sessionUpdate"\s*:\s*"([a-z_]{1,40})"')
_USER = re.compile(rb'"t"\s*:\s*"user"')
_ID = re.compile(rb'"(messageId|toolCallId)"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
_TEXT = re.compile(rb'"(?:text|title)"\s*:\s*"')
_TAIL_ESCAPE = re.compile(r"(\\+)(?:u[0-9a-fA-F]{0,3})?$")


def partial_event(head: bytes, end: bytes = b"") -> Piece:
    """What a line too long to parse adds, from its first bytes (and its last ones, ``end``,
    where the ids may be): its kind and ids and the start of its first text, decoded up to
    `MESSAGE_CHARS`."""
    scan = head[:PARTIAL_SCAN]
    found = _UPDATE_KIND.search(scan)
    if found is not None:
        what = found.group(1).decode("ascii")
        action, kind = (WHOLE, TOOL) if what.startswith("tool_call") else (SKIP, 0)
        if what in _CHUNKS:
            action, kind = APPEND, _CHUNKS[what]
        elif what in _WHOLE_MESSAGES:
            action, kind = WHOLE, _WHOLE_MESSAGES[what]
    elif _USER.search(scan) is not None:
        action, kind = WHOLE, PROMPT
    else:
        return _SKIP
    if action == SKIP:
        return _SKIP
    ident = _ID.search(scan) or _ID.search(end[-PARTIAL_SCAN:])
    key = _json_string(ident.group(2)) if ident is not None else None
    start = _TEXT.search(head)
    text = _string_start(head[start.end() :]) if start is not None else ""
    return (action, kind, key, text)


def _json_string(raw: bytes) -> str | None:
    try:
        value = json.loads(b'"' + raw + b'"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _string_start(raw: bytes) -> str:
    """The JSON string starting at ``raw`` (after its opening quote), as far as it goes in
    ``raw`` and at most `MESSAGE_CHARS` characters."""
    text = raw[: MESSAGE_CHARS * 6].decode("utf-8", "ignore")
    end = re.search(r'(?<!\\)(?:\\\\)*"', text)
    body = text[: end.start() + (len(end.group()) - 1)] if end is not None else text
    cut = _TAIL_ESCAPE.search(body)
    if cut is not None and len(cut.group(1)) % 2 == 1:  # an escape cut in the middle
        body = body[: cut.end(1) - 1]
    try:
        value = json.loads('"' + body + '"')
    except ValueError:
        return ""
    return value[:MESSAGE_CHARS] if isinstance(value, str) else ""
