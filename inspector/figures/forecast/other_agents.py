"""Claude Code's and Codex's own auto-compaction, forecast from their public rules (spec `other-formats.md` §2.6, §4).

- Claude Code compacts automatically when the prompt reaches `effective window - 13,000`, the effective window
  being the context window minus `min(max output tokens, 20,000)`: 167,000 of a 200k window (anthropics/claude-code
  #31806, the deobfuscated threshold; a real `compactMetadata.preTokens` of 167,094 agrees).
  `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` can only lower it; `DISABLE_AUTO_COMPACT` turns it off.
- Codex compacts when the tokens used reach `model_auto_compact_token_limit` (its `config.toml`, under
  `$CODEX_HOME`); with none set, the limit is the model's own and the rollout does not record it.

`agent_rule` is the threshold and its source (the one source of the plan's forecast and of the timeline's and the
fill's compaction threshold on these sessions); `agent_forecast` compares the session's context now (the last
recorded prompt plus the estimates after it) with it. It forecasts only; the file is never written.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLAUDE_CODE_RESERVE_CAP = 20_000
CLAUDE_CODE_BUFFER = 13_000
CLAUDE_CODE_SOURCE = (
    "Claude Code: auto-compact at window - min(max output, 20,000) - 13,000 (anthropics/claude-code#31806; "
    "observed preTokens 167,094 of 200k)"
)
CODEX_SOURCE = "Codex: auto-compact at model_auto_compact_token_limit (config.toml under $CODEX_HOME; openai/codex compact.rs)"


@dataclass(frozen=True, slots=True)
class AgentRule:
    """The agent's own auto-compaction threshold for a window (None: not known or disabled), with the rule's source."""

    agent: str
    threshold_tokens: int | None
    rule: str
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        """`agent`, `threshold_tokens`, `rule` (the source), `note`."""
        return {"agent": self.agent, "threshold_tokens": self.threshold_tokens, "rule": self.rule, "note": self.note}


@dataclass(frozen=True, slots=True)
class AgentForecast:
    """When the agent itself would compact: its threshold (None: not known), the context now, the rule's source."""

    agent: str
    threshold_tokens: int | None
    context_tokens: int
    window_tokens: int | None
    rule: str
    note: str | None = None

    @property
    def tokens_left(self) -> int | None:
        """Tokens the context may still grow before the agent compacts (negative: past the threshold)."""
        return None if self.threshold_tokens is None else self.threshold_tokens - self.context_tokens

    def to_json(self) -> dict[str, Any]:
        """`agent`, `threshold_tokens`, `context_tokens`, `tokens_left`, `would_compact` (the next request crosses it;
        null when the threshold is not known), `window_tokens`, `rule` (the source), `note`."""
        left = self.tokens_left
        return {
            "agent": self.agent, "threshold_tokens": self.threshold_tokens, "context_tokens": self.context_tokens,
            "tokens_left": left, "would_compact": None if left is None else left <= 0, "window_tokens": self.window_tokens,
            "rule": self.rule, "note": self.note,
        }


def claude_code_threshold(window: int, max_output: int = CLAUDE_CODE_RESERVE_CAP, env: Mapping[str, str] | None = None) -> int | None:
    """Claude Code's auto-compact threshold for `window` (None when `DISABLE_AUTO_COMPACT` is set); a
    `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` percentage of the window can only lower it."""
    env = os.environ if env is None else env
    if env.get("DISABLE_AUTO_COMPACT"):
        return None
    threshold = window - min(max_output, CLAUDE_CODE_RESERVE_CAP) - CLAUDE_CODE_BUFFER
    raw = env.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "").strip()
    try:
        pct = float(raw) if raw else None
    except ValueError:
        pct = None
    if pct is not None and 0 < pct <= 100:
        threshold = min(threshold, int(window * pct / 100))
    return threshold


def codex_limit(env: Mapping[str, str] | None = None, home: Path | None = None) -> int | None:
    """`model_auto_compact_token_limit` of Codex's `config.toml` (None: not set, or unreadable)."""
    env = os.environ if env is None else env
    base = env.get("CODEX_HOME", "").strip()
    path = (Path(base).expanduser() if base else (home or Path(env.get("HOME") or Path.home())) / ".codex") / "config.toml"
    try:
        with open(path, "rb") as f:
            value = tomllib.load(f).get("model_auto_compact_token_limit")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return value if type(value) is int and value > 0 else None


def agent_rule(fmt: str, window: int | None, env: Mapping[str, str] | None = None) -> AgentRule:
    """The auto-compaction rule of the agent that wrote a `claude-code` or `codex` session, for `window`."""
    if fmt == "claude-code":
        threshold = claude_code_threshold(window, env=env) if window else None
        note = "auto-compaction disabled (DISABLE_AUTO_COMPACT)" if window and threshold is None else None
        return AgentRule("Claude Code", threshold, CLAUDE_CODE_SOURCE, note)
    limit = codex_limit(env)
    note = None if limit is not None else "no model_auto_compact_token_limit in Codex's config.toml: the model's own limit applies, not recorded in the rollout"
    return AgentRule("Codex", limit, CODEX_SOURCE, note)


def agent_forecast(fmt: str, context_tokens: int, window: int | None, env: Mapping[str, str] | None = None) -> AgentForecast:
    """The agent's own compaction forecast for a `claude-code` or `codex` session whose context is `context_tokens`."""
    rule = agent_rule(fmt, window, env)
    return AgentForecast(rule.agent, rule.threshold_tokens, context_tokens, window, rule.rule, rule.note)
