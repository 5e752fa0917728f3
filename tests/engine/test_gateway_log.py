"""OpenClaw's Gateway log: where it is, what each line says, what is read of one session, and where it sits on
the timeline (`inspector.host.gateway_log`, `inspector.figures.diagnosis.gateway`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gateway_log_support import (
    compaction_end,
    compaction_failed,
    compaction_start,
    log_line,
    loop_abort,
    midturn_precheck,
    overflow_diag,
    precheck,
    write_log,
)
from test_diagnosis_fixtures import build_runaway

from inspector.figures.diagnosis.calls import walk_calls
from inspector.figures.diagnosis.gateway import (
    forecast_comparison,
    gateway_log_for,
    place_on_calls,
    timeline_disagreements,
)
from inspector.host.gateway_log import gateway_log_files, read_gateway_log, session_key_for
from inspector.host.gateway_log.locate import profile_segment
from inspector.host.gateway_log.read import MAX_LINE_BYTES
from inspector.rules.openclaw_2026_4_12.model_catalog import load_catalog
from inspector.session.session import open_session

KEY = "agent:main:main"
SID = "8a186f4a-4c11-4daf-899f-d7e80dfe1faf"  # build_runaway's header id
T0 = 1767323045680  # build_runaway's first call


def _read(path: Path, key: str | None = KEY, sid: str | None = None):
    return read_gateway_log([path], key, sid)


def test_each_event_kind_and_its_figures(tmp_path):
    log = write_log(
        tmp_path / "openclaw.log",
        [
            log_line(T0 + 1, precheck(KEY), level="DEBUG"),
            log_line(T0 + 2, midturn_precheck(KEY), level="WARN"),
            log_line(T0 + 3, overflow_diag(KEY), level="WARN"),
            log_line(T0 + 4, compaction_start(KEY), level="DEBUG"),
            log_line(T0 + 5, compaction_end(KEY), level="DEBUG"),
            log_line(T0 + 6, compaction_failed(KEY), level="WARN"),
            log_line(T0 + 7, f"[compaction] skipping \u2014 no real conversation messages (sessionKey={KEY})"),
            log_line(T0 + 8, loop_abort(KEY, SID), subsystem="diagnostic", level="ERROR"),
            log_line(T0 + 9, loop_abort(KEY, SID).replace("level=critical action=block", "level=warning action=warn"), level="WARN"),
            log_line(T0 + 10, "embedded run start: runId=r sessionId=x provider=p model=m"),
        ],
    )
    events = _read(log).events
    assert [e.kind for e in events] == [
        "overflow_precheck", "overflow_precheck", "overflow", "compaction_attempt", "compaction_result", "compaction_result",
        "compaction_skipped", "loop_abort", "loop_warning",
    ]
    pre, mid, ovf, start, end, failed, skipped, abort, warning = events
    assert pre.figures["phase"] == "pre_prompt" and pre.level == "DEBUG"
    assert (pre.figures["route"], pre.figures["estimated_prompt_tokens"], pre.figures["prompt_budget_before_reserve"]) == ("compact_only", 152300, 150000)
    assert pre.figures["overflow_tokens"] == 2300 and pre.figures["session_file"] == "/home/u/.openclaw/agents/main/sessions/s 1.jsonl"
    assert mid.figures["phase"] == "mid_turn" and mid.figures["pre_prompt_message_count"] == 12
    assert ovf.figures["observed_tokens"] == 201234 and ovf.figures["preflight_estimated_tokens"] is None
    assert ovf.figures["session_file"] == "/x/my session.jsonl" and ovf.figures["diag_id"] == "ovf-1"
    assert ovf.figures["error"] == "prompt is too long: 201234 tokens > 200000 maximum"
    assert start.figures["tokens_before"] == 19200 and start.figures["trigger"] == "budget"
    assert (end.figures["outcome"], end.figures["tokens_before"], end.figures["tokens_after"]) == ("compacted", 19200, 5100)
    assert end.figures["retrying"] is False and end.figures["duration_ms"] == 2100
    assert (failed.figures["outcome"], failed.figures["reason"], failed.figures["tokens_before"]) == ("failed", "timeout", None)
    assert skipped.figures["reason"] == "no real conversation messages"
    assert abort.session_id == SID and abort.figures["count"] == 20 and abort.figures["detector"] == "generic_repeat"
    assert abort.figures["message"].startswith("CRITICAL: Called exec") and not abort.figures["message"].endswith('"')
    assert warning.figures["action"] == "warn"
    assert pre.time == "2026-01-02T03:04:05.681+00:00" and pre.time_ms == T0 + 1 and pre.line == 1


def test_events_in_time_order_across_rotations(tmp_path):
    active = write_log(tmp_path / "gw.log", [log_line(T0 + 30, precheck(KEY, estimate=3))])
    write_log(tmp_path / "gw.1.log", [log_line(T0 + 20, precheck(KEY, estimate=2))])
    write_log(tmp_path / "gw.2.log", [log_line(T0 + 10, precheck(KEY, estimate=1))])
    files = gateway_log_files({"logging": {"file": str(active)}})
    assert [p.name for p in files] == ["gw.2.log", "gw.1.log", "gw.log"]
    log = read_gateway_log(files, KEY)
    assert [e.figures["estimated_prompt_tokens"] for e in log.events] == [1, 2, 3]
    assert [Path(e.file).name for e in log.events] == ["gw.2.log", "gw.1.log", "gw.log"]


def test_default_rolling_files_and_profiles(tmp_path):
    for name in ("openclaw-2026-01-01.log", "openclaw-2026-01-02.1.log", "openclaw-2026-01-02.log", "openclaw-dev-2026-01-02.log", "other.log"):
        write_log(tmp_path / name, [])
    names = [p.name for p in gateway_log_files(None, env={}, dirs=[tmp_path])]
    assert names == ["openclaw-2026-01-01.log", "openclaw-2026-01-02.1.log", "openclaw-2026-01-02.log"]
    assert [p.name for p in gateway_log_files(None, env={"OPENCLAW_PROFILE": "dev"}, dirs=[tmp_path])] == ["openclaw-dev-2026-01-02.log"]
    assert profile_segment({"OPENCLAW_PROFILE": "My_Work-1"}) == "-1my-0-1work--1"
    assert profile_segment({"OPENCLAW_PROFILE": "default"}) is None
    # a configured file of the legacy rolling shape stays rolling in its directory
    legacy = {"logging": {"file": str(tmp_path / "openclaw-2026-01-02.log")}}
    assert [p.name for p in gateway_log_files(legacy)][-1] == "openclaw-2026-01-02.log" and len(gateway_log_files(legacy)) == 3
    assert [p.name for p in gateway_log_files(None, tmp_path)] == sorted(
        ["openclaw-2026-01-01.log", "openclaw-2026-01-02.1.log", "openclaw-2026-01-02.log", "openclaw-dev-2026-01-02.log"]
    )


def test_no_log_is_an_empty_list(tmp_path):
    assert gateway_log_files({"logging": {"file": str(tmp_path / "none.log")}}) == []
    assert gateway_log_files(None, env={}, dirs=[tmp_path / "missing"]) == []
    log = read_gateway_log([], KEY, SID)
    assert log.events == [] and log.diagnostics == [] and not log.found
    assert read_gateway_log([tmp_path / "gone.log"], KEY).diagnostics[0].message.startswith("cannot read")


def test_other_sessions_are_left_out(tmp_path):
    log = write_log(
        tmp_path / "openclaw.log",
        [
            log_line(T0, precheck("agent:main:other")),
            log_line(T0 + 1, precheck("agent:main:main:thread:1")),  # a longer key holding ours
            "this line is not JSON and names no session",
            log_line(T0 + 2, precheck(KEY)),
            log_line(T0 + 3, compaction_start(SID)),  # no key: OpenClaw logs the session id
        ],
    )
    got = read_gateway_log([log], KEY, SID)
    assert [(e.kind, e.line) for e in got.events] == [("overflow_precheck", 4), ("compaction_attempt", 5)]
    assert got.diagnostics == []  # another session's (or no session's) broken line is not ours to report
    assert read_gateway_log([log], None, None).events == []


def test_corrupt_and_huge_lines_are_diagnostics(tmp_path):
    path = tmp_path / "openclaw.log"
    huge = log_line(T0, precheck(KEY, session_file="/x/" + "a" * (MAX_LINE_BYTES + 10)))
    with path.open("w", encoding="utf-8") as f:
        f.write(log_line(T0 + 1, precheck(KEY, estimate=1)) + "\n")
        f.write('{"1": "[context-overflow-precheck] pre-prompt check sessionKey=' + KEY + ' route=fi\n')  # cut short
        f.write(huge + "\n")
        f.write(json.dumps(["sessionKey=" + KEY]) + "\n")
        f.write(log_line(T0 + 5, precheck(KEY, estimate=5)) + "\n")
    got = _read(path)
    assert [e.figures["estimated_prompt_tokens"] for e in got.events] == [1, 5]
    assert [(d.line, d.message) for d in got.diagnostics] == [
        (2, "not JSON; skipped"),
        (3, f"line over {MAX_LINE_BYTES:,} bytes; skipped"),
        (4, "not a JSON object; skipped"),
    ]
    assert got.events[1].line == 5


def test_untrusted_text_is_inert(tmp_path):
    evil = overflow_diag(KEY).replace("prompt is too long", "\x1b]52;c;AAAA\x07\u202etoo long")
    got = _read(write_log(tmp_path / "openclaw.log", [log_line(T0, evil)]))
    error = got.events[0].figures["error"]
    assert "\x1b" not in error and "\u202e" not in error and "\\x1b" in error
    assert "\x1b" not in got.events[0].message


def test_session_key_from_sessions_json(tmp_path):
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    build_runaway(folder / f"{SID}.jsonl")
    assert session_key_for(folder / f"{SID}.jsonl") is None
    (folder / "sessions.json").write_text(json.dumps({KEY: {"sessionId": SID, "updatedAt": 1}}))
    assert session_key_for(folder / f"{SID}.jsonl") == KEY


@pytest.fixture
def runaway(tmp_path):
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    build_runaway(folder / f"{SID}.jsonl")
    (folder / "sessions.json").write_text(json.dumps({KEY: {"sessionId": SID, "updatedAt": 1}}))
    return open_session(folder / f"{SID}.jsonl")


def test_events_placed_at_their_calls(runaway, tmp_path):
    # calls start at T0 (0), +1215 (1), ..., compaction entry before call 6 (03:10:54.502 = T0 + 408822)
    path = write_log(
        tmp_path / "logs" / "gw.log",
        [
            log_line(T0 - 5, precheck(KEY, estimate=4900, route="fits")),  # before call 0
            log_line(T0 + 10, overflow_diag(KEY)),  # after call 0
            log_line(T0 + 408000, compaction_start(KEY)),
            log_line(T0 + 408500, compaction_end(KEY)),  # before call 6: the session's compaction
            log_line(T0 + 411000, compaction_end(KEY, diag="cmp-9")),  # before call 7: no compaction there
            log_line(T0 + 999999, loop_abort(KEY, SID)),  # after the last call
        ],
    )
    log = gateway_log_for(runaway, {"logging": {"file": str(path)}})
    assert log.session_key == KEY and log.session_id == SID and len(log.events) == 6
    ctx = runaway.context()
    walk = walk_calls(runaway, ctx, load_catalog())
    placed = place_on_calls(log.events, walk.calls)
    assert [(p.call_index, p.relation) for p in placed] == [(0, "before"), (0, "after"), (6, "before"), (6, "before"), (7, "before"), (7, "after")]
    assert placed[0].entry_id == walk.calls[0].entry_id
    found = timeline_disagreements(placed, walk, 180000)
    kinds = [(d.kind, d.call_index) for d in found]
    assert ("precheck_vs_recorded", 0) in kinds
    assert ("compaction_not_in_session", 7) in kinds and ("compaction_not_in_session", 6) not in kinds
    assert ("compaction_unpredicted", 6) in kinds  # budget-triggered at 19,152 tokens, threshold 180,000
    pre = next(d for d in found if d.kind == "precheck_vs_recorded")
    assert (pre.openclaw, pre.product, pre.difference) == (4900, 5000, -100)
    assert "difference of -100" in pre.message


def test_an_event_out_of_every_call_has_no_place(runaway, tmp_path):
    path = write_log(tmp_path / "gw.log", [log_line(T0 + 10**9, precheck(KEY)), log_line(T0 - 10**6, loop_abort(KEY, SID))])
    walk = walk_calls(runaway, runaway.context(), load_catalog())
    placed = place_on_calls(read_gateway_log([path], KEY).events, walk.calls)
    assert [(p.call_index, p.relation) for p in placed] == [(None, None), (None, None)]
    assert timeline_disagreements(placed, walk, 180000) == []


def test_forecast_comparison_names_differences(tmp_path):
    path = write_log(
        tmp_path / "gw.log",
        [
            log_line(T0, precheck(KEY, estimate=152300, budget=150000, route="compact_only")),
            log_line(T0 + 5, compaction_start(KEY, before=90000)),
            log_line(T0 + 6, compaction_end(KEY, before=90000, after=20000)),
        ],
    )
    log = read_gateway_log([path], KEY)
    triggers = {"pre_prompt": {"estimated_prompt_tokens": 149800, "prompt_budget_before_reserve": 150000, "route": "fits"},
                "threshold": {"threshold_tokens": 180000}}
    out = forecast_comparison(log, triggers, last_entry=T0 - 1)
    assert out["same_context"] is True and out["last_precheck"]["figures"]["route"] == "compact_only"
    assert out["last_compaction"]["figures"]["tokens_before"] == 90000
    by_kind = {d["kind"]: d for d in out["disagreements"]}
    assert set(by_kind) == {"estimated_prompt_tokens", "route", "compaction_unpredicted"}
    assert by_kind["estimated_prompt_tokens"]["difference"] == 2500
    assert by_kind["estimated_prompt_tokens"]["message"] == (
        "OpenClaw estimated 152,300 prompt tokens where the product's estimate is 149,800: a difference of +2,500"
    )
    assert by_kind["compaction_unpredicted"]["difference"] == -90000
    older = forecast_comparison(log, triggers, last_entry=T0 + 100)
    assert older["same_context"] is False and "earlier context" in older["disagreements"][0]["message"]
    agree = forecast_comparison(read_gateway_log([path], "agent:none"), triggers, T0)
    assert agree["last_precheck"] is None and agree["disagreements"] == []
