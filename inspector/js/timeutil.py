"""ISO-8601 text <-> epoch milliseconds, the way OpenClaw and pi convert them in JavaScript.

pi writes every entry's `timestamp` with `new Date().toISOString()` and reads one back with
`new Date(iso).getTime()` (e.g. the `compactionSummary` message built from a compaction entry); OpenClaw's
cache-TTL gate compares epoch milliseconds. A JavaScript time value is a whole number of milliseconds:

* `iso_from_ms(ms)` is `new Date(ms).toISOString()`: the value is truncated toward zero to whole milliseconds
  (TimeClip), printed as `YYYY-MM-DDTHH:mm:ss.sssZ` in UTC; years outside 0..9999 use JS's six-digit signed
  form (`+012345-...`, `-000001-...`). Like JS's RangeError, NaN, ±Infinity and |ms| > 8.64e15 raise
  `ValueError`. `None` passes through, for optional fields.
* `ms_from_iso(text)` is `new Date(text).getTime()` for ISO-8601 text as V8 reads it: exact integer milliseconds
  (digits past the millisecond dropped), `Z`/`z` or a numeric offset, `T` or a space between date and time, a
  day past the month's end rolling over (`2026-02-30` is March 2nd), `24:00` as the next midnight, six-digit
  years. A date-time without an offset is taken as UTC (pi always writes `Z`; JS would use the local zone).
  Raises `ValueError` where JavaScript gives NaN (surrounding spaces, `20260102T...`, month 13, ...). Non-ISO
  text that V8's fallback parser also reads (`Jan 2 2026`) is out of scope and raises too.
* `iso_to_ms(value)` is the same for any value read from a file: `None` where JavaScript gives NaN, and for
  values that are not strings.
"""

from __future__ import annotations

import math
import re
from typing import Any, overload

__all__ = ["iso_from_ms", "iso_to_ms", "ms_from_iso"]

_MS_PER_DAY = 86_400_000
_MAX_TIME_MS = 8.64e15  # ECMAScript TimeClip: ±100,000,000 days around the epoch
# ECMAScript's Date Time String Format: YYYY or ±YYYYYY, then -MM, -DD, THH:mm, :ss, .sss (V8 takes any number of
# digits and keeps three), Z or ±HH:mm. V8 also reads a space for the T and ±HHMM offsets (its fallback parser).
_DATE_TIME_RE = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d\d)(?:-(\d\d))?)?"
    r"(?:([Tt ])(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?([Zz]|[+-]\d\d:?\d\d)?)?",
    re.ASCII,
)


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """Proleptic Gregorian (year, month, day) of a day count since 1970-01-01 (H. Hinnant's algorithm)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


@overload
def iso_from_ms(ms: None) -> None: ...


@overload
def iso_from_ms(ms: float) -> str: ...


def iso_from_ms(ms: float | None) -> str | None:
    """JavaScript `new Date(ms).toISOString()` (UTC, milliseconds, `Z`); `None` stays `None`."""
    if ms is None:
        return None
    if not abs(ms) <= _MAX_TIME_MS:  # also NaN, ±Infinity
        raise ValueError("Invalid time value")  # JS: RangeError
    days, rest = divmod(int(ms), _MS_PER_DAY)  # int(): truncation toward zero, like TimeClip
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    year, month, day = _civil_from_days(days)
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (inverse of `_civil_from_days`)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468


def ms_from_iso(text: str) -> int:
    """JavaScript `new Date(text).getTime()` for an ISO-8601 timestamp; `ValueError` where JS gives NaN."""
    m = _DATE_TIME_RE.fullmatch(text)
    if m is None:
        raise ValueError(f"not an ISO-8601 date-time: {text!r}")
    year_text, month, day, sep, hour, minute, second, fraction, zone = m.groups()
    if year_text == "-000000":
        raise ValueError("-000000 is not a year")
    if (sep == " " or (zone and len(zone) == 5)) and (len(year_text) != 4 or year_text < "0100"):
        # Only V8's fallback parser reads these forms, and it has its own rules for other years (0049 is 2049).
        raise ValueError(f"not an ISO-8601 date-time JavaScript reads the same way: {text!r}")
    year, month_n, day_n = int(year_text), int(month or 1), int(day or 1)
    h, mi, sec = int(hour or 0), int(minute or 0), int(second or 0)
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    # V8 checks the day against 1..31 only: 2026-02-30 is 2026-03-02.
    if not (1 <= month_n <= 12 and 1 <= day_n <= 31):
        raise ValueError(f"no such date: {text!r}")
    if mi > 59 or sec > 59 or h > 24 or (h == 24 and (mi or sec or millis)):
        raise ValueError(f"no such time: {text!r}")
    offset = 0
    if zone and zone not in ("Z", "z"):
        oh, om = int(zone[1:3]), int(zone[-2:])
        if oh > 23 or om > 59:
            raise ValueError(f"no such offset: {text!r}")
        offset = (oh * 60 + om) * (1 if zone[0] == "+" else -1)
    ms = _days_from_civil(year, month_n, day_n) * _MS_PER_DAY + ((h * 60 + mi - offset) * 60 + sec) * 1000 + millis
    if not abs(ms) <= _MAX_TIME_MS:
        raise ValueError("Invalid time value")
    return ms


def iso_to_ms(value: Any) -> int | None:
    """`new Date(value).getTime()` for an ISO timestamp read from a session file.

    `None` where JavaScript gives NaN, and for any value that is not a string (pi only ever writes strings there).
    """
    if not isinstance(value, str):
        return None
    try:
        return ms_from_iso(value)
    except ValueError:
        return None


def iso_or_none(ms: float | None) -> str | None:
    """`new Date(ms).toISOString()`, or None where JavaScript would throw (outside ±8.64e15 ms) or for None."""
    if ms is None:
        return None
    try:
        return iso_from_ms(ms)
    except ValueError:
        return None


def js_number(value: Any) -> float | None:
    """A JSON value as JavaScript holds it, when it is a finite number: `typeof v === "number" && isFinite(v)`.

    Integers too large for a double become Infinity in JavaScript, so they are not finite here either.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def ms_from_any(value: Any) -> float | None:
    """Epoch ms from a finite number (already ms) or an ISO string; None when neither."""
    number = js_number(value)
    if number is not None:
        return number
    if isinstance(value, str):
        try:
            return float(ms_from_iso(value))
        except ValueError:
            return None
    return None


# ------------------------------------------------------------------------------------- the one expiry rule
