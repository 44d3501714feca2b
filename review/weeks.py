"""ISO week helpers."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def parse_week(week: str) -> tuple[datetime, datetime]:
    """'2026-W47' -> [Monday 00:00, next Monday 00:00) in UTC."""
    m = _WEEK.match(week)
    if not m:
        raise ValueError(f"week must look like 2026-W47, got {week!r}")
    try:
        monday = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
    except ValueError as exc:
        raise ValueError(f"no such ISO week: {week}") from exc
    start = datetime(monday.year, monday.month, monday.day, tzinfo=timezone.utc)
    return start, start + timedelta(days=7)


def iso_week(day: date | datetime) -> str:
    y, w, _ = day.isocalendar()
    return f"{y}-W{w:02d}"


def previous_week(week: str) -> str:
    start, _ = parse_week(week)
    return iso_week(start - timedelta(days=7))
