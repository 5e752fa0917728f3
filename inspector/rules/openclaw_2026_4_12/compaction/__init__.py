"""Compaction as OpenClaw 2026.4.12 with pi 0.66.1 decides it: pi's preparation (cut point, split turn,
`tokensBefore`, file operations), OpenClaw's safeguard steps (history-share prune, preserved turns, adaptive chunk
ratio, token-share parts, chunks, oversized messages), the stages a run executes, the triggers, the prompts and
the summary's assembly. The forecast that shows them is `inspector.figures.forecast`; the run that writes them,
`inspector.write`.
"""
