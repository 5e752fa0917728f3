"""The pi-format mirror of Claude Code and Codex files (issue 26, follow-up): a split API message's usage from its last
line, parallel tool calls on one chain, Codex `token_count` on the response it measures, the oldest Codex rollouts,
and the mirror shared across processes (a warm run translates nothing, an append only the new lines, two processes
at once make one correct mirror)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from inprocess import run_cli

from inspector.read.detect import detect_format
from inspector.read.formats.claude_code import ClaudeCodeTranslator
from inspector.read.formats.mirror import sync_foreign
from inspector.session.session import open_session

TS = "2026-01-01T00:00:00.000Z"
REPO = Path(__file__).resolve().parents[2]


def usage(inp, write, read, out):
    return {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": out}


def cc(uuid, parent, kind, content, **extra):
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, "timestamp": TS,
            "message": {"role": kind, "content": content}, **extra}


def ca(uuid, parent, block, mid, u):
    line = cc(uuid, parent, "assistant", [block], requestId=f"req-{mid}")
    line["message"].update(id=mid, model="claude-opus-4-6", stop_reason=None, usage=u)
    return line


def tool_use(call_id):
    return {"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": f"/{call_id}"}}


def result(uuid, parent, call_id, text):
    return cc(uuid, parent, "user", [{"type": "tool_result", "tool_use_id": call_id, "content": text}])


def write(path: Path, objs) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def stats(path: Path) -> dict:
    r = run_cli(["stats", str(path), "--json"])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def parallel_calls() -> list[dict]:
    """One API message (m1) over four lines, two parallel calls whose results Claude Code parents on their own
    `tool_use` lines, the message going on after a result; streaming wrote partial usage on the earlier lines."""
    partial, final = usage(3, 100, 5000, 2), usage(3, 100, 5000, 480)
    return [
        cc("u1", None, "user", "read both"),
        ca("a1", "u1", {"type": "text", "text": "Reading."}, "m1", partial),
        ca("a2", "a1", tool_use("t1"), "m1", partial),
        ca("a3", "a2", tool_use("t2"), "m1", partial),
        result("r1", "a2", "t1", "one" * 100),
        result("r2", "a3", "t2", "two" * 100),
        ca("a4", "r2", {"type": "text", "text": "Both read."}, "m1", final),
        ca("b1", "a4", {"type": "text", "text": "Next message."}, "m2", usage(5, 0, 5600, 9)),
    ]


def test_a_split_api_message_is_one_call_with_its_last_line_s_usage_and_its_parallel_results_on_the_path(tmp_path):
    p = write(tmp_path / "s.jsonl", parallel_calls())
    d = stats(p)
    assert d["usage"]["active_path"]["assistant_calls"] == 2 == d["usage"]["all_entries"]["assistant_calls"]
    assert d["usage"]["active_path"]["output"] == 480 + 9  # the last line's complete output, not the streaming 2s
    assert d["tree"]["off_path_entries"] == 0 and not [x for x in d["diagnostics"] if x["kind"] == "missing_tool_result"]
    t = json.loads(run_cli(["timeline", str(p), "--json"]).stdout)
    assert [(c["line"], c["prompt_tokens"]) for c in t["calls"]] == [(7, 5103), (8, 5605)]
    ctx = json.loads(run_cli(["context", str(p), "--json"]).stdout)
    assert [(r["line"], r["role"]) for r in ctx["messages"]] == [
        (1, "user"), (2, "assistant"), (3, "assistant"), (4, "assistant"), (5, "toolResult"), (6, "toolResult"), (7, "assistant"), (8, "assistant")]


def test_the_usage_moves_to_the_last_line_as_the_message_grows_line_by_line(tmp_path):
    lines = parallel_calls()
    p = tmp_path / "s.jsonl"
    p.write_text("")
    m = None
    before = b""
    for i, line in enumerate(lines, 1):
        with p.open("a") as f:
            f.write(json.dumps(line) + "\n")
        m = sync_foreign(p, "claude-code", m)
        now = m.path.read_bytes()
        assert now.startswith(before) and m.change in ("created", "appended"), i  # the mirror only grows: no byte read changes
        before = now
        with_usage = [e.line for e in open_session(m.path).entries if e.usage is not None]
        assert with_usage == {1: [], 2: [2], 3: [3], 4: [4], 5: [4], 6: [4], 7: [7], 8: [7, 8]}[i], i
        assert m.revised == (1 if i in (3, 4, 7) else 0), i  # the usage moved off a row of an earlier sync: a mark
    whole = open_session(sync_foreign(write(tmp_path / "whole.jsonl", lines), "claude-code").path)
    live = open_session(m.path)
    assert [(e.id, e.line, e.usage) for e in live.entries] == [(e.id, e.line, e.usage) for e in whole.entries]
    assert [live.load_message(e) for e in live.entries] == [whole.load_message(e) for e in whole.entries]


def test_a_warm_run_translates_nothing_and_an_append_only_the_new_lines(tmp_path, monkeypatch):
    calls = []
    real = ClaudeCodeTranslator.translate
    monkeypatch.setattr(ClaudeCodeTranslator, "translate", lambda self, obj: calls.append(self.line) or real(self, obj))
    lines = parallel_calls()
    p = write(tmp_path / "s.jsonl", lines[:5])
    first = stats(p)
    assert len(calls) == 5
    calls.clear()
    mirror = sync_foreign(p, "claude-code")  # as a new process would: nothing of this one's state
    assert (mirror.change, mirror.translated) == ("unchanged", 0) and calls == []
    inode = mirror.path.stat().st_ino
    assert stats(p) == first and calls == []  # a second run reads the mirror the first left
    with p.open("a") as f:
        f.write("".join(json.dumps(o) + "\n" for o in lines[5:]))
    grown = stats(p)
    assert calls == [5, 6, 7]  # lines 6..8 only (the translator counts lines from 0)
    assert grown["usage"]["active_path"]["assistant_calls"] == 2
    assert grown == stats(write(tmp_path / "whole.jsonl", lines)) | {"file": str(p), "source": grown["source"]} | {
        k: grown[k] for k in ("size_bytes",)}
    assert mirror.path.stat().st_ino == inode  # line 7 moved the usage off line 4: a usage mark appended, nothing replaced


def test_a_file_rewritten_in_place_is_translated_again(tmp_path):
    p = write(tmp_path / "s.jsonl", [cc("u1", None, "user", "hello"), ca("a1", "u1", {"type": "text", "text": "hi"}, "m1", usage(1, 2, 3, 4))])
    sync_foreign(p, "claude-code")
    text = p.read_text().replace("hello", "HELLO")
    with p.open("r+") as f:  # same inode, same size, other bytes
        f.write(text)
    m = sync_foreign(p, "claude-code")
    assert m.change == "rewritten" and b"HELLO" in m.path.read_bytes()


def test_two_processes_at_once_make_one_correct_mirror(tmp_path):
    lines = parallel_calls() * 300  # the same uuids again: duplicates are kept apart (#L<line>)
    p = write(tmp_path / "s.jsonl", lines)
    script = (
        "import sys\nfrom inspector.read.formats.mirror import sync_foreign\n"
        "m = sync_foreign(sys.argv[1], 'claude-code')\nprint(m.change, m.translated)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", script, str(p)], env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = sorted(proc.communicate(timeout=60)[0].split() for proc in procs)
    assert all(proc.returncode == 0 for proc in procs)
    assert outs == [["created", str(len(lines))], ["unchanged", "0"]]  # one translated, the other waited and reused it
    mirror = sync_foreign(p, "claude-code")
    assert mirror.change == "unchanged"
    fresh = sync_foreign(write(tmp_path / "again.jsonl", lines), "claude-code")
    assert mirror.path.read_bytes() == fresh.path.read_bytes()
    assert stats(p)["usage"]["active_path"]["assistant_calls"] >= 2


# --- Codex ---------------------------------------------------------------------------------------------------------

def cx(kind, payload):
    return {"timestamp": TS, "type": kind, "payload": payload}


def test_codex_token_count_goes_on_the_response_and_a_repeat_is_no_new_call(tmp_path):
    last = {"input_tokens": 900, "cached_input_tokens": 800, "output_tokens": 30, "total_tokens": 930}
    count = cx("event_msg", {"type": "token_count", "info": {"last_token_usage": last, "model_context_window": 272000}})
    p = write(tmp_path / "rollout.jsonl", [
        cx("turn_context", {"model": "gpt-5.1"}),
        cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}),
        cx("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]}),
        cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}),
        count,
        count,  # repeated (a rate-limit update): the same call
        cx("event_msg", {"type": "agent_message", "message": "hello"}),
    ])
    mirror = sync_foreign(p, "codex")
    s = open_session(mirror.path)
    assert [(e.line, e.role, e.usage is not None) for e in s.entries if e.type == "message"] == [
        (2, "user", False), (3, "assistant", False), (4, "assistant", True)]
    rows = [json.loads(line) for line in mirror.path.read_bytes().splitlines()]
    assert all(r["message"]["content"] for r in rows if r["type"] == "message")  # no empty rows
    assert [r.get("customType") for r in rows[4:]] == ["codex:event_msg/token_count"] * 2 + ["codex:event_msg/agent_message"]
    d = stats(p)
    assert d["usage"]["active_path"]["assistant_calls"] == 1 and d["context"]["estimate_context_tokens"]["usage_tokens"] == 900


def test_the_oldest_codex_rollouts_without_envelope_are_codex(tmp_path):
    p = write(tmp_path / "rollout-44444444.jsonl", [
        {"id": "44444444-4444-4444-8444-444444444444", "timestamp": TS, "instructions": "be brief"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Open it."}]},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Opened."}]},
    ])
    assert detect_format(p).name == "codex"
    d = stats(p)
    assert d["format"] == "codex" and d["entries"]["by_role"] == {"assistant": 1, "user": 1}
    ctx = json.loads(run_cli(["context", str(p), "--json"]).stdout)
    assert [(r["line"], r["role"]) for r in ctx["messages"]] == [(2, "user"), (4, "assistant")]
    pi_v1 = write(tmp_path / "pi.jsonl", [{"type": "message", "timestamp": TS, "message": {"role": "user", "content": "hi"}}])
    assert detect_format(pi_v1).name == "openclaw"


# --- the agent's own threshold and cost ----------------------------------------------------------------------------

def test_the_timeline_s_compaction_threshold_is_the_agent_s_own_rule_as_the_plan_s(tmp_path):
    p = write(tmp_path / "s.jsonl", parallel_calls())
    t = json.loads(run_cli(["timeline", str(p), "--json"]).stdout)
    f = json.loads(run_cli(["plan", str(p), "--json"]).stdout)["agent_forecast"]
    line = next(x for x in t["thresholds_crossed"] if x["kind"] == "compaction")
    assert line["tokens"] == f["threshold_tokens"] == 200_000 - 20_000 - 13_000  # not OpenClaw's window - 20,000
    assert line["source"] == f["rule"] == t["agent_compaction"]["rule"] and "#31806" in line["source"]
    assert "Claude Code's own auto-compaction, 167,000 tokens" in run_cli(["timeline", str(p)]).stdout
    cfg = tmp_path / "cx"
    cfg.mkdir()
    (cfg / "config.toml").write_text("model_auto_compact_token_limit = 5000\n")
    last = {"input_tokens": 6000, "cached_input_tokens": 0, "output_tokens": 3, "total_tokens": 6003}
    r = write(tmp_path / "rollout.jsonl", [
        cx("turn_context", {"model": "gpt-5.5"}),
        cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}),
        cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "yo"}]}),
        cx("event_msg", {"type": "token_count", "info": {"last_token_usage": last, "model_context_window": 272000}}),
    ])
    env = {"HOME": str(tmp_path), "CODEX_HOME": str(cfg), "PATH": "/usr/bin:/bin", "SESSION_INSPECTOR_CACHE_DIR": str(tmp_path / "cache")}
    t = json.loads(run_cli(["timeline", str(r), "--json"], env=env).stdout)
    line = next(x for x in t["thresholds_crossed"] if x["kind"] == "compaction")
    assert (line["tokens"], line["crossed"], line["line"]) == (5000, True, 3) and "model_auto_compact_token_limit" in line["source"]
    (cfg / "config.toml").write_text("")
    t = json.loads(run_cli(["timeline", str(r), "--json"], env=env).stdout)
    assert [x["kind"] for x in t["thresholds_crossed"]] == ["early_warning", "early_warning", "window"]  # not known: none drawn
    assert t["agent_compaction"]["threshold_tokens"] is None and t["agent_compaction"]["note"]


def test_the_fill_names_the_agent_that_compacts_and_its_rule_not_pi_s_reserve(tmp_path):
    from inspector.figures.diagnosis.fill import fill_state
    from inspector.figures.diagnosis.thresholds import ThresholdLine
    from inspector.figures.forecast.other_agents import CODEX_SOURCE, AgentRule
    from widgets.diagnosis.texts import fill_warning

    cfg = tmp_path / "cx"
    cfg.mkdir()
    (cfg / "config.toml").write_text("model_auto_compact_token_limit = 5000\n")
    last = {"input_tokens": 6000, "cached_input_tokens": 0, "output_tokens": 3, "total_tokens": 6003}
    r = write(tmp_path / "rollout.jsonl", [
        cx("turn_context", {"model": "gpt-5.5"}),
        cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}),
        cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "yo"}]}),
        cx("event_msg", {"type": "token_count", "info": {"last_token_usage": last, "model_context_window": 272000}}),
    ])
    env = {"HOME": str(tmp_path), "CODEX_HOME": str(cfg), "PATH": "/usr/bin:/bin", "SESSION_INSPECTOR_CACHE_DIR": str(tmp_path / "cache")}
    fill = json.loads(run_cli(["timeline", str(r), "--json"], env=env).stdout)["fill"]
    assert (fill["level"], fill["compactor"], fill["compaction_rule"]) == ("compaction_due", "Codex", CODEX_SOURCE)
    assert "Codex compacts before its next request" in fill["message"] and "reserveTokens" not in fill["message"]
    lines = [ThresholdLine("compaction", "compaction", 5000, CODEX_SOURCE)]
    shown = fill_warning(fill_state(6003, 272000, lines, "ok", agent=AgentRule("Codex", 5000, CODEX_SOURCE)), lambda role: "")
    assert shown is not None and shown.plain.endswith("(above Codex's auto-compact threshold: Codex compacts before its next request)")
    pi = fill_warning(fill_state(6003, 272000, [ThresholdLine("compaction", "compaction", 5000, "reserve")], "ok"), lambda role: "")
    assert pi is not None and pi.plain.endswith("(above window − reserveTokens: pi compacts after the next turn)")
    over = fill_state(300_000, 272000, lines, "ok", agent=AgentRule("Codex", 5000, CODEX_SOURCE))
    assert "Codex must compact first" in over.message and "OpenClaw" not in over.message


def test_stats_cost_comes_from_the_price_table_and_is_the_timeline_s(tmp_path):
    p = write(tmp_path / "s.jsonl", parallel_calls())
    d = stats(p)
    cost = d["usage"]["active_path"]["cost"]
    # claude-opus-4-6: $5 input, $25 output, $0.50 cache read, $6.25 cache write per million tokens
    expected = (3 * 5 + 480 * 25 + 5000 * 0.5 + 100 * 6.25 + 5 * 5 + 9 * 25 + 5600 * 0.5) / 1e6
    assert abs(cost["total"] - expected) < 1e-9 and cost["calls_by_source"] == {"recorded": 0, "price_table": 2, "unknown": 0}
    t = json.loads(run_cli(["timeline", str(p), "--json"]).stdout)
    assert t["cost"]["total"] == cost["total"] == d["usage"]["all_entries"]["cost"]["total"]
    assert f"cost ${expected:.4f} (price table" in run_cli(["stats", str(p)]).stdout
    r = write(tmp_path / "rollout.jsonl", [  # gpt-5.5: not in the 2026.4.12 catalog, priced by the current release's
        cx("turn_context", {"model": "gpt-5.5"}),
        cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "yo"}]}),
        cx("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 1000, "cached_input_tokens": 0, "output_tokens": 10}}}),
    ])
    c = stats(r)["usage"]["active_path"]["cost"]
    assert c["total"] > 0 and c["calls_by_source"]["price_table"] == 1
    assert c["total"] == json.loads(run_cli(["timeline", str(r), "--json"]).stdout)["cost"]["total"]
