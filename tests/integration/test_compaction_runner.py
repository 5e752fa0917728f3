"""The compaction run end to end: `rules` on the demo (a copy) loaded by pi's real SessionManager, the `openai`
summarizer against a real HTTP server on 127.0.0.1 through the CLI (streaming, retries, the breaker, the fallback
chain, the timeout, cancel), the staged path (parts → merge), and the 16000-character cap."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT
from llm_servers import OpenAIServer
from test_compaction_writer import _messages_from, pi_oracle

from inspector.figures.forecast.plan import PlanOptions
from inspector.js.jsjson import js_len
from inspector.rules.openclaw_2026_4_12.compaction.assembly import SUMMARY_TRUNCATED_MARKER
from inspector.write.events import RunEvent
from inspector.write.runner import RunOptions, run_compaction
from inspector.write.summarizers import CancelToken, make_summarizer

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    p = tmp_path / "demo" / DEMO.name
    p.parent.mkdir()
    shutil.copy(DEMO, p)
    return p


def cli(*args: str, state: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SESSION_INSPECTOR_STATE_DIR": str(state)}
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        env.pop(k, None)
    return subprocess.run([sys.executable, "-m", "inspector", "compact", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL, cwd=ROOT)


# ----------------------------------------------------------------------------------------------------- rules


def orig_copy(demo: Path, data: bytes, tmp_path: Path) -> Path:
    p = tmp_path / "orig" / demo.name
    p.parent.mkdir()
    p.write_bytes(data)
    return p


def test_rules_on_the_demo_copy_loads_in_pi(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    out = cli(str(demo), "--yes", "--json", state=tmp_path / "state")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["status"] == "committed" and res["changed"] is True
    entry = res["entry"]
    assert entry["fromHook"] is True and entry["firstKeptEntryId"] and entry["details"]["readFiles"]
    assert [s["stage"] for s in res["stages"]] == ["chunks", "split_turn_prefix", "assembly", "commit"]
    assert res["tokens_after"] < res["tokens_before"]
    assert DEMO.read_bytes() == before  # the shipped file is untouched
    data = demo.read_bytes()
    assert data.startswith(before)
    line = json.loads(data[len(before):])
    assert list(line) == ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"]
    assert line["summary"] == entry["summary"] and "<read-files>" in line["summary"] and "## Decisions" in line["summary"]
    # pi's SessionManager: summary first, then exactly the tail from firstKeptEntryId
    old_leaf = json.loads(before.rstrip(b"\n").rsplit(b"\n", 1)[-1])["id"]
    expected_tail = _messages_from(orig_copy(demo, before, tmp_path), line["firstKeptEntryId"], old_leaf)
    (got,) = pi_oracle([demo], tmp_path)
    assert got["leaf"] == line["id"]
    first, *rest = got["messages"]
    assert first["role"] == "compactionSummary" and first["summary"] == line["summary"]
    assert first["tokensBefore"] == line["tokensBefore"]
    assert rest == expected_tail
    # undo restores the bytes
    undo = subprocess.run([sys.executable, "-m", "inspector", "undo", str(demo)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "SESSION_INSPECTOR_STATE_DIR": str(tmp_path / "state")})
    assert undo.returncode == 0, undo.stderr
    assert demo.read_bytes() == before


def test_without_yes_and_without_a_tty_it_refuses(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    out = cli(str(demo), state=tmp_path / "state")
    assert out.returncode == 2 and "--yes" in out.stderr
    assert demo.read_bytes() == before


def test_dry_run_prints_the_entry_and_writes_nothing(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    out = cli(str(demo), "--dry-run", "--json", state=tmp_path / "state")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["status"] == "dry_run" and res["changed"] is False and res["entry"]["summary"]
    assert "[1/" in out.stderr and "chunks" in out.stderr  # plain progress lines when stderr is no TTY
    assert demo.read_bytes() == before


# ----------------------------------------------------------------------------------------------------- openai


def test_openai_streaming_end_to_end(demo: Path, tmp_path: Path) -> None:
    with OpenAIServer() as srv:
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=tmp_path / "s")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        assert len(srv.requests) == 2  # history + split-turn prefix
        assert all(r["body"].get("stream") is True for r in res and srv.requests)
        assert res["entry"]["summary"].startswith(srv.reply)
        assert "**Turn Context (split turn):**\n\n" + srv.reply in res["entry"]["summary"]
        assert res["stages"][0]["tokens_in"] == 321 and res["stages"][0]["tokens_out"] == 45


def test_429_is_retried(demo: Path, tmp_path: Path) -> None:
    with OpenAIServer() as srv:
        srv.script(["http429"])
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=tmp_path / "s")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        assert len(srv.requests) == 3 and res["retries"] == 1 and res["status"] == "committed"


def test_500s_open_the_breaker_and_the_next_run_makes_no_request(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    state = tmp_path / "s"
    with OpenAIServer(default="http500") as srv:
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=state)
        assert out.returncode in (1, 2), out.stderr
        res = json.loads(out.stdout)
        assert res["changed"] is False and len(srv.requests) == 3
        assert demo.read_bytes() == before
        again = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=state)
        assert again.returncode == 2
        assert json.loads(again.stdout)["status"] == "failed" and "circuit" in json.loads(again.stdout)["reason"].lower()
        assert len(srv.requests) == 3  # zero requests while open
        assert demo.read_bytes() == before


def test_context_overflow_takes_the_fallback_path(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    with OpenAIServer(default="overflow") as srv:
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=tmp_path / "a")
        res = json.loads(out.stdout)
        assert out.returncode == 1 and res["status"] == "nothing_written" and "summary_unavailable" in res["fallbacks"]
        assert len(srv.requests) == 2  # an overflow is never retried
        assert demo.read_bytes() == before
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", "--accept-fallback",
                  state=tmp_path / "b")
        res = json.loads(out.stdout)
        assert out.returncode == 0 and res["status"] == "committed" and res["fallback_summary"] is True
        assert "Summary unavailable due to size limits." in res["entry"]["summary"]


def test_a_hanging_server_hits_the_safety_timeout(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    with OpenAIServer(default="hang") as srv:
        t0 = time.monotonic()
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", "--timeout", "1.5",
                  state=tmp_path / "s")
        took = time.monotonic() - t0
        res = json.loads(out.stdout)
        assert out.returncode == 2 and res["status"] == "failed" and "timeout" in res["reason"]
        assert took < 30 and len(srv.requests) == 1
        assert demo.read_bytes() == before


def test_cancel_mid_stream_writes_nothing(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    before = demo.read_bytes()
    cancel = CancelToken()
    events: list[RunEvent] = []

    def emit(ev: RunEvent) -> None:
        events.append(ev)
        if ev.kind == "text_streamed":
            cancel.cancel()

    with OpenAIServer(default="slow") as srv:
        summarizer = make_summarizer("openai", base_url=srv.base_url, model="m1", env={})
        res = run_compaction(demo, RunOptions(summarizer=summarizer), emit, cancel)
        assert res.status == "nothing_written" and "cancel" in res.reason
        assert len(srv.requests) == 1
    assert events[-1].kind == "nothing_written"
    assert demo.read_bytes() == before


# ----------------------------------------------------------------------------------------------------- staged


def test_staged_parts_then_merge(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    events: list[RunEvent] = []
    with OpenAIServer() as srv:
        summarizer = make_summarizer("openai", base_url=srv.base_url, model="m1", env={})
        opts = RunOptions(summarizer=summarizer, plan=PlanOptions(context_window=16_000, keep_recent_tokens=2_000), dry_run=True)
        res = run_compaction(demo, opts, events.append)
        assert res.status == "dry_run", res.reason
        stages = [s.stage for s in res.stages]
        assert "parts" in stages and "merge" in stages
        assert stages.index("parts") < stages.index("merge")
        calls = sum(s.calls for s in res.stages)
        assert len(srv.requests) == calls
        texts = [json.dumps(r["body"]["messages"]) for r in srv.requests]
        merge_at = [i for i, t in enumerate(texts) if "Merge these partial summaries" in t]
        parts = next(s for s in res.stages if s.stage == "parts")
        assert merge_at and merge_at[0] == parts.calls + sum(s.calls for s in res.stages[: stages.index("parts")])
        # parts start without a previous summary; the merge gets the stage's previous summary (OpenClaw's `...params`)
        first_part = sum(s.calls for s in res.stages[: stages.index("parts")])
        assert "<previous-summary>" not in texts[first_part]
        assert "<previous-summary>" in texts[merge_at[0]]
        assert parts.calls >= 2
    started = [e for e in events if e.kind == "stage_started"]
    assert [e.stage for e in started][:len(stages)] == [s for s in stages if s in {e.stage for e in started}][:len(started)]


# ----------------------------------------------------------------------------------------------------- the cap


def test_summary_is_capped_at_16000_characters(demo: Path, tmp_path: Path) -> None:
    # history and prefix summaries of 9000 characters each: OpenClaw 2026.4.12 would cut the history summary; our write
    # keeps it whole and cuts the split turn's summary after it (the body of 2026.9.6's budget), the suffix whole
    with OpenAIServer(reply="## Decisions\n" + "x" * 9_000, piece=4000) as srv:
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=tmp_path / "s")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        summary = res["entry"]["summary"]
        assert js_len(summary) == 16_000
        assert summary.startswith("## Decisions\n" + "x" * 9_000 + "\n\n**Turn Context (split turn):**")
        assert summary.endswith("</modified-files>")  # the suffix survives the cut
        assert summary.index("**Turn Context (split turn):**") < summary.index(SUMMARY_TRUNCATED_MARKER)
        checks = {c["name"]: c for c in res["checks"]}
        assert "OpenClaw 2026.4.12 would cut the summary by" in checks["cap"]["detail"]
        assert "budgeted by Session Inspector: the entry starts with the summary, whole (9,013 characters)" in checks["budget"]["detail"]


def test_cancel_from_another_thread_at_any_moment(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    before = demo.read_bytes()
    with OpenAIServer(default="slow") as srv:
        srv.slow_delay = 0.2
        cancel = CancelToken()
        summarizer = make_summarizer("openai", base_url=srv.base_url, model="m1", env={})
        threading.Timer(0.3, cancel.cancel).start()
        t0 = time.monotonic()
        res = run_compaction(demo, RunOptions(summarizer=summarizer), cancel=cancel)
        assert time.monotonic() - t0 < 5
        assert res.status == "nothing_written"
    assert demo.read_bytes() == before


def test_a_suffix_longer_than_the_cap_keeps_its_end_in_the_forecast_not_in_the_entry(demo: Path, tmp_path: Path) -> None:
    """OpenClaw 2026.4.12 keeps the last 16000 characters of an oversized suffix (no marker), as
    `capCompactionSummaryPreservingSuffix` does: the `cap` check says so; our write keeps the summary first."""
    with OpenAIServer(reply="## Decisions\n" + "x" * 30_000, piece=4000) as srv:
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", "--json", state=tmp_path / "s")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        summary = res["entry"]["summary"]
        assert js_len(summary) == 16_000 and summary.startswith("## Decisions\nxxx") and summary.endswith("</modified-files>")
        checks = {c["name"]: c for c in res["checks"]}
        assert "would store 16,000 characters of appended turns" in checks["cap"]["detail"] and "lose the summary" in checks["cap"]["detail"]
        assert not checks["budget"]["ok"] and "would have stored only appended turns and lost the summary" in checks["budget"]["detail"]


APPENDER = """
import json, sys, time
path, parent, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    eid = f"ap{i:06d}"
    line = {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-02T10:00:00.000Z",
            "message": {"role": "user", "content": f"appended while compacting {i}", "timestamp": 1767348000000}}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\\n")
    parent = eid
    time.sleep(0.02)
"""


def test_lines_appended_by_another_process_during_the_run_survive_once(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    before = demo.read_bytes()
    leaf = json.loads(before.rstrip(b"\n").rsplit(b"\n", 1)[-1])["id"]
    with OpenAIServer(default="slow") as srv:
        srv.slow_delay = 0.05
        summarizer = make_summarizer("openai", base_url=srv.base_url, model="m1", env={})
        proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(demo), leaf, "20"])
        res = run_compaction(demo, RunOptions(summarizer=summarizer))
        proc.wait(timeout=60)
    assert res.status == "committed", res.reason
    lines = [json.loads(x) for x in demo.read_bytes().splitlines() if x.strip()]
    ids = [x.get("id") for x in lines]
    appended = [i for i in ids if isinstance(i, str) and i.startswith("ap")]
    assert appended == [f"ap{i:06d}" for i in range(20)]  # every line exactly once, in order
    assert demo.read_bytes().startswith(before)
    comp = next(x for x in lines if x.get("id") == res.commit.entry_id)
    assert comp["parentId"] == ids[ids.index(res.commit.entry_id) - 1]  # a child of the leaf at commit time


def test_boundary_case_writes_the_boundary_summary_with_no_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from oracle.cases import boundary_session

    from inspector.rules.openclaw_2026_4_12.compaction.boundary import build_structured_fallback_summary

    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    b, note = boundary_session()
    path = b.write(tmp_path / "b.jsonl")
    with OpenAIServer() as srv:
        summarizer = make_summarizer("openai", base_url=srv.base_url, model="m1", env={})
        res = run_compaction(path, RunOptions(summarizer=summarizer, plan=PlanOptions(keep_recent_tokens=200)))
        assert len(srv.requests) == 0
    assert res.status == "committed" and res.entry is not None
    assert res.entry["summary"] == build_structured_fallback_summary(None) and res.entry["firstKeptEntryId"] == note
    assert "details" not in res.entry  # OpenClaw's boundary compaction carries no details
    last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    assert last["type"] == "compaction" and last["summary"] == res.entry["summary"] and last["fromHook"] is True


def test_tty_progress_display_renders_the_stages(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from inspector.cli.commands.compact import EventRenderer

    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    buf = io.StringIO()
    renderer = EventRenderer(True, buf)
    res = run_compaction(demo, RunOptions(dry_run=True), renderer)
    renderer.stop()
    assert res.status == "dry_run"
    out = buf.getvalue()
    assert "chunks: done" in out and "split_turn_prefix: done" in out and "nothing written: dry run" in out
