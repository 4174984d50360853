"""Provides the per-agent session index of the transcript cache.

The index is one small JSON file per agent listing the sessions this client created or opened
with that agent (``sessionId``, ``cwd``, ``additionalDirectories``, ``title``, ``updatedAt`` in
ISO 8601 UTC, ``createdByClient``, ``firstPrompt``: the start of the first prompt sent, a title
for agents that give none). It is read whole and rewritten atomically (temporary file in
the same directory, then ``os.replace``), only when a session is noted or its title or time
changes, never per streamed chunk. A missing or corrupt index reads as empty.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp_tui.config.atomic import write_atomic
from acp_tui.protocol.timestamps import parse_timestamp

log = logging.getLogger(__name__)

INDEX_VERSION = 1
INDEX_LIMIT = 1000
"""At most this many sessions are indexed per agent; the least recently updated go first."""
PROMPT_TITLE_CHARS = 80
"""The first prompt kept as a title is cut to this many characters."""


def utc_now_iso() -> str:
    """The current time as ISO 8601 UTC with a ``Z``, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class CachedSession:
    """One indexed session of one agent."""

    session_id: str
    cwd: str
    additional_directories: tuple[str, ...] = ()
    title: str | None = None
    updated_at: str | None = None
    """ISO 8601; what the agent said (``session_info_update``) or when this client used it."""
    created_by_client: bool = False
    """Whether this client created the session (as opposed to opening a listed one)."""
    first_prompt: str | None = None
    """The start of the first prompt this client sent in it (one line, bounded)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Fields of the index entry this version does not know, kept on rewrite."""

    @property
    def updated(self) -> datetime | None:
        return parse_timestamp(self.updated_at)

    @property
    def shown_title(self) -> str | None:
        """The agent's title, else the first prompt."""
        return self.title or self.first_prompt

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "additionalDirectories": list(self.additional_directories),
            "title": self.title,
            "updatedAt": self.updated_at,
            "createdByClient": self.created_by_client,
            **({"firstPrompt": self.first_prompt} if self.first_prompt is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> CachedSession | None:
        """Parse one index entry; None when it is unusable."""
        if not isinstance(data, dict):
            return None
        session_id, cwd = data.get("sessionId"), data.get("cwd")
        if not isinstance(session_id, str) or not isinstance(cwd, str):
            return None
        dirs = data.get("additionalDirectories")
        title, updated = data.get("title"), data.get("updatedAt")
        prompt = data.get("firstPrompt")
        known = {"sessionId", "cwd", "additionalDirectories", "title", "updatedAt", "firstPrompt"}
        return cls(
            session_id=session_id,
            cwd=cwd,
            additional_directories=tuple(
                d for d in (dirs if isinstance(dirs, list) else []) if isinstance(d, str)
            ),
            title=title if isinstance(title, str) else None,
            updated_at=updated if isinstance(updated, str) else None,
            created_by_client=data.get("createdByClient") is True,
            first_prompt=prompt if isinstance(prompt, str) and prompt.strip() else None,
            extra={k: v for k, v in data.items() if k not in known | {"createdByClient"}},
        )


def prompt_title(blocks_wire: Iterable[Any]) -> str | None:
    """A title from a prompt's content blocks: the first line of its text, bounded; None when
    it has no text."""
    for block in blocks_wire:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            for line in text.splitlines() if isinstance(text, str) else ():
                words = " ".join(line.split())
                if words:
                    cut = len(words) > PROMPT_TITLE_CHARS
                    return words[: PROMPT_TITLE_CHARS - 1].rstrip() + "…" if cut else words
    return None


def newest_first(sessions: Iterable[CachedSession]) -> list[CachedSession]:
    """Sorted by ``updatedAt``, newest first; sessions without a usable time come last."""
    return sorted(sessions, key=lambda s: s.updated or _EPOCH, reverse=True)


def read_index(path: Path) -> dict[str, CachedSession]:
    """The index at ``path`` by session id; empty when missing, unreadable or corrupt."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        log.debug("cannot read the session index %s: %s", path, exc)
        return {}
    except (ValueError, RecursionError) as exc:
        # Starting afresh: the sessions are still the agent's, and the index is rewritten.
        log.warning("ignoring the corrupt session index %s: %s", path, exc or "nested too deeply")
        return {}
    entries = raw.get("sessions") if isinstance(raw, dict) else None
    sessions: dict[str, CachedSession] = {}
    for item in entries if isinstance(entries, list) else []:
        session = CachedSession.from_json(item)
        if session is not None and _writable(session):
            sessions[session.session_id] = session
    return sessions


def _writable(session: CachedSession) -> bool:
    """Whether the entry can be written back (its unknown keys may nest too deeply to)."""
    try:
        json.dumps(session.extra)
    except (ValueError, TypeError, RecursionError):
        log.warning("dropping an unusable entry of the session index: %s", session.session_id)
        return False
    return True


def write_index(path: Path, agent_key: str, sessions: Iterable[CachedSession]) -> list[str]:
    """Atomically write the index, keeping the newest `INDEX_LIMIT` sessions.

    Returns the ids of the sessions dropped to stay within the limit. Raises ``OSError``.
    """
    ordered = newest_first(sessions)
    kept, dropped = ordered[:INDEX_LIMIT], ordered[INDEX_LIMIT:]
    document = {
        "version": INDEX_VERSION,
        "agent": agent_key,
        "sessions": [s.to_json() for s in kept],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    write_atomic(path, text.encode("utf-8"))
    return [s.session_id for s in dropped]


def merged(
    previous: CachedSession | None,
    session_id: str,
    *,
    cwd: str,
    additional_directories: tuple[str, ...],
    title: str | None,
    updated_at: str | None,
    created: bool,
) -> CachedSession:
    """The index entry after noting a session: a new title replaces, None keeps the old one."""
    if previous is None:
        return CachedSession(
            session_id=session_id,
            cwd=cwd,
            additional_directories=additional_directories,
            title=title,
            updated_at=updated_at or utc_now_iso(),
            created_by_client=created,
        )
    return replace(
        previous,
        cwd=cwd,
        additional_directories=additional_directories,
        title=title if title is not None else previous.title,
        updated_at=updated_at or utc_now_iso(),
        created_by_client=previous.created_by_client or created,
    )
