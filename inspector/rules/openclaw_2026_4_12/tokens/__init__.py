"""Every token/character estimator of the product, each named after the code it reproduces, by job:

* `measure`: JavaScript string measures (UTF-16 lengths, OpenClaw's CJK-weighted `estimateStringChars`,
  `JSON.stringify` lengths with the TypeScript's fallbacks);
* `estimators`: the per-message estimators: pi `estimateTokens` (`pi_estimate_tokens`), OpenClaw compaction
  (`openclaw_compaction_tokens`), OpenClaw context pruning (`openclaw_prune_chars`), the tool-result context
  guard (`tool_guard_chars`);
* `fused`: `estimate_all`, the four in one pass (the indexer's fast path);
* `usage`: recorded usage: pi `calculateContextTokens` and the one `estimateContextTokens` (`context_tokens_from_end`
  over per-message rows, `estimate_context_tokens` over messages);
* `text`: the text the model sees (`model_visible_texts`, `bash_execution_to_text`, pi's summary wrappers);

All lengths are JavaScript string lengths (UTF-16 code units, spec §3.3). The public names are re-exported here:
`from inspector.rules.openclaw_2026_4_12.tokens import pi_estimate_tokens` is the way to import them.
"""

from inspector.js.jsjson import js_len
from inspector.rules.openclaw_2026_4_12 import RELEASE
from inspector.rules.openclaw_2026_4_12.tokens.estimators import (
    OMITTED_ASSISTANT_REASONING_TEXT,
    OPENCLAW_IMAGE_CHAR_ESTIMATE,
    PI_IMAGE_CHARS,
    PRUNE_OTHER_ROLE_CHARS,
    TOOL_CALL_ARGS_THROW_CHARS,
    TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE,
    openclaw_compaction_tokens,
    openclaw_prune_chars,
    pi_estimate_chars,
    pi_estimate_tokens,
    tool_guard_chars,
)
from inspector.rules.openclaw_2026_4_12.tokens.fused import estimate_all
from inspector.rules.openclaw_2026_4_12.tokens.fused_record import BY_ROLE as FUSED_BY_ROLE
from inspector.rules.openclaw_2026_4_12.tokens.measure import (
    CHARS_PER_TOKEN_ESTIMATE,
    UNKNOWN_THROW_CHARS,
    estimate_string_chars,
)
from inspector.rules.openclaw_2026_4_12.tokens.text import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    bash_execution_to_text,
    branch_summary_text,
    compaction_summary_text,
    model_visible_texts,
)
from inspector.rules.openclaw_2026_4_12.tokens.usage import (
    ContextTokens,
    UsageRow,
    calculate_context_tokens,
    context_tokens_from_end,
    estimate_context_tokens,
    is_valid_assistant_usage,
    message_usage_row,
    usage_row,
    usage_rows_from_end,
)

ESTIMATORS = RELEASE.estimators
"""The estimators `estimate_all` computes, in the order of its tuple (this release's: `pi`, `openclaw_prune`,
`openclaw_compaction`, `tool_guard`)."""

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "CHARS_PER_TOKEN_ESTIMATE",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "ESTIMATORS",
    "FUSED_BY_ROLE",
    "OMITTED_ASSISTANT_REASONING_TEXT",
    "OPENCLAW_IMAGE_CHAR_ESTIMATE",
    "PI_IMAGE_CHARS",
    "PRUNE_OTHER_ROLE_CHARS",
    "TOOL_CALL_ARGS_THROW_CHARS",
    "TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE",
    "UNKNOWN_THROW_CHARS",
    "ContextTokens",
    "UsageRow",
    "bash_execution_to_text",
    "branch_summary_text",
    "calculate_context_tokens",
    "compaction_summary_text",
    "context_tokens_from_end",
    "estimate_all",
    "estimate_context_tokens",
    "estimate_string_chars",
    "is_valid_assistant_usage",
    "js_len",
    "message_usage_row",
    "model_visible_texts",
    "openclaw_compaction_tokens",
    "openclaw_prune_chars",
    "pi_estimate_chars",
    "pi_estimate_tokens",
    "tool_guard_chars",
    "usage_row",
    "usage_rows_from_end",
]
