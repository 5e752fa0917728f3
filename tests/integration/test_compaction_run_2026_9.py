"""A compaction run under `--rules openclaw-2026.9.6`: the stored summary follows 2026.9.6's assembly (split turn in
the body, bounded preserved turns, file lists without the blank line, the 16,000 cap), no "Summary unavailable"
text is ever written (a failed chain fails the run), and a chunk failing part way keeps a summary marked partial."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from llm_servers import OpenAIServer
from oracle.cases import builder, usage
from test_compaction_runner import cli, demo  # noqa: F401

from inspector.base.clock import SystemClock
from inspector.figures.forecast.plan import plan_compaction
from inspector.js.jsjson import js_len
from inspector.rules.openclaw_2026_9_6.compaction import assembly as A
from inspector.rules.openclaw_2026_9_6.compaction import latest_request as L
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session
from inspector.write.staged import Msg, Stager
from inspector.write.summarizers import CancelToken
from inspector.write.summarizers.base import ProviderError
from inspector.write.summarizers.rule_based import RulesSummarizer

SEPT = "openclaw-2026.9.6"


def big_session(path: Path) -> Path:
    """40 turns, each a long user ask (CJK, emoji), an assistant reading 4 long paths, the results (every fifth
    turn's failing) and a reply: more than 16,000 characters of summary, 160 read files."""
    b = builder()
    for n in range(40):
        b.user(f"turn {n}: please look at 字 " + "detail 😀 " * 300)
        calls = [b.tool_call("read", {"path": f"projects/very/long/path/to/module_{n}_{k}/source_file_{k}.ts"}) for k in range(4)]
        b.assistant(["ok " * 200, *calls], usage=usage(5000 + n * 4000))
        for c in calls:
            b.tool_result(c["id"], "read", "content " * 400, is_error=n % 5 == 0)
        b.assistant("done " * 300, usage=usage(5000 + n * 4000 + 100))
    path.parent.mkdir(parents=True, exist_ok=True)
    return b.write(path)


def test_the_stored_summary_follows_2026_9_caps(tmp_path: Path) -> None:
    session = big_session(tmp_path / "big" / "s.jsonl")
    before = session.read_bytes()
    out = cli(str(session), "--rules", SEPT, "--yes", "--json", state=tmp_path / "state")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["status"] == "committed"
    line = json.loads(session.read_bytes()[len(before):])
    summary = line["summary"]
    assert js_len(summary) <= A.MAX_COMPACTION_SUMMARY_CHARS
    # the rules summary fits itself into the room the cap and the quality guard (on by default) leave it (the cut of
    # a longer body: the split-turn test below), keeps its five sections and says what it left out; the guard's
    # retention plan puts the latest request's context first
    assert summary.startswith("## Latest user request context\n\"turn 35: please look at 字 detail 😀 ")
    assert A.SUMMARY_TRUNCATED_MARKER not in summary and "\"\n\n## Decisions\n- Cut to fit the " in summary
    assert all(h in summary for h in ("## Open TODOs", "## Constraints/Rules", "## Pending user asks", "## Exact identifiers"))
    assert {c["name"]: c["ok"] for c in res["checks"]}.items() >= {"cap": True, "quality": True}.items()
    assert summary.endswith("</read-files>")  # the file lists survive, without 2026.4's blank line
    read = summary[summary.index("<read-files>"):]
    assert "\n\n</read-files>" not in read and js_len(read) <= A.MAX_FILE_OPS_LIST_CHARS and "more\n</read-files>" in read
    preserved = summary[summary.index("## Recent turns preserved verbatim"):summary.index("## Tool Failures")]
    assert js_len(preserved) <= A.MAX_SPLIT_TURN_CONTEXT_CHARS
    assert "Summary unavailable" not in summary
    assert set(line["details"]) == {"readFiles", "modifiedFiles"}  # a manual compaction answers no pending request


def test_split_turn_summary_is_in_the_body_with_the_guard_off(demo: Path, tmp_path: Path) -> None:  # noqa: F811
    # as test_compaction_runner's cap test, under 2026.9.6 with its quality guard off: the split-turn section joins
    # the body (before the cut), its headings nested, capped at 8,000; with the guard on (the default) it follows
    # the body, in the suffix
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps({"agents": {"defaults": {"compaction": {"qualityGuard": {"enabled": False}}}}}))
    summaries = []
    for extra in (["--config", str(config)], []):
        with OpenAIServer(reply="## Decisions\n" + "x" * 9_000, piece=4000) as srv:
            out = cli(str(demo), "--rules", SEPT, "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json",
                      "--dry-run", *extra, state=tmp_path / "s")
            assert out.returncode == 0, out.stderr
        summaries.append(json.loads(out.stdout)["entry"]["summary"])
    off, on = summaries
    assert js_len(off) == A.MAX_COMPACTION_SUMMARY_CHARS
    turn = off.index("**Turn Context (split turn):**")
    assert turn < off.index(A.SUMMARY_TRUNCATED_MARKER)
    assert off[turn:].startswith(A.SPLIT_TURN_HEADING + "### Decisions\n")
    assert off.endswith("</modified-files>")
    # with the guard on: the body cut first, then the suffix, cut from its head (the split turn's section first)
    assert on.startswith("## Decisions\nxxx") and on.index(A.SUMMARY_TRUNCATED_MARKER) < on.index(A.CONTEXT_TRUNCATED_MARKER)
    assert js_len(on) == A.MAX_COMPACTION_SUMMARY_CHARS and "**Turn Context (split turn):**" not in on


def test_no_summary_unavailable_text_under_2026_9(demo: Path, tmp_path: Path) -> None:  # noqa: F811
    before = demo.read_bytes()
    with OpenAIServer(default="overflow") as srv:
        out = cli(str(demo), "--rules", SEPT, "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json",
                  "--accept-fallback", state=tmp_path / "s")
    res = json.loads(out.stdout)
    assert out.returncode == 2 and res["status"] == "failed" and res["changed"] is False
    assert "All summarization attempts failed" in res["reason"] and "summary_unavailable" not in res["fallbacks"]
    assert demo.read_bytes() == before


class _FailAt(Stager):
    """A stager whose summary calls fail from call `fail_from` on (counting from 0)."""

    fail_from = 1
    made = 0

    def call(self, msgs: list[Msg], instructions: str, previous: str | None, purpose: Any, label: str) -> str:
        self.made += 1
        if self.made > self.fail_from:
            raise ProviderError("fake", "boom")
        return f"summary of {len(msgs)} ({label})"


def _stager(rules_id: str, tmp_path: Path, fail_from: int) -> tuple[_FailAt, list[Msg]]:
    rules = rule_set(rules_id)
    rng = random.Random(1)
    messages = [{"role": "user" if k % 2 == 0 else "assistant", "content": [{"type": "text", "text": "w " * rng.randint(200, 400)}],
                 "timestamp": 1_767_225_600_000 + k * 60_000} for k in range(8)]
    msgs = [Msg(rules.items.item_for_message(m, k), m) for k, m in enumerate(messages)]
    stager = _FailAt(RulesSummarizer(), tmp_path / "x.jsonl", lambda e: None, SystemClock(), CancelToken(), 200_000, 16_384, rules)
    stager.fail_from = fail_from
    return stager, msgs


def test_a_chunk_failing_part_way_keeps_a_marked_partial_summary(tmp_path: Path) -> None:
    stager, msgs = _stager(SEPT, tmp_path, fail_from=2)
    text = stager.summarize_with_fallback(msgs, "focus", None, 400, "history")
    assert text.startswith("summary of")
    assert text.endswith(A.partial_summary_note(2, stager.count_chunks(msgs, 400)))
    assert "partial_summary" in stager.stats.fallbacks and not stager.unavailable
    # 2026.4.12: no partial summary, the "Summary unavailable" text
    old, msgs = _stager("openclaw-2026.4.12", tmp_path, fail_from=2)
    assert "Summary unavailable" in old.summarize_with_fallback(msgs, "focus", None, 400, "history") and old.unavailable


def test_the_merge_labels_each_part_with_its_time_range() -> None:
    label = A.stage_summary_label(0, 2, [1_767_225_600_000, 1_767_229_200_000, "x", 0])
    assert label == "[Chunk 1 — oldest messages [2026-01-01 00:00 — 2026-01-01 01:00 UTC]]\n"
    assert A.stage_summary_label(1, 2, []) == "[Chunk 2 — most recent messages]\n"
    assert A.stage_summary_label(1, 3, [1_767_225_600_000]) == "[Chunk 2/3 [2026-01-01 00:00 UTC]]\n"
    assert rule_set("openclaw-2026.4.12").assembly.stage_summary_label(0, 2, [1]) == ""


def test_the_forecast_shows_the_summary_limits(tmp_path: Path) -> None:
    session = big_session(tmp_path / "big" / "s.jsonl")
    for rules_id in (SEPT, "openclaw-2026.4.12"):
        opened = open_session(session, rules_id)
        plan = plan_compaction(opened, opened.context()).to_json()
        if rules_id != SEPT:
            assert "summary_limits" not in plan  # 2026.4.12's plan --json is unchanged
            continue
        limits = plan["summary_limits"]
        assert (limits["max_chars"], limits["file_list_chars"], limits["file_section_chars"]) == (16_000, 900, 2_000)
        assert limits["file_ops_chars"] == js_len(A.format_file_operations(plan["file_ops"]["read_files"], plan["file_ops"]["modified_files"]))
        request = limits["latest_unresolved_request"]
        assert request["text"].startswith("turn 39: please look at 字") and L.LATEST_USER_REQUEST_TRUNCATED_MARKER in request["text"]
        assert js_len(request["text"]) == 379 + js_len(L.LATEST_USER_REQUEST_TRUNCATED_MARKER) + 380
        assert request["where"] == "safeguard prompt and details" and request["section_chars"] == 0  # safeguard is the default mode
    limits = L.summary_limits([], [], "fix it", "default")
    assert limits.request_in_summary and limits.request_section_chars == js_len('## Latest unresolved user request\n"fix it"\n\n')
