"""The engine of Session Inspector: reads OpenClaw/pi session transcripts and computes every figure.

It never imports Textual or the UI (`widgets/`): an import-linter contract, run by the tests. The CLI
(`inspector.cli`, `inspector.cli.commands`) and the Textual UI only render what these modules compute.

* reading: `index` (byte-level line scanner), `formats` (records -> entries, the entry encoder), `parallel`
  (big files in worker processes), `session` (open, refresh, content on demand), `tail` (the last entries at once);
* the model and its shape: `model` (entries, context messages, diagnostics), `tree`, `context` (pi's
  `buildSessionContext`);
* figures: `tokens` (every estimator, recorded usage, tiktoken), `window`/`config`/`models_catalog` (context
  window and guard), `figures`/`breakdown`, `pruning` (context-pruning preview), `compaction`;
* plumbing: `jsjson` (JavaScript's `JSON.stringify` and string lengths), `timeutil` (JavaScript dates), `clock`
  (the one "now"), `textsafe` (untrusted text made inert), `discovery` (where sessions live);
* `samples`: the demo session and the test-fixture builder, apart from the core.
"""

READER_ESTIMATES_RESOLVER = "inspector.rules.ruleset:resolve_reader_estimates"
"""The composition root's one wiring: code below the rules (the reader, the session) names a rule set by its id, and
`inspector.read.estimates.reader_estimates` turns the id into that rule set's estimators through this function
(`module:function`, imported on first use: a process that reads no session imports no rule set)."""
