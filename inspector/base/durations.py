"""Durations as a person reads them: `format_duration_ms` (`4m 12s`, `2h 03m`, `3d 4h`)."""

from __future__ import annotations

import math


def format_duration_ms(ms: float) -> str:
    """A short human duration: `4m 12s`, `2h 03m`, `3d 4h` (`∞` for a non-finite value)."""
    if not math.isfinite(ms):
        return "∞" if ms > 0 else "-∞"
    sign = "-" if ms < 0 else ""
    s = int(abs(ms) // 1000)
    d, s = divmod(s, 86_400)
    h, s = divmod(s, 3_600)
    m, s = divmod(s, 60)
    if d:
        return f"{sign}{d}d {h}h"
    if h:
        return f"{sign}{h}h {m:02d}m"
    if m:
        return f"{sign}{m}m {s:02d}s"
    return f"{sign}{s}s"
