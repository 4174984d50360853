"""Provides keyset pagination for ``session/list`` with opaque, filter-bound cursors.

Sessions are listed newest first: ``updatedAt`` descending, then ``sessionId`` descending. A
cursor names the last session of the previous page (its ``updatedAt`` and id), so sessions
created while a client pages never shift the remaining pages. Each cursor carries a fingerprint
of the filters it was issued for; reusing it with other filters is an invalid cursor.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

from acp_tui.demo_agent.store import SessionRecord
from acp_tui.protocol.jsonrpc import RpcError

CURSOR_VERSION = 1

Key = tuple[str, str]


def fingerprint(cwd: str | None, additional_directories: list[str] | None) -> str:
    """A short digest of the filters a cursor belongs to."""
    raw = json.dumps([cwd, additional_directories], separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def encode_cursor(key: Key, filters: str) -> str:
    payload = {"v": CURSOR_VERSION, "u": key[0], "i": key[1], "f": filters}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: Any, filters: str) -> Key:
    """The position a cursor names; -32602 "invalid cursor" for anything else."""
    if not isinstance(cursor, str) or not cursor:
        raise RpcError.invalid_params("invalid cursor", {"cursor": cursor})
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = json.loads(raw)
    except (binascii.Error, ValueError):
        raise RpcError.invalid_params("invalid cursor", {"cursor": cursor}) from None
    if (
        not isinstance(payload, dict)
        or payload.get("v") != CURSOR_VERSION
        or not isinstance(payload.get("u"), str)
        or not isinstance(payload.get("i"), str)
    ):
        raise RpcError.invalid_params("invalid cursor", {"cursor": cursor})
    if payload.get("f") != filters:
        raise RpcError.invalid_params(
            "invalid cursor (it was issued for different filters)", {"cursor": cursor}
        )
    return (payload["u"], payload["i"])


def page(
    ascending: Sequence[SessionRecord],
    keep: Callable[[SessionRecord], bool],
    after: Key | None,
    size: int,
) -> tuple[list[SessionRecord], Key | None]:
    """Up to ``size`` matching records older than ``after``, and the key to continue from.

    ``ascending`` is ordered by ``sort_key``; the walk goes backwards from the newest.
    """
    index = len(ascending) if after is None else bisect_left(ascending, after, key=_sort_key)
    found: list[SessionRecord] = []
    while index > 0:
        index -= 1
        record = ascending[index]
        if not keep(record):
            continue
        if len(found) == size:
            return found, found[-1].sort_key
        found.append(record)
    return found, None


def _sort_key(record: SessionRecord) -> Key:
    return record.sort_key


def session_info(record: SessionRecord, *, with_directories: bool) -> dict[str, Any]:
    """The ``SessionInfo`` of a record; ``additionalDirectories`` always when served."""
    info: dict[str, Any] = {"sessionId": record.session_id, "cwd": record.cwd}
    if with_directories:
        info["additionalDirectories"] = list(record.additional_directories)
    if record.title is not None:
        info["title"] = record.title
    if record.updated_at:
        info["updatedAt"] = record.updated_at
    return info


def list_sessions(
    ascending: Sequence[SessionRecord],
    *,
    cwd: str | None,
    additional_directories: list[str] | None,
    cursor: Any,
    page_size: int,
    with_directories: bool,
) -> dict[str, Any]:
    """One ``session/list`` result: exact ``cwd`` and ordered ``additionalDirectories`` filters."""
    filters = fingerprint(cwd, additional_directories)
    after = None if cursor is None else decode_cursor(cursor, filters)

    def keep(record: SessionRecord) -> bool:
        return (cwd is None or record.cwd == cwd) and (
            additional_directories is None
            or record.additional_directories == additional_directories
        )

    records, next_key = page(ascending, keep, after, page_size)
    result: dict[str, Any] = {
        "sessions": [session_info(r, with_directories=with_directories) for r in records]
    }
    if next_key is not None:
        result["nextCursor"] = encode_cursor(next_key, filters)
    return result
