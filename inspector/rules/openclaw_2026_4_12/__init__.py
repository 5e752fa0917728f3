"""OpenClaw 2026.4.12 (commit 8f8492d1) with pi 0.66.1: estimators, pruning, compaction, window guard, config schema, catalog.

`RELEASE` says what this folder reproduces; `inspector.rules.ruleset.rule_set("openclaw-2026.4.12")` is the way in.
"""

from inspector.rules.ruleset import Estimator, Release

RELEASE = Release(
    id="openclaw-2026.4.12",
    title="OpenClaw 2026.4.12 (8f8492d1) with pi 0.66.1",
    openclaw_version="2026.4.12",
    pi_version="0.66.1",
    estimators=(
        Estimator("pi", "pi_tokens", "tok", "pi chars/4", "pi's estimateTokens: characters / 4, rounded up",
                  "pi estimateTokens (chars/4)"),
        Estimator("openclaw_prune", "openclaw_prune_chars", "chars", "OpenClaw pruning chars",
                  "OpenClaw's pruning size: characters, CJK weighted, images 8000"),
        Estimator("openclaw_compaction", "openclaw_compaction_tokens", "tok", "OpenClaw compaction tokens",
                  "OpenClaw's compaction estimate (safeguard chunking)", "OpenClaw compaction estimate"),
        Estimator("tool_guard", "tool_guard_chars", "chars", "tool-result guard chars",
                  "OpenClaw's tool-result context guard size"),
    ),
    max_session_version=3,
)
"""OpenClaw 2026.4.12 with pi 0.66.1: the release this folder reproduces."""
