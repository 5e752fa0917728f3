"""OpenClaw 2026.4.12 (commit 8f8492d1) with pi 0.66.1: estimators, pruning, compaction, window guard, config schema, catalog."""
