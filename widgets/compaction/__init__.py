"""The place for the compaction view: the forecast overlay on the transcript (cut point, kept tail, split-turn
prefix, chunk and part boundaries, oversized and dropped messages, drawn from `inspector.figures.marks`), the runner's
progress and the writer's confirmation panels.

Pattern to follow: engine work runs in thread workers that post Textual `Message`s (progress messages replace
each other through `can_replace`), as `widgets.screens.live_follow.LiveFollower` does.

`inspector_views.CompactionViews` is the inspector screen's part: the forecast beside the transcript (`C`) and the
compaction run (`X`). `run_screen.CompactRunScreen` is that run: the summarizer picker (`summarizer_form`), the plan
and before/after texts (`run_text`), the stage table and breaker panel (`progress_state`). A SQLite-store session's
run is `gateway_screen.GatewayCompactScreen` (its texts in `gateway_text`): the Gateway compacts, the app never
writes the store.
"""
