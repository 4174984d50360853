"""Provides parse_timestamp: the protocol's ISO 8601 times (``updatedAt``) as aware datetimes.

The schema asks for RFC 3339 (with a zone), but real agents write local time without one
(fast-agent: ``datetime.now().isoformat()``), so a time without a zone is read as this machine's
local time, the zone the agent most likely wrote it in. A ``Z`` or an offset means what it says.

No pydantic here: the session browser's rows and the headless commands read times before (or
without) the wire models.
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["parse_timestamp"]


def parse_timestamp(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime; garbage means None.

    No timezone means local time (at the edges of the calendar, where the local zone cannot be
    worked out, UTC).
    """
    if not value or not isinstance(value, str):
        return None
    text = value.strip()
    if text[-1:] in ("z", "Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        return parsed
    try:
        return parsed.astimezone()  # a naive datetime's astimezone() takes it as local time
    except (ValueError, OverflowError, OSError):
        return parsed.replace(tzinfo=UTC)
