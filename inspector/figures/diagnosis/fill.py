"""How full the context is now, as its own state, apart from the window guard.

The guard (OpenClaw's `evaluateContextWindowGuard`) is about the *window's size*: a window under 32000 tokens
warns, under 16000 blocks. It says nothing about how much of the window the session uses. The fill is that:
pi's `estimateContextTokens` (the last valid recorded usage + chars/4 of the messages after it, the `context now`
of `stats`; every message estimated when the usage predates the latest compaction: the rules' `context_usage.context_now`)
over the window, with its basis. A session can have a perfectly fine window (guard `ok`) and be 130% full.

Levels, highest first: `over_window` (fill > 1: the next request cannot fit; OpenClaw/pi must compact or the
provider rejects it), `compaction_due` (above pi's compaction threshold `window - reserveTokens`: pi compacts after
the next turn), `early_warning` (above an early-warning fraction), `ok`.

On a Claude Code / Codex session the compaction threshold is that agent's own (`other_agents.agent_rule`, the one
source): the fill names the agent that compacts (`compactor`) and its rule's source (`compaction_rule`), never pi's
reserve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.figures.diagnosis.thresholds import ThresholdLine, threshold_lines
from inspector.rules.ruleset import RuleSet

if TYPE_CHECKING:
    from inspector.figures.forecast.other_agents import AgentRule

FILL_OK = "ok"
FILL_EARLY_WARNING = "early_warning"
FILL_COMPACTION_DUE = "compaction_due"
FILL_OVER_WINDOW = "over_window"


@dataclass(frozen=True, slots=True)
class FillState:
    """The context's fill of the window now, its level and a plain message; `guard_level` is shown beside it, never
    merged with it."""

    tokens: int
    window: int
    fill: float | None
    level: str
    message: str
    threshold: str | None
    guard_level: str
    basis: str = ""
    """What `tokens` rests on (`inspector.rules.context_basis`: `recorded_usage`, `estimate_plus_trailing`, `estimate`;
    never a usage recorded before the latest compaction); "" when not given."""
    compactor: str = "pi"
    """Who compacts this session: `pi` (OpenClaw's), else the agent that wrote it (`Claude Code`, `Codex`)."""
    compaction_rule: str = ""
    """The compaction threshold's rule and its source, in words (`AgentRule.rule`); "" for pi's."""

    @property
    def threshold_words(self) -> str:
        """What the compaction threshold is: `window − reserveTokens` (pi's), else the agent's rule."""
        return "window − reserveTokens" if self.compactor == "pi" else f"{self.compactor}'s auto-compact threshold"

    @property
    def compacts_when_due(self) -> str:
        """What happens past the compaction threshold: `pi compacts after the next turn`, or the agent's."""
        return "pi compacts after the next turn" if self.compactor == "pi" else f"{self.compactor} compacts before its next request"

    @property
    def over_window(self) -> bool:
        """The context is larger than the window."""
        return self.level == FILL_OVER_WINDOW

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "tokens": self.tokens,
            "window": self.window,
            "fill": self.fill,
            "level": self.level,
            "over_window": self.over_window,
            "threshold": self.threshold,
            "message": self.message,
            "guard_level": self.guard_level,
            "basis": self.basis,
            "guard_note": "the guard is about the window's size (OpenClaw warns below 32000, blocks below 16000); "
            "the fill is how much of it the session uses",
            **({} if self.compactor == "pi" else {"compactor": self.compactor, "compaction_rule": self.compaction_rule}),
        }


def fill_state(
    tokens: int, window: int, lines: list[ThresholdLine], guard_level: str, basis: str = "", agent: AgentRule | None = None
) -> FillState:
    """The fill state of `tokens` in `window`, given the threshold lines (from `threshold_lines`, with `agent`'s rule
    on a Claude Code / Codex session); `basis`: what `tokens` rests on (`FillState.basis`)."""
    who = "OpenClaw/pi" if agent is None else agent.agent
    fill = round(tokens / window, 4) if window else None
    pct = f"{100 * fill:.1f}%" if fill is not None else "?"  # the rounded fill, as `stats` and the gauge print it
    over = [t for t in lines if tokens > t.tokens]
    rank = {"window": 2, "compaction": 1}
    top = max(over, key=lambda t: (rank.get(t.kind, 0), t.tokens)) if over else None
    if window and tokens > window:
        level = FILL_OVER_WINDOW
        message = (
            f"OVER THE WINDOW: the context is {tokens:,} tokens, {pct} of the {window:,}-token window "
            f"({tokens - window:,} over). The next request cannot fit: {who} must compact first, or the provider "
            "rejects it as a context overflow."
        )
    elif top is not None and top.kind == "compaction" and agent is not None:
        level = FILL_COMPACTION_DUE
        message = (
            f"Above {agent.agent}'s auto-compact threshold: {tokens:,} tokens ({pct}) > {top.tokens:,} ({agent.rule}); "
            f"{agent.agent} compacts before its next request."
        )
    elif top is not None and top.kind == "compaction":
        level = FILL_COMPACTION_DUE
        message = (
            f"Above the compaction threshold: {tokens:,} tokens ({pct}) > {top.tokens:,} (window - reserveTokens); "
            "pi compacts after the next turn."
        )
    elif top is not None and top.kind == "early_warning":
        level = FILL_EARLY_WARNING
        message = f"Above the early warning {top.name}: {tokens:,} tokens ({pct}) > {top.tokens:,}."
    else:
        level = FILL_OK
        message = f"{tokens:,} tokens, {pct} of the {window:,}-token window."
    if agent is None:
        return FillState(tokens, window, fill, level, message, top.name if top else None, guard_level, basis)
    return FillState(tokens, window, fill, level, message, top.name if top else None, guard_level, basis, agent.agent, agent.rule)


def context_fill(
    tokens: int,
    window: int,
    guard_level: str,
    config: dict[str, Any] | None,
    rules: RuleSet,
    early_fractions: tuple[float, ...] | None = None,
    basis: str = "",
    agent: str | None = None,
) -> FillState:
    """The fill state of a context of `tokens` (the rules' `context_usage.context_now`, the `context now` of `stats`,
    whose `basis` it carries) in
    `window`, with the thresholds `build_timeline` uses (the reserve `rules` resolve from `config`; `early_fractions`
    None: the rules' default early thresholds): cheap, for a header that must not wait for the whole timeline."""
    if early_fractions is None:
        early_fractions = rules.triggers.DEFAULT_EARLY_THRESHOLDS
    reserve = rules.compaction_settings.resolve_reserve_tokens(config)
    rule = agent_rule_of(agent, window)
    return fill_state(tokens, window, threshold_lines(window, reserve, early_fractions, rule), guard_level, basis, rule)


def agent_rule_of(agent: str | None, window: int) -> AgentRule | None:
    """The compaction rule of the agent that wrote a Claude Code / Codex session (`WindowOptions.agent`); None: an
    OpenClaw session (OpenClaw's reserve)."""
    if agent is None:
        return None
    from inspector.figures.forecast.other_agents import agent_rule

    return agent_rule(agent, window)
