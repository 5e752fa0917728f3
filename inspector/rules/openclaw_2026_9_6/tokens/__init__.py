"""OpenClaw 2026.9.6's token and character estimators, with the public names of 2026.4.12's `tokens` package
(`inspector.rules.openclaw_2026_4_12.tokens`), so the engine calls `rules.tokens.estimate_all`,
`rules.tokens.calculate_context_tokens`... for either release:

* `measure`: the rewritten `estimateStringChars` (five weight buckets, no surrogate-pair subtraction) and its
  raw-weight-2 form; the unchanged JSON measures are 2026.4.12's;
* `estimators`: the agent core's `estimateTokens` (`pi_estimate_tokens`, the `pi` estimator's role), compaction
  planning's per-message estimate (`openclaw_compaction_tokens`), cache-TTL pruning's `cacheTtlMessageChars`
  (`openclaw_prune_chars`), the tool-result context guard's `estimateMessageChars` (`tool_guard_chars`);
* `fused`: `estimate_all`, the four in `ESTIMATORS` order in one pass (the indexer's), and `fused_record`:
  `FUSED_BY_ROLE`, a user, assistant or tool-result entry's record in one pass (the reader's fast path);
* `usage`: `calculateContextTokens` (measured `contextUsage` first) and `estimateContextTokens` (unavailable-usage
  barriers); `context_usage.last_context_usage` reads it from the index;
* the text the model sees (`model_visible_texts`, the summary wrappers, `bash_execution_to_text`) is 2026.4.12's.

New names: `estimate_string_chars_raw_weight`, `weighted_lens`, `persisted_sender_suffix`, `is_unavailable_context_barrier`,
`IMAGE_BLOCK_CHARS`, `TOOL_IMAGE_CHARS`, `RUNTIME_CONTEXT_CUSTOM_TYPE`, `UsageRow.api`.
"""

from inspector.js.jsjson import js_len
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
from inspector.rules.openclaw_2026_9_6 import RELEASE
from inspector.rules.openclaw_2026_9_6.tokens.estimators import (
    IMAGE_BLOCK_CHARS,
    OMITTED_ASSISTANT_REASONING_TEXT,
    OPENCLAW_IMAGE_CHAR_ESTIMATE,
    PI_IMAGE_CHARS,
    PRUNE_OTHER_ROLE_CHARS,
    RUNTIME_CONTEXT_CUSTOM_TYPE,
    TOOL_CALL_ARGS_THROW_CHARS,
    TOOL_IMAGE_CHARS,
    TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE,
    openclaw_compaction_tokens,
    openclaw_prune_chars,
    persisted_sender_suffix,
    pi_estimate_chars,
    pi_estimate_tokens,
    tool_guard_chars,
)
from inspector.rules.openclaw_2026_9_6.tokens.fused import estimate_all
from inspector.rules.openclaw_2026_9_6.tokens.fused_record import BY_ROLE as FUSED_BY_ROLE
from inspector.rules.openclaw_2026_9_6.tokens.measure import (
    CHARS_PER_TOKEN_ESTIMATE,
    UNKNOWN_THROW_CHARS,
    estimate_string_chars,
    estimate_string_chars_raw_weight,
    weighted_lens,
)
from inspector.rules.openclaw_2026_9_6.tokens.usage import (
    ContextTokens,
    UsageRow,
    calculate_context_tokens,
    context_tokens_from_end,
    estimate_context_tokens,
    is_unavailable_context_barrier,
    is_valid_assistant_usage,
    message_usage_row,
    usage_row,
    usage_rows_from_end,
)

ESTIMATORS = RELEASE.estimators
"""The estimators `estimate_all` computes, in the order of its tuple (`pi`, `openclaw_prune`, `openclaw_compaction`,
`tool_guard`, with 2026.9.6's labels)."""

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "CHARS_PER_TOKEN_ESTIMATE",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "ESTIMATORS",
    "FUSED_BY_ROLE",
    "IMAGE_BLOCK_CHARS",
    "OMITTED_ASSISTANT_REASONING_TEXT",
    "OPENCLAW_IMAGE_CHAR_ESTIMATE",
    "PI_IMAGE_CHARS",
    "PRUNE_OTHER_ROLE_CHARS",
    "RUNTIME_CONTEXT_CUSTOM_TYPE",
    "TOOL_CALL_ARGS_THROW_CHARS",
    "TOOL_IMAGE_CHARS",
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
    "estimate_string_chars_raw_weight",
    "is_unavailable_context_barrier",
    "is_valid_assistant_usage",
    "js_len",
    "message_usage_row",
    "model_visible_texts",
    "openclaw_compaction_tokens",
    "openclaw_prune_chars",
    "persisted_sender_suffix",
    "pi_estimate_chars",
    "pi_estimate_tokens",
    "tool_guard_chars",
    "usage_row",
    "usage_rows_from_end",
    "weighted_lens",
]
