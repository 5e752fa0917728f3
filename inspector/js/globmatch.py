"""A linear-time matcher for OpenClaw's tool-name globs (`*` = any run of characters but line terminators).

OpenClaw compiles a glob to a JavaScript regex (`^a.*b.*c$`, `.` without the `s` flag); a backtracking engine
takes exponential-looking time on a pattern like `*t*x*` against a 200,000-character name. This simulates
the same pattern as an NFA with one bit per pattern position (a Python int as the bitset), so a match costs
O(len(name)) steps whatever the pattern, with results identical to the regex.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# What JavaScript's `.` (no `s` flag) does not match.
LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")


@dataclass(frozen=True)
class GlobMatcher:
    """A compiled glob: `matches(name)` is a full match, as `^...$` in OpenClaw's regex."""

    pattern: str
    _stars: int = field(init=False, repr=False)
    _literals: dict[str, int] = field(init=False, repr=False)
    _accept: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        stars = 0
        literals: dict[str, int] = {}
        for i, ch in enumerate(self.pattern):
            if ch == "*":
                stars |= 1 << i
            else:
                literals[ch] = literals.get(ch, 0) | (1 << i)
        object.__setattr__(self, "_stars", stars)
        object.__setattr__(self, "_literals", literals)
        object.__setattr__(self, "_accept", 1 << len(self.pattern))

    def _closure(self, state: int) -> int:
        # A `*` may match the empty run: being before it is also being after it.
        while True:
            grown = state | ((state & self._stars) << 1)
            if grown == state:
                return state
            state = grown

    def matches(self, name: str) -> bool:
        """True when the whole of `name` matches the pattern."""
        stars = self._stars
        literals = self._literals
        state = self._closure(1)
        for ch in name:
            moved = (state & literals.get(ch, 0)) << 1
            if ch not in LINE_TERMINATORS:
                moved |= state & stars
            if not moved:
                return False
            state = self._closure(moved)
        return bool(state & self._accept)
