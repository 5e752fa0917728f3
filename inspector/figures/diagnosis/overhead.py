"""What the transcript does not show: per call, the recorded prompt minus the estimate of the transcript sent.

This is *derived*, never recorded: `not_in_transcript = (input + cacheRead + cacheWrite) − transcript_estimate`.
It holds the system prompt, the tool schemas and any context injected outside the session file (bootstrap files,
memory, skills), plus the error of pi's chars/4 estimator itself (which undercounts code and non-Latin text, and
overcounts images), so it can drift with the content and even go negative.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from inspector.figures.diagnosis.calls import CallPoint

FLAT_SLOPE_TOKENS_PER_CALL = 1.0

METHOD = (
    "derived: recorded prompt (input + cacheRead + cacheWrite) minus pi's chars/4 estimate of the context messages "
    "sent before that call; the rest is system prompt, tool schemas and injected context, plus estimator error"
)


@dataclass(frozen=True, slots=True)
class OverheadTrend:
    """Least-squares slope of `not_in_transcript` over the call index, and the first/second-half means."""

    slope_tokens_per_call: float | None
    first_half_mean: float | None
    second_half_mean: float | None
    direction: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "slope_tokens_per_call": self.slope_tokens_per_call,
            "first_half_mean": self.first_half_mean,
            "second_half_mean": self.second_half_mean,
            "direction": self.direction,
        }


@dataclass(frozen=True, slots=True)
class OverheadSummary:
    """The not-in-transcript share over the calls: latest, spread and trend, and which calls it comes from."""

    calls_used: int
    first_entry_id: str | None
    last_entry_id: str | None
    latest: int | float | None
    latest_share: float | None
    minimum: int | float | None
    median: float | None
    maximum: int | float | None
    negative_calls: int
    trend: OverheadTrend

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "derived": True,
            "method": METHOD,
            "calls_used": self.calls_used,
            "first_entry_id": self.first_entry_id,
            "last_entry_id": self.last_entry_id,
            "latest": self.latest,
            "latest_share_of_prompt": self.latest_share,
            "min": self.minimum,
            "median": self.median,
            "max": self.maximum,
            "negative_calls": self.negative_calls,
            "trend": self.trend.to_json(),
        }


def slope(values: list[float]) -> float | None:
    """The least-squares slope of `values` over their index (None for fewer than two)."""
    n = len(values)
    if n < 2:
        return None
    mean_x = (n - 1) / 2
    mean_y = sum(values) / n
    sxx = sum((i - mean_x) ** 2 for i in range(n))
    sxy = sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values))
    return round(sxy / sxx, 2)


def overhead_trend(values: list[float], tolerance: float = FLAT_SLOPE_TOKENS_PER_CALL) -> OverheadTrend:
    """Slope per call (rising/falling when beyond ±`tolerance` tokens per call, else flat) and the halves' means."""
    per_call = slope(values)
    half = len(values) // 2
    first = round(statistics.fmean(values[:half]), 1) if half else None
    second = round(statistics.fmean(values[half:]), 1) if half else None
    if per_call is None:
        direction = "unknown"
    elif per_call > tolerance:
        direction = "rising"
    elif per_call < -tolerance:
        direction = "falling"
    else:
        direction = "flat"
    return OverheadTrend(per_call, first, second, direction)


def summarize_overhead(calls: list[CallPoint]) -> OverheadSummary:
    """The not-in-transcript figures over every call with a non-empty prompt."""
    used = [c for c in calls if c.prompt_tokens > 0]
    values = [float(c.not_in_transcript) for c in used]
    last = used[-1] if used else None
    return OverheadSummary(
        calls_used=len(used),
        first_entry_id=used[0].entry_id if used else None,
        last_entry_id=last.entry_id if last else None,
        latest=last.not_in_transcript if last else None,
        latest_share=round(last.not_in_transcript / last.prompt_tokens, 4) if last else None,
        minimum=min((c.not_in_transcript for c in used), default=None),
        median=statistics.median(values) if values else None,
        maximum=max((c.not_in_transcript for c in used), default=None),
        negative_calls=sum(1 for v in values if v < 0),
        trend=overhead_trend(values),
    )
