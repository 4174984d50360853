"""``updatedAt`` as agents write it: with a zone it means what it says, without one it is the
local time of this machine (fast-agent writes ``datetime.now().isoformat()``), in every zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from acp_tui.client.history.session_text import relative_time as browser_age
from acp_tui.commands.listing import relative_time as table_age
from acp_tui.protocol.timestamps import parse_timestamp

ZONES = ["UTC", "Asia/Tokyo", "America/Los_Angeles"]
"""No offset, ahead of UTC, behind UTC (with summer time)."""


def local_wall_clock(zone: str, ago: timedelta) -> str:
    """What a clock in ``zone`` showed ``ago`` before now, written without a zone."""
    moment = datetime.now(UTC) - ago
    return moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None).isoformat(timespec="seconds")


@pytest.mark.parametrize("local_zone", ZONES, indirect=True)
def test_a_time_without_a_zone_is_local_time(local_zone: str) -> None:
    stamp = local_wall_clock(local_zone, timedelta(hours=8))
    parsed = parse_timestamp(stamp)
    assert parsed is not None
    assert parsed.tzinfo is not None
    expected = datetime.fromisoformat(stamp).replace(tzinfo=ZoneInfo(local_zone))
    assert parsed == expected
    assert browser_age(stamp) == "8 h ago"
    assert table_age(stamp, datetime.now(UTC)) == "8h ago"


@pytest.mark.parametrize("local_zone", ZONES, indirect=True)
@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2024-06-01T12:00:00Z", datetime(2024, 6, 1, 12, tzinfo=UTC)),
        ("2024-06-01T12:00:00.250z", datetime(2024, 6, 1, 12, 0, 0, 250_000, tzinfo=UTC)),
        ("2024-06-01T12:00:00+00:00", datetime(2024, 6, 1, 12, tzinfo=UTC)),
        ("2024-06-01T14:00:00+02:00", datetime(2024, 6, 1, 12, tzinfo=UTC)),
        (" 2024-06-01T07:30:00-04:30 ", datetime(2024, 6, 1, 12, tzinfo=UTC)),
    ],
)
@pytest.mark.usefixtures("local_zone")
def test_a_zone_or_offset_keeps_its_meaning(stamp: str, expected: datetime) -> None:
    assert parse_timestamp(stamp) == expected


@pytest.mark.parametrize("local_zone", ["Asia/Tokyo"], indirect=True)
def test_the_edges_of_the_calendar_and_garbage(local_zone: str) -> None:
    # Where the local zone cannot be worked out, a time without a zone is read as UTC.
    assert parse_timestamp("0001-01-01T00:00:00") == datetime(1, 1, 1, tzinfo=UTC)
    assert parse_timestamp("9999-12-31T23:59:59") is not None
    assert parse_timestamp("2024-06-01") == datetime(2024, 6, 1, tzinfo=ZoneInfo(local_zone))
    for garbage in (None, "", "   ", "yesterday", "2024-13-01T00:00:00", "Z"):
        assert parse_timestamp(garbage) is None
    assert parse_timestamp("2024-06-01T12:00:00+09:00") == datetime(
        2024, 6, 1, 12, tzinfo=timezone(timedelta(hours=9))
    )
