"""Compaction as OpenClaw 2026.9.6 (its own agent core) decides it: the modules here are the parts that changed
since 2026.4.12 (settings: reserve cap and who compacts; prepare: the scaled keepRecentTokens; safeguard and
chunking: tool-call groups and the stage split; triggers: the pre-prompt route's measured estimate); every other
compaction part is 2026.4.12's.
"""
