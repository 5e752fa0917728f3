"""How OpenClaw 2026.4.12 with pi 0.66.1 rebuilds the context the model sees: pi's `buildSessionContext` (spec §1.5).

For this release the rebuild is the engine's own incremental context walk (`inspector.session.context`: the path
from the leaf, the latest compaction's boundary, `firstKeptEntryId`, branch summaries, settings along the path),
written for it (its rules: `inspector.session.context.PI_0_66_CONTEXT`); the rule set names it here so that a release
with other context rules brings its own module in its own folder (2026.9.6's: a `reset` boundary, `leaf` navigation
rows, excluded messages, on the same walk).
"""

from inspector.session.context import build_context, continues_leaf, extend_context, follow_leaf, maps_to_message

__all__ = ["build_context", "continues_leaf", "extend_context", "follow_leaf", "maps_to_message"]
