"""Diagnosing runaway context (issue 13): when it ran away, what repeats, what the transcript does not show.

- `calls`: one point per LLM call on the active path (recorded usage, the transcript estimate before it, cost);
- `timeline`: the typed `Timeline` (`build_timeline`), its jumps and their causes, and the per-session cost;
- `thresholds`: early warnings, pi's compaction threshold (OpenClaw's reserve floor) and the window, and the
  first call that crossed each;
- `repeats`: file re-reads, repeated commands, repeated errors, retries after a failure, ranked by tokens;
- `overhead`: the not-in-transcript share per call (derived) and its trend;
- `cost`: recorded `usage.cost`, or a price from the release's model catalog (`rules/openclaw_2026_4_12/model_catalog.json`);
- `cache`: the cache-hit ratio and the cache writes a TTL expiry caused;
- `fill`: the over-the-window state, apart from the window guard.

Nothing here imports Textual; `session-inspector timeline` and the app render what these modules compute.
"""
