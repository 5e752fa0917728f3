"""OpenClaw 2026.9.6 (its bundled agent core, a fork of pi): the rules that changed since 2026.4.12.

This folder holds only the parts 2026.9.6 changed; every other part is 2026.4.12's (`Release.inherits`), imported
from there by `inspector.rules.ruleset.RuleSet.part`, never copied. `rule_set("openclaw-2026.9.6")` is the way in.
"""

from inspector.rules.openclaw_2026_4_12 import RELEASE as _APRIL
from inspector.rules.ruleset import Estimator, Release

RELEASE = Release(
    id="openclaw-2026.9.6",
    title="OpenClaw 2026.9.6 (its own agent core)",
    openclaw_version="2026.9.6",
    pi_version="0.73.1",
    estimators=(
        Estimator("pi", "pi_tokens", "tok", "agent-core tokens",
                  "the agent core's estimateTokens (cut point): CJK-weighted characters / 4, images 8000"),
        Estimator("openclaw_prune", "openclaw_prune_chars", "chars", "OpenClaw pruning chars",
                  "cache-TTL pruning's size: characters, CJK weighted, images 8000"),
        Estimator("openclaw_compaction", "openclaw_compaction_tokens", "tok", "OpenClaw compaction tokens",
                  "compaction planning's estimate (summary chunks): estimateTokens, runtime context 0"),
        Estimator("tool_guard", "tool_guard_chars", "chars", "tool-result guard chars",
                  "the tool-result context guard's size: tool-result text weighted x2, images 16000"),
    ),
    max_session_version=4,
    inherits=_APRIL.id,
)
"""OpenClaw 2026.9.6: the release this folder reproduces (the parts it does not hold are 2026.4.12's)."""
