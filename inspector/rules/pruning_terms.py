"""The words of a pruning preview every release shares: what happens to a tool result (`ACTION_*`), the stage that
decided it (`STAGE_*`), what a TTL was counted from (`SOURCE_*`) and the preview's scenarios (`SCENARIO_*`).

A release's pruner and TTL gate (`inspector/rules/<release>/pruning/`) tag their results with these; the figures and
the UI read them here, whatever release made them. A release that adds a word (2026.9.6's replayed actions, its
server-side clearing stage) keeps it in its own folder.
"""

ACTION_KEEP = "keep"
ACTION_SOFT_TRIM = "soft_trim"
ACTION_HARD_CLEAR = "hard_clear"

STAGE_NO_CONTEXT_WINDOW = "no_context_window"
STAGE_TOO_FEW_ASSISTANTS = "too_few_assistants"
STAGE_ESTIMATE_THREW = "estimate_threw"
STAGE_BELOW_SOFT_TRIM_RATIO = "below_soft_trim_ratio"
STAGE_BELOW_HARD_CLEAR_RATIO = "below_hard_clear_ratio"
STAGE_HARD_CLEAR_DISABLED = "hard_clear_disabled"
STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS = "below_min_prunable_tool_chars"
STAGE_HARD_CLEARED = "hard_cleared"

SOURCE_CACHE_TTL_ENTRY = "cache_ttl_entry"
SOURCE_LAST_ASSISTANT = "last_assistant_message"
SOURCE_NONE = "none"

SCENARIO_NOW = "now"
SCENARIO_IF_ENABLED = "if_enabled"
