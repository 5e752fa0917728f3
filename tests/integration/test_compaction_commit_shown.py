"""`commit_shown`: the entry a dry run showed is written as is (no second summarizer run); a file changed since
the dry run's plan, or compacted meanwhile, is refused with nothing written. Used by `compact` on a terminal and by
the app's compaction screen."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT

from inspector.write.runner import RunOptions, run_compaction
from inspector.write.shown import commit_shown
from inspector.write.summarizers import RulesSummarizer

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"


class CountingRules(RulesSummarizer):
    """The rules summarizer, counting its calls."""

    calls = 0

    def stream(self, request, cancel=None):  # type: ignore[no-untyped-def]
        CountingRules.calls += 1
        return super().stream(request, cancel)


def _shown(tmp_path: Path) -> tuple[Path, bytes, RunOptions, object]:
    path = Path(shutil.copy(DEMO, tmp_path / "demo.jsonl"))
    options = RunOptions(summarizer=CountingRules(), dry_run=True)
    shown = run_compaction(path, options)
    assert shown.status == "dry_run" and shown.entry is not None
    return path, path.read_bytes(), options, shown


def test_the_shown_entry_is_written_as_is_without_a_second_run(tmp_path: Path) -> None:
    path, before, options, shown = _shown(tmp_path)
    calls, summary = CountingRules.calls, shown.entry["summary"]
    result = commit_shown(path, shown, options)
    assert result.status == "committed" and result.commit is not None and CountingRules.calls == calls
    data = path.read_bytes()
    assert data.startswith(before)
    last = json.loads(data.decode().splitlines()[-1])
    assert (last["type"], last["id"], last["summary"], last["firstKeptEntryId"]) == (
        "compaction", result.commit.entry_id, summary, shown.entry["firstKeptEntryId"])
    assert result.entry["id"] == last["id"] and result.entry["summary"] == summary


def test_a_file_compacted_since_the_preview_is_refused(tmp_path: Path) -> None:
    path, _, options, shown = _shown(tmp_path)
    first = run_compaction(path, RunOptions(summarizer=RulesSummarizer()))
    assert first.status == "committed"
    after_first = path.read_bytes()
    result = commit_shown(path, shown, options)
    assert result.status == "nothing_written" and result.commit is None and "since this one was planned" in result.reason
    assert path.read_bytes() == after_first
