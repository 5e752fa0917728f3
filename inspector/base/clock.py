"""Where "now" comes from, for the engine and the UI alike (one injectable clock).

Engine functions that depend on the time take a `Clock` (or an epoch-ms `now` computed from one with
`now_ms`), so tests, snapshots and `--now` pin it; nothing else calls `datetime.now()` or `time.time()` for a
figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MS = timedelta(milliseconds=1)


class Clock(Protocol):
    """A source of the current time (timezone-aware)."""

    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass(frozen=True)
class FixedClock:
    """A clock that always says the same time (tests, snapshots, screenshots, `--now`)."""

    at: datetime

    def now(self) -> datetime:
        return self.at


def now_ms(clock: Clock) -> int:
    """The clock's time as JavaScript's `Date.now()`: integer epoch milliseconds."""
    return (clock.now() - _EPOCH) // _ONE_MS
