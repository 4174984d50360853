"""Provides parse_timestamp: the protocol's ISO 8601 times (``updatedAt``) as aware datetimes.

No pydantic here: the session browser's rows and the headless commands read times before (or
without) the wire models.
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["parse_timestamp"]


def parse_timestamp(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime; no timezone means UTC; garbage means None."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip()
    if text[-1:] in ("z", "Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed
