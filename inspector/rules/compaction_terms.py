"""The words of a compaction forecast every release shares: the adaptive chunk ratio's formulas (`RATIO_FORMULAS`,
what `plan --ratio-formula` and the compaction view offer)."""

RATIO_FORMULAS = ("openclaw", "legacy")
"""`openclaw`: `computeAdaptiveChunkRatio` (the code); `legacy`: the older published `max(0.15, 0.4 - avg/ctx)`."""
