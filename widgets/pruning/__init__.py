"""The pruning preview (OpenClaw cache-TTL context pruning, `p`): its screen (`screen`) and panels: the TTL gate
(`gate`), totals (`totals`), the before/after gauge (`gauge`), the tool-result context guard (`guard`), the list
of soft-trimmed / hard-cleared results (`messages`), the before/after text (`diff`), the live settings form
(`settings`), the `openclaw.json` snippet dialog (`snippet`), the NOW / IF ENABLED banner (`scenario`), what the
overlay remembers per file (`state`) and the panel base class (`view`).

Every figure is `inspector.figures.pruning.preview.build_preview`'s; the panels only lay it out.
"""
