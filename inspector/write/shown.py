"""Writing exactly the entry a dry run showed: the second half of "see the summary, then write it".

`run_compaction` with `dry_run=True` runs the summarizers and returns the entry it would write (`RunResult.entry`)
with the file's `snapshot` as the plan saw it. `commit_shown(path, shown, options)` then commits that summary as is,
with no second summarizer run, under the same lock and write mode (`options.truncate`, `options.lock_timeout_ms`);
a file that changed since the plan is refused (`since=shown.snapshot`). Used by `compact` on a terminal (after the
confirmation) and by the app's compaction screen (after the preview). Never raises for a refused write: the
result's `status` says what happened (`committed`, `nothing_written`, `failed`).
"""

from __future__ import annotations

from pathlib import Path

from inspector.write.lock import LockHeld
from inspector.write.runner import RunOptions, RunResult
from inspector.write.sessionfile import SessionWriteError
from inspector.write.writer import CompactedMeanwhile, commit_compaction


def commit_shown(path: Path, shown: RunResult, options: RunOptions) -> RunResult:
    """Commit the entry of the dry run `shown` (updated in place and returned; see the module docstring)."""
    entry = shown.entry or {}
    try:
        res = commit_compaction(path, entry["summary"], entry["firstKeptEntryId"], entry.get("tokensBefore") or 0, entry.get("details"),
                                truncate=options.truncate, since=shown.snapshot, lock_timeout_ms=options.lock_timeout_ms)
    except LockHeld as exc:
        shown.status, shown.reason = "failed", f"{exc.hint}; nothing written"
        return shown
    except CompactedMeanwhile as exc:
        shown.status, shown.reason = "nothing_written", str(exc)
        return shown
    except (SessionWriteError, OSError) as exc:
        shown.status, shown.reason = "failed", str(exc)
        return shown
    shown.commit = res
    shown.status = "committed"
    shown.reason = ""
    shown.entry = {"type": "compaction", "id": res.entry_id, "parentId": res.parent_id, "timestamp": res.timestamp,
                   **{k: v for k, v in entry.items() if k != "type"}}
    return shown
