"""OpenClaw's duration syntax (`parseDurationMs`, and `duration_setting` that writes a `ttl` it reads back: `5m`, `1h30m`, a bare number in a default unit), which every release
carried reads its `ttl` with and which `prune --ttl` and the settings panel parse before any session (and so any rule
set) is known; and JavaScript's `Number.MAX_SAFE_INTEGER`, the bound of the config's integers."""

from __future__ import annotations

import math
import re

from inspector.js.utf16 import js_trim

_DURATION_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)?$")
_DURATION_PART_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
MAX_SAFE_INTEGER = 2**53 - 1
"""JavaScript's `Number.MAX_SAFE_INTEGER`: zod's `.int()` bound in OpenClaw's config schema."""


class DurationError(ValueError):
    """Raised by `parse_duration_ms` for text OpenClaw's `parseDurationMs` rejects."""


def _js_round(x: float) -> float:
    """JavaScript `Math.round` (halves round up)."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def parse_duration_ms(raw: str, default_unit: str = "m") -> int:
    """OpenClaw `parseDurationMs(raw, {defaultUnit})` (`src/cli/parse-duration.ts`; unchanged from 2026.4.12 to 2026.9.6).

    `"5m"`, `"1h"`, `"90s"`, `"1.5h"`; a bare number uses `default_unit`; a sequence of parts such as `"1h30m"`
    is summed in floating point, then rounded (`Math.round`). Raises `DurationError` for empty or malformed
    text and for a value JavaScript cannot hold (Infinity). The result is an `int` (exact, even past 2**53).
    """
    trimmed = js_trim(raw if isinstance(raw, str) else "").lower()
    if not trimmed:
        raise DurationError("invalid duration (empty)")
    single = _DURATION_RE.match(trimmed)
    if single:
        value = float(single.group(1))
        total = value * _UNIT_MS[single.group(2) or default_unit]
    else:
        total = 0.0
        consumed = 0
        for part in _DURATION_PART_RE.finditer(trimmed):
            if part.start() != consumed:
                raise DurationError(f"invalid duration: {raw}")
            total += float(part.group(1)) * _UNIT_MS[part.group(2)]
            consumed = part.end()
        if consumed != len(trimmed) or consumed == 0:
            raise DurationError(f"invalid duration: {raw}")
    if not math.isfinite(total):
        raise DurationError(f"invalid duration: {raw}")
    return int(_js_round(total))


# Largest unit first: parse_duration_ms reads each of these back to the same number of milliseconds.
_DURATION_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))


def duration_setting(ttl_ms: int) -> str:
    """A `ttl` string OpenClaw's `parseDurationMs` reads back to exactly `ttl_ms`: `5m`, `1h`, `90s`, `1500ms`."""
    ttl_ms = int(ttl_ms)
    if ttl_ms <= 0:
        return "0m"
    for unit, size in _DURATION_UNITS:
        if ttl_ms % size == 0:
            return f"{ttl_ms // size}{unit}"
    return f"{ttl_ms}ms"
