"""Where a jump from the diagnosis views goes: one entry (a call) or each occurrence of a repeat in turn.

`DiagnosisJump` is what the timeline screen dismisses with; the inspector screen keeps it as its `Occurrences`
while `n` / `N` step through them (a new search takes `n` / `N` back).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from inspector.model import entries as m


@dataclass(frozen=True, slots=True)
class DiagnosisJump:
    """Entries to show in the transcript, in order, what they are (`label`) and where to start.

    Each entry is named by its physical `lines` (unique, even where ids are missing or duplicated) and its
    `entry_ids` (for the user).
    """

    lines: tuple[int, ...]
    entry_ids: tuple[str | None, ...]
    label: str
    start: int = 0


@dataclass(slots=True)
class Occurrences:
    """A `DiagnosisJump` being stepped through: the current position wraps around at both ends."""

    jump: DiagnosisJump
    position: int = field(default=0)

    def __post_init__(self) -> None:
        self.position = self.jump.start % len(self.jump.lines) if self.jump.lines else 0

    @property
    def count(self) -> int:
        """How many entries there are to step through."""
        return len(self.jump.lines)

    @property
    def current(self) -> int | None:
        """The line of the entry at the current position (None when there is none)."""
        return self.jump.lines[self.position] if self.jump.lines else None

    def step(self, delta: int) -> int | None:
        """Move by `delta` (wrapping) and return the line of the entry there."""
        if self.jump.lines:
            self.position = (self.position + delta) % len(self.jump.lines)
        return self.current

    def describe(self) -> str:
        """`file re-read /src/app.py: 2 of 3 · n / N next / previous`."""
        if self.count <= 1:
            return self.jump.label
        return f"{self.jump.label}: {self.position + 1} of {self.count} · n / N next / previous"


def entry_index_at_line(entries: Sequence[m.Entry], line: int) -> int | None:
    """The index of the entry on physical line `line` (entries are in file order), or None."""
    i = bisect_left(entries, line, key=lambda e: e.line)
    return i if i < len(entries) and entries[i].line == line else None
