"""Context pruning as OpenClaw 2026.9.6 does it: only what changed since 2026.4.12.

Modules: `settings` (only `mode`, `ttl`, `tools` and `hardClear` are settings; the rest are built in), `ttl`
(provider eligibility; the server-side `clear_tool_uses_20250919` edit of direct Anthropic API-key requests),
`pruner` (`pruneExpiredCacheTtlToolResults`: its own size estimate, a surrogate-safe soft trim, and the sticky
projections replayed from the `openclaw.cache-ttl` marker), `snippet` (config 2026.9.6 accepts). `thinking`,
`tools` and `tool_guard` are 2026.4.12's (`Release.inherits`). Pure and read-only.
"""
