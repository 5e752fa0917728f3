"""The place for the compaction view: the forecast overlay on the transcript (cut point, kept tail, split-turn
prefix, chunk and part boundaries, oversized and dropped messages, drawn from `inspector.figures.marks`), the runner's
progress and the writer's confirmation panels. Empty until the compaction issues land.

Pattern to follow: engine work runs in thread workers that post Textual `Message`s (progress messages replace
each other through `can_replace`), as `widgets.screens.live_follow.LiveFollower` does.

`inspector_views.CompactionViews` is the inspector screen's part: the forecast beside the transcript (`C`) and the
compaction run (`X`).
"""
