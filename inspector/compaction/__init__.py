"""Compaction: what OpenClaw (2026.4) with pi (0.66.1) would do, and doing it safely.

- the forecast (issue 9): pi's preparation (cut point, split turn, `tokensBefore`, file operations),
  OpenClaw's safeguard steps (history-share prune, preserved turns, adaptive chunk ratio, token-share
  parts, chunks, oversized messages), the stages a run executes, and the triggers;
- the run (issue 10): summarizers (rules, OpenAI-compatible, Anthropic), the staged runner and its events,
  the circuit breaker, OpenClaw's session lock, and the writer (append, truncate, undo).

Nothing here imports Textual; the CLI and the UI render what these modules compute.
"""
