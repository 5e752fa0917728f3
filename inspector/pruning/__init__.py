"""OpenClaw context-pruning preview, as OpenClaw 2026.4.12 (commit 8f8492d1) does it with pi 0.66.1.

Modules: `settings` (names, defaults, config + flags, `parseDurationMs`), `ttl` (the one expiry rule, the gate,
its projection and provider eligibility), `reference` (what a session's gate goes by: model, last touch, last
assistant; the clock), `thinking` (`dropThinkingBlocks` and the transcript policy that sets it), `tools` (tool
globs), `pruner` (`prune_context_messages`, `soft_trim_tool_result`), `tool_guard` (tool-result context guard),
`savings` (tokens per estimator, cache-write price), `preview` (all of it for one session, with the `if_enabled`
projection), `expiry` (expired tool results for the transcript), `snippet` (settings back into openclaw.json).
Pure and read-only: nothing here writes a session file.
"""
