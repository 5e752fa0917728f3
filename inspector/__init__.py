"""The engine of Session Inspector: reads OpenClaw/pi session transcripts and computes every figure.

It never imports Textual or the UI (`widgets/`): an import-linter contract, run by the tests. Its folders are its
layers, top to bottom (README, "Architecture"): `cli`, `samples`, `write`, `figures`, `host`, `counting`, `rules`
(one folder per upstream release, behind `rules.ruleset`), `session`, `read`, `storage`, `model`, `base` / `js`.
"""

READER_ESTIMATES_RESOLVER = "inspector.rules.ruleset:resolve_reader_estimates"
"""The composition root's one wiring: code below the rules (the reader, the session) names a rule set by its id, and
`inspector.read.estimates.reader_estimates` turns the id into that rule set's estimators through this function
(`module:function`, imported on first use: a process that reads no session imports no rule set)."""
