"""Context pruning as OpenClaw 2026.4.12 (commit 8f8492d1) does it with pi 0.66.1.

Modules: `settings` (names, defaults, config + flags, `parseDurationMs`), `ttl` (the one expiry rule, the gate,
its projection and provider eligibility), `thinking` (`dropThinkingBlocks` and the transcript policy that sets it),
`tools` (tool globs), `pruner` (`prune_context_messages`, `soft_trim_tool_result`), `tool_guard` (tool-result
context guard), `snippet` (settings back into openclaw.json). The preview of one session (reference, savings,
expiry, the `if_enabled` projection) is `inspector.figures.pruning`. Pure and read-only.
"""
