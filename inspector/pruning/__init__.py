"""OpenClaw context-pruning preview: settings, the cache-TTL gate, the pruner and the tool-result guard.

Modules: `settings` (names, defaults, config + flags), `ttl` (gate and provider eligibility), `pruner`
(`prune_context_messages`, `soft_trim_tool_result`), `tool_guard` (tool-result context guard), `preview`
(all of it for one session, with savings). Pure and read-only: nothing here writes a session file.
"""
