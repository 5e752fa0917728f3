"""The lines a context crosses on its way to overflow, and the first call that crossed each.

Thresholds, in tokens of the window (`inspector.figures.session_figures.window_for`, the same window as `stats`):
- the early warnings, fractions of the window (default 0.5 and 0.7: the two-threshold design of many context
  engines, flush early, force cleanup late);
- pi's compaction threshold, `contextWindow - reserveTokens` (pi 0.66.1 `shouldCompact`: compact when
  `contextTokens > contextWindow - reserveTokens`), with OpenClaw's reserve, the release's rule
  (`inspector.rules.openclaw_2026_4_12.compaction.settings.resolve_reserve_tokens`, also the forecast's);
- the window itself.
On a Claude Code / Codex session the compaction threshold is that agent's own (`figures.forecast.other_agents
.agent_rule`, its source in `source`; none when the rule is not known), not OpenClaw's.

A call crosses a threshold when its recorded prompt (`input + cacheRead + cacheWrite`) is above it (strictly, as
`shouldCompact` compares). For the compaction threshold the call at which pi itself would have decided to compact
is given too: pi compares `calculateContextTokens(usage)` (output included), not the prompt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.figures.diagnosis.calls import CallPoint

if TYPE_CHECKING:
    from inspector.figures.forecast.other_agents import AgentRule
    from inspector.rules.openclaw_2026_4_12.compaction.settings import ReserveTokens


@dataclass(frozen=True, slots=True)
class ThresholdCrossing:
    """One threshold and the first call whose prompt went above it (None: never).

    `times` counts upward crossings (a compaction can bring the prompt back below, and it can cross again).
    `pi_decision_*` (compaction threshold only) is the first call whose `calculateContextTokens(usage)` is above it.
    """

    name: str
    kind: str
    tokens: int
    fraction: float
    entry_id: str | None
    line: int | None
    call_index: int | None
    prompt_tokens: int | float | None
    times: int
    pi_decision_entry_id: str | None = None
    pi_decision_call_index: int | None = None
    source: str | None = None
    """Whose rule the threshold is, when it is not OpenClaw's (a Claude Code / Codex session)."""

    @property
    def crossed(self) -> bool:
        """Whether any call went above this threshold."""
        return self.call_index is not None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "tokens": self.tokens,
            "fraction_of_window": self.fraction,
            "crossed": self.crossed,
            "entry_id": self.entry_id,
            "line": self.line,
            "call_index": self.call_index,
            "prompt_tokens": self.prompt_tokens,
            "times": self.times,
        }
        if self.kind == "compaction":
            out["pi_decision_entry_id"] = self.pi_decision_entry_id
            out["pi_decision_call_index"] = self.pi_decision_call_index
        if self.source is not None:
            out["source"] = self.source
        return out


@dataclass(frozen=True, slots=True)
class ThresholdLine:
    """A threshold before it is checked against the calls."""

    name: str
    kind: str
    tokens: int
    source: str | None = None

    def fraction(self, window: int) -> float:
        """This threshold as a fraction of `window` (4 decimals)."""
        return round(self.tokens / window, 4) if window else 0.0


def threshold_lines(
    window: int, reserve: ReserveTokens, early_fractions: tuple[float, ...], agent: AgentRule | None = None
) -> list[ThresholdLine]:
    """Early warnings (the rules' `DEFAULT_EARLY_THRESHOLDS` unless asked otherwise), the compaction threshold
    (`agent`'s own when given: none when its threshold is not known) and the window, lowest first."""
    lines = [ThresholdLine(f"early_{f:g}", "early_warning", math.floor(window * f)) for f in early_fractions]
    if agent is None:
        lines.append(ThresholdLine("compaction", "compaction", window - reserve.reserve_tokens))
    elif agent.threshold_tokens is not None:
        lines.append(ThresholdLine("compaction", "compaction", agent.threshold_tokens, agent.rule))
    lines.append(ThresholdLine("window", "window", window))
    return sorted(lines, key=lambda t: t.tokens)


def find_crossings(calls: list[CallPoint], lines: list[ThresholdLine], window: int) -> list[ThresholdCrossing]:
    """The first call above each threshold line, and how many times the prompt went above it."""
    out: list[ThresholdCrossing] = []
    for line in lines:
        first: CallPoint | None = None
        times = 0
        above = False
        for c in calls:
            now_above = c.prompt_tokens > line.tokens
            if now_above and not above:
                times += 1
                first = first or c
            above = now_above
        pi_first = None
        if line.kind == "compaction":
            pi_first = next((c for c in calls if c.context_tokens > line.tokens), None)
        out.append(
            ThresholdCrossing(
                name=line.name,
                kind=line.kind,
                tokens=line.tokens,
                fraction=line.fraction(window),
                entry_id=first.entry_id if first else None,
                line=first.line if first else None,
                call_index=first.index if first else None,
                prompt_tokens=first.prompt_tokens if first else None,
                times=times,
                pi_decision_entry_id=pi_first.entry_id if pi_first else None,
                pi_decision_call_index=pi_first.index if pi_first else None,
                source=line.source,
            )
        )
    return out
