"""The transcript's estimators: their keys, labels, units and help, and which rule-set estimator stands behind each
(for the labels, the mis-estimate flags and the breakdown)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from inspector.figures.rules_of import rules_of

if TYPE_CHECKING:
    from inspector.session.session import Session

Estimator = Literal["pi", "prune", "tiktoken", "usage"]
ESTIMATORS: tuple[Estimator, ...] = ("pi", "prune", "tiktoken", "usage")
ESTIMATOR_LABELS: dict[str, str] = {
    "pi": "pi chars/4",
    "prune": "OpenClaw pruning chars",
    "tiktoken": "tiktoken",
    "usage": "recorded usage",
}
ESTIMATOR_UNITS: dict[str, str] = {"pi": "tok", "prune": "chars", "tiktoken": "tok", "usage": "tok"}
ESTIMATOR_HELP: dict[str, str] = {
    "pi": "pi's estimateTokens: ceil(chars/4) per message (what pi compaction uses)",
    "prune": "OpenClaw context-pruning size estimate, in characters",
    "tiktoken": "real tokenizer (cl100k_base, offline), counted for the rows you look at",
    "usage": "what the provider recorded: output per assistant call; context = usage total at that call",
}

ESTIMATE_NAMES: dict[str, str] = {"pi": "pi", "prune": "openclaw_prune"}
"""The rule set's estimator (by name) behind each per-message estimator of the transcript that the index holds."""


def estimator_label(estimator: str, session: Session | None) -> str:
    """What the transcript calls `estimator`: the session's rule set's label for an estimate the index holds (`pi`,
    `prune`), the transcript's own words for tiktoken and recorded usage."""
    name = ESTIMATE_NAMES.get(estimator)
    if name is not None and session is not None:
        try:
            return str(rules_of(session).estimator(name).label)
        except KeyError:
            pass
    return ESTIMATOR_LABELS.get(estimator, estimator)


def flag_estimator(estimator: str) -> str:
    """The estimator (by name) whose mis-estimates the transcript flags under its `estimator`: the one the index holds
    behind it, else pi's (tiktoken is never off from itself; recorded usage is no estimate)."""
    return ESTIMATE_NAMES.get(estimator, "pi")


def breakdown_estimator(estimator: str) -> tuple[str, str | None]:
    """The estimator (by name) the breakdown uses under the transcript's `estimator`, and a note when it is
    substituted (tiktoken and recorded usage have no per-tool totals: pi chars/4 stands in)."""
    name = ESTIMATE_NAMES.get(estimator)
    if name is None:
        return "pi", f"breakdown by pi chars/4 ({estimator} has no per-tool totals)"
    return name, None
