"""Range checks of the OpenClaw config numbers this tool uses, as OpenClaw's zod schema states them.

OpenClaw 2026.4 (`zod-schema*.js`): zod 4 numbers are finite; `.int()` means a safe integer (|n| <= 2^53 - 1).
A value outside its range makes OpenClaw refuse the config; here it is reported and dropped, so the default
applies and nothing downstream meets an infinite or astronomically large number.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_SAFE_INTEGER = 2**53 - 1


@dataclass(frozen=True)
class NumberRule:
    """What the schema accepts: `integer` (safe), bounds, and whether the bounds are exclusive (`positive`)."""

    integer: bool = False
    low: float | None = None
    high: float | None = None
    low_exclusive: bool = False

    def describe(self) -> str:
        """The rule in words: "a positive integer", "a number from 0 to 1"."""
        kind = "integer" if self.integer else "number"
        if self.low == 0 and self.low_exclusive and self.high is None:
            return f"a positive {kind}"
        if self.low == 0 and self.high is None:
            return f"a non-negative {kind}"
        if self.low is not None and self.high is not None:
            return f"a {kind} from {self.low:g} to {self.high:g}"
        return f"a finite {kind}"

    def accepts(self, value: Any) -> bool:
        """True when `value` passes the schema rule."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True  # not a number: the type is not this check's business (the readers ignore it)
        if isinstance(value, float) and not math.isfinite(value):
            return False
        if self.integer and (value != int(value) or abs(value) > MAX_SAFE_INTEGER):
            return False
        if self.low is not None and (value <= self.low if self.low_exclusive else value < self.low):
            return False
        return not (self.high is not None and value > self.high)


POSITIVE_INT = NumberRule(integer=True, low=0, low_exclusive=True)
NONNEGATIVE_INT = NumberRule(integer=True, low=0)
POSITIVE = NumberRule(low=0, low_exclusive=True)
RATIO = NumberRule(low=0, high=1)
FINITE = NumberRule()

AGENT_DEFAULT_RULES: dict[tuple[str, ...], NumberRule] = {
    ("contextTokens",): POSITIVE_INT,
    ("contextPruning", "keepLastAssistants"): NONNEGATIVE_INT,
    ("contextPruning", "softTrimRatio"): RATIO,
    ("contextPruning", "hardClearRatio"): RATIO,
    ("contextPruning", "minPrunableToolChars"): NONNEGATIVE_INT,
    ("contextPruning", "softTrim", "maxChars"): NONNEGATIVE_INT,
    ("contextPruning", "softTrim", "headChars"): NONNEGATIVE_INT,
    ("contextPruning", "softTrim", "tailChars"): NONNEGATIVE_INT,
    ("compaction", "reserveTokens"): NONNEGATIVE_INT,
    ("compaction", "keepRecentTokens"): POSITIVE_INT,
    ("compaction", "reserveTokensFloor"): NONNEGATIVE_INT,
    ("compaction", "maxHistoryShare"): NumberRule(low=0.1, high=0.9),
}
MODEL_RULES: dict[tuple[str, ...], NumberRule] = {
    ("contextWindow",): POSITIVE,
    ("contextTokens",): POSITIVE_INT,
    ("maxTokens",): POSITIVE,
    ("cost", "input"): FINITE,
    ("cost", "output"): FINITE,
    ("cost", "cacheRead"): FINITE,
    ("cost", "cacheWrite"): FINITE,
}


@dataclass(frozen=True)
class ConfigProblem:
    """One number out of its schema range: where (`path`), what it was, what is allowed."""

    path: str
    value: Any
    rule: NumberRule

    def message(self) -> str:
        """`agents.defaults.contextTokens must be a positive integer, not 1e+400`."""
        shown = "Infinity" if isinstance(self.value, float) and math.isinf(self.value) else repr(self.value)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return f"{self.path} must be {self.rule.describe()}, not {shown}"


def _walk(obj: Any, base: str, rules: dict[tuple[str, ...], NumberRule]) -> Iterator[tuple[dict[str, Any], str, str, NumberRule]]:
    for keys, rule in rules.items():
        node = obj
        for key in keys[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and keys[-1] in node:
            yield node, keys[-1], base + "." + ".".join(keys), rule


def check_config_numbers(config: dict[str, Any], *, drop: bool = True) -> list[ConfigProblem]:
    """Every out-of-range number among those the tool reads; with `drop`, each is removed from `config`."""
    targets: list[tuple[dict[str, Any], str, str, NumberRule]] = []
    agents = config.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    if isinstance(defaults, dict):
        targets.extend(_walk(defaults, "agents.defaults", AGENT_DEFAULT_RULES))
    agent_list = agents.get("list") if isinstance(agents, dict) else None
    for i, agent in enumerate(agent_list if isinstance(agent_list, list) else []):
        if isinstance(agent, dict):
            targets.extend(_walk(agent, f"agents.list[{i}]", AGENT_DEFAULT_RULES))
    models = config.get("models")
    providers = models.get("providers") if isinstance(models, dict) else None
    for name, provider in (providers.items() if isinstance(providers, dict) else []):
        entries = provider.get("models") if isinstance(provider, dict) else None
        for i, model in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(model, dict):
                targets.extend(_walk(model, f"models.providers.{name}.models[{i}]", MODEL_RULES))
    problems = []
    for node, key, path, rule in targets:
        if not rule.accepts(node[key]):
            problems.append(ConfigProblem(path, node[key], rule))
            if drop:
                del node[key]
    return problems
