"""Provides the events of a recorded transcript file, and the parser of one of its lines.

See ``acp_tui.store.transcripts`` for the file layout. Lines of a kind this version does not
know are skipped, so an older acp-tui reads a newer file (and the other way round).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

__all__ = ["RecordedEvent", "RecordedTurnEnd", "RecordedUpdate", "RecordedUser", "parse_line"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordedUpdate:
    """A `session/update` as received: the wire object of its ``update``."""

    update: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RecordedUser:
    """A prompt the client sent: its content blocks as wire objects."""

    blocks: list[Any]


@dataclass(frozen=True, slots=True)
class RecordedTurnEnd:
    """A prompt turn ended here (with its stop reason, when known): a chunk recorded after it
    starts a new message on replay, as it did live."""

    stop_reason: str | None = None


RecordedEvent = RecordedUpdate | RecordedUser | RecordedTurnEnd


def parse_line(raw: bytes) -> RecordedEvent | None:
    """The event of one line; None for a blank, torn, corrupt or unknown one."""
    if not raw.strip():
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        log.debug("skipping a torn, corrupt or too deeply nested transcript line")
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("t")
    if kind == "update" and isinstance(data.get("update"), dict):
        return RecordedUpdate(data["update"])
    if kind == "user" and isinstance(data.get("blocks"), list):
        return RecordedUser(data["blocks"])
    if kind == "end":
        reason = data.get("stopReason")
        return RecordedTurnEnd(reason if isinstance(reason, str) else None)
    return None
