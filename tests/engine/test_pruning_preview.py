"""The preview on real session files and the `prune` command's JSON contract."""

from __future__ import annotations

import json
import os

import orjson
import pytest

from inspector.cli import main
from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.js.timeutil import iso_from_ms, ms_from_iso
from inspector.rules.openclaw_2026_4_12.pruning.settings import SettingsOverrides
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

START = "2026-03-01T10:00:00.000Z"
CONFIG = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}


def build(tmp_path, *, touch=True, results=6, size=3000, name="s.jsonl", tail_text=None):
    """A session with `results` large `read` results, then a final answer and (optionally) a cache touch."""
    b = SessionBuilder(seed=11, start=START)
    b.header()
    b.user("read the files")
    for i in range(results):
        b.assistant([b.tool_call("read", {"path": f"f{i}.txt"})])
        b.tool_result(b.last_tool_call_ids[0], "read", tail_text or ("line %d\n" % i) * size, details={"path": f"f{i}.txt"})
    b.assistant("done")
    touch_ms = b.now_ms
    if touch:
        b.cache_ttl()
    return b.write(tmp_path / name), touch_ms


def preview(path, **kw):
    kw.setdefault("config", CONFIG)
    kw.setdefault("context_window", 30_000)
    kw.setdefault("encoding", None)
    return build_preview(open_session(path), PreviewOptions(**kw))


def test_gate_open_after_ttl_prunes_and_reports(tmp_path):
    path, touch_ms = build(tmp_path)
    p = preview(path, now_ms=touch_ms + 300_000)
    data = p.to_json()
    assert data["gate"]["open"] and data["gate"]["source"] == "cache_ttl_entry"
    assert data["gate"]["last_cache_touch_at"] == iso_from_ms(touch_ms)
    assert data["applied"] and data["would_openclaw_prune"]
    assert data["cutoff_index"] == 9 and data["first_user_index"] == 0
    actions = [r["action"] for r in data["messages"]]
    assert actions[2] == "soft_trim" and actions[10] == "keep"
    assert data["messages"][2]["content_after"][0]["text"].endswith("of 21000 chars.]")
    assert data["messages"][10]["protected"] == "keep_last_assistants"
    assert data["messages"][2]["cache_expired"] is True
    t = data["totals"]
    assert t["chars_before"] == sum(r["chars_before"] for r in data["messages"])
    assert t["chars_after"] == sum(r["chars_after"] for r in data["messages"])
    assert t["ratio_before"] == t["chars_before"] / 120_000
    assert t["tokens"]["pi"]["saved"] > 0
    assert t["cache_write_avoided"]["usd_per_token"] == pytest.approx(3.75e-6)


def test_gate_closed_before_ttl_keeps_everything_unless_forced(tmp_path):
    path, touch_ms = build(tmp_path)
    closed = preview(path, now_ms=touch_ms + 299_999).to_json()
    assert not closed["gate"]["open"] and not closed["applied"] and closed["stage"] == "gate_closed"
    assert {r["action"] for r in closed["messages"]} == {"keep"}
    assert closed["totals"]["chars_after"] == closed["totals"]["chars_before"]
    forced = preview(path, now_ms=touch_ms + 299_999, force=True).to_json()
    assert forced["applied"] and forced["gate"]["forced"] and not forced["gate"]["open"]
    assert forced["messages"][2]["action"] == "soft_trim"
    assert not forced["would_openclaw_prune"]


def test_no_touch_entry_closes_the_gate_and_projects_if_enabled(tmp_path):
    path, _ = build(tmp_path, touch=False)
    session = open_session(path)
    last_assistant = [e for e in session.entries if e.role == "assistant"][-1]
    written = ms_from_iso(session.load_entry_object(last_assistant)["timestamp"])
    p = build_preview(session, PreviewOptions(config=CONFIG, context_window=30_000, encoding=None, now_ms=written + 300_000))
    data = p.to_json()
    g = data["gate"]
    assert g["open"] is False and g["last_cache_touch_at"] is None and g["source"] == "none" and g["scenario"] == "now"
    assert "no openclaw.cache-ttl entry" in g["reason"] and "prunes nothing" in g["reason"]
    assert not data["applied"] and data["stage"] == "gate_closed" and not data["would_openclaw_prune"]
    assert {r["action"] for r in data["messages"]} == {"keep"}
    assert {r["cache_expired"] for r in data["messages"]} == {None}  # no reference time at all
    proj = data["if_enabled"]
    assert proj is not None and proj.keys() == data.keys() and proj["if_enabled"] is None
    pg = proj["gate"]
    assert pg["open"] and pg["source"] == "last_assistant_message" and pg["scenario"] == "if_enabled"
    assert pg["reference_entry_id"] == last_assistant.id and pg["last_cache_touch_at"] == iso_from_ms(written)
    assert pg["reason"].startswith("projection:")
    assert proj["applied"] and proj["scenario"] == "if_enabled" and proj["would_openclaw_prune"]
    assert proj["messages"][2]["action"] == "soft_trim" and proj["messages"][2]["cache_expired"] is True
    assert proj["totals"]["chars_after"] < proj["totals"]["chars_before"] == data["totals"]["chars_before"]


def test_force_applies_to_both_scenarios(tmp_path):
    path, _ = build(tmp_path, touch=False)
    data = preview(path, now_ms=0, force=True).to_json()
    assert data["applied"] and data["gate"]["forced"] and data["messages"][2]["action"] == "soft_trim"
    assert data["if_enabled"]["applied"] and data["if_enabled"]["gate"]["forced"]


def test_a_session_with_a_touch_has_no_projection(tmp_path):
    path, touch_ms = build(tmp_path)
    assert preview(path, now_ms=touch_ms + 1).to_json()["if_enabled"] is None


def test_touch_for_another_model_is_ignored(tmp_path):
    b = SessionBuilder(seed=3, start=START)
    b.header()
    b.user("hi")
    b.assistant("hello")
    b.cache_ttl(provider="openai", model_id="gpt-5")
    path = b.write(tmp_path / "s.jsonl")
    p = preview(path, now_ms=b.now_ms + 10)
    assert p.gate.source == "none" and not p.gate.open
    assert p.if_enabled is not None and p.if_enabled.gate.source == "last_assistant_message"


def test_a_trailing_delivery_mirror_does_not_change_the_model(tmp_path):
    """pi's context model would be openclaw/delivery-mirror; the touch and eligibility go by the real model."""
    _path, _touch_ms = build(tmp_path)
    b = SessionBuilder(seed=11, start=START)
    b.header()
    b.user("hi")
    b.assistant("hello")
    b.cache_ttl()
    b.delivery_mirror("hello")
    session = open_session(b.write(tmp_path / "m.jsonl"))
    assert session.context().model["provider"] == "openclaw"
    data = build_preview(session, PreviewOptions(config=CONFIG, encoding=None, now_ms=b.now_ms + 600_000)).to_json()
    assert data["pruning_model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5", "source": "last_assistant",
                                     "api": "anthropic-messages"}
    assert data["gate"]["source"] == "cache_ttl_entry" and data["pruning"]["eligibility"]["eligible"]


def test_disabled_config_and_ineligible_provider_are_reported(tmp_path):
    b = SessionBuilder(seed=5, start=START, provider="openai", model="gpt-5", api="openai-responses")
    b.header()
    b.user("hi")
    b.assistant("hello")
    b.cache_ttl()
    path = b.write(tmp_path / "s.jsonl")
    data = preview(path, config={}, now_ms=b.now_ms + 600_000).to_json()
    assert data["pruning"]["enabled"] is False and data["pruning"]["configured_mode"] is None
    assert data["pruning"]["eligibility"]["eligible"] is False
    assert data["gate"]["open"] and not data["would_openclaw_prune"]


def test_anthropic_auto_default_ttl_one_hour(tmp_path):
    path, touch_ms = build(tmp_path)
    config = {"auth": {"profiles": {"a": {"provider": "anthropic", "mode": "oauth"}}}, "agents": {"defaults": {}}}
    data = preview(path, config=config, now_ms=touch_ms + 300_000).to_json()
    assert data["pruning"]["anthropic_auto_default"]["applies"]
    assert data["settings"]["ttlMs"] == 3_600_000 and data["pruning"]["ttl_source"] == "anthropic-default"
    assert not data["gate"]["open"]


def test_flags_override_config(tmp_path):
    path, touch_ms = build(tmp_path)
    p = preview(path, now_ms=touch_ms + 300_000, overrides=SettingsOverrides(tools_deny=["re*"]))
    data = p.to_json()
    assert data["settings"]["tools"] == {"deny": ["re*"]}
    assert {r["action"] for r in data["messages"]} == {"keep"}
    assert data["messages"][2]["protected"] == "tool_not_prunable"


def test_tool_guard_runs_on_the_pruned_context(tmp_path):
    path, touch_ms = build(tmp_path)
    data = preview(path, now_ms=touch_ms + 300_000).to_json()
    guard = data["tool_guard"]
    assert guard["applies_to"] == "pruned"
    assert [t["index"] for t in guard["truncated"]] == [10, 12]  # the protected tail is still oversized
    assert data["messages"][10]["tool_guard"]["suffix"].startswith("[... ")


def test_preview_never_writes_the_file(tmp_path):
    path, touch_ms = build(tmp_path)
    before = path.read_bytes()
    st = os.stat(path)
    preview(path, now_ms=touch_ms + 300_000, encoding="cl100k_base")
    main(["prune", str(path), "--json", "--context-window", "30000", "--no-tiktoken", "--config", str(tmp_path / "none.json")])
    assert path.read_bytes() == before
    assert os.stat(path).st_mtime_ns == st.st_mtime_ns


CONTRACT_TOP = {"gate", "settings", "context_window_tokens", "char_window", "cutoff_index", "first_user_index", "totals", "messages"}
CONTRACT_GATE = {"open", "reason", "source", "last_cache_touch_at", "now", "ttl_ms"}
CONTRACT_TOTALS = {"chars_before", "chars_after", "ratio_before", "ratio_after"}
CONTRACT_ROW = {"index", "entry_id", "line", "role", "tool_name", "action", "chars_before", "chars_after", "content_after"}


def run_cli(capsysbinary, *argv):
    code = main(["prune", *map(str, argv)])
    out = capsysbinary.readouterr().out
    return code, out


def test_cli_json_contract(tmp_path, capsysbinary):
    path, touch_ms = build(tmp_path)
    cfg = tmp_path / "openclaw.json"
    cfg.write_text("{ agents: { defaults: { contextPruning: { mode: 'cache-ttl', ttl: '10m', } } } } // json5\n")
    now = iso_from_ms(touch_ms + 600_000)
    code, out = run_cli(capsysbinary, path, "--json", "--no-tiktoken", "--config", cfg, "--now", now,
                        "--context-window", "30000", "--keep-last-assistants", "1", "--tools-allow", "read",
                        "--soft-trim-max-chars", "5000", "--no-hard-clear")
    assert code == 0
    data = orjson.loads(out)
    assert CONTRACT_TOP <= data.keys()
    assert CONTRACT_GATE <= data["gate"].keys() and data["gate"]["open"] and data["gate"]["ttl_ms"] == 600_000
    assert data["gate"]["now"] == now
    assert CONTRACT_TOTALS <= data["totals"].keys()
    assert all(CONTRACT_ROW <= r.keys() for r in data["messages"])
    s = data["settings"]
    assert s["keepLastAssistants"] == 1 and s["tools"] == {"allow": ["read"]}
    assert s["softTrim"]["maxChars"] == 5000 and s["hardClear"]["enabled"] is False
    assert data["context_window_tokens"] == 30_000 and data["char_window"] == 120_000
    assert data["cutoff_index"] == 13
    kept = [r for r in data["messages"] if r["action"] == "keep"]
    assert all(r["content_after"] is None for r in kept)


def test_cli_human_output_and_errors(tmp_path, capsys):
    path, _touch_ms = build(tmp_path, results=2)
    assert main(["prune", str(path), "--no-tiktoken", "--context-window", "30000", "--force",
                 "--config", str(tmp_path / "none.json")]) == 0
    out = capsys.readouterr().out
    assert "gate:" in out and "Tool results" in out
    for bad in (["--now", "yesterday"], ["--ttl", "5 minutes"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["prune", str(path), *bad])
        assert exit_info.value.code == 2
    assert main(["prune", str(tmp_path / "missing.jsonl")]) == 2


def test_cli_json_with_a_lone_surrogate_is_still_valid_json(tmp_path, capsysbinary):
    text = "a" * 1499 + "😀" + "b" * 5000
    path, _touch_ms = build(tmp_path, results=4, tail_text=text)
    code, out = run_cli(capsysbinary, path, "--json", "--no-tiktoken", "--force", "--context-window", "10000",
                        "--config", tmp_path / "none.json")
    assert code == 0
    data = json.loads(out)
    trimmed = data["messages"][2]["content_after"][0]["text"]
    assert trimmed.startswith("a" * 1499 + "\ud83d\n...\n")


@pytest.mark.corpus
def test_corpus_session_preview_is_consistent():
    from conftest import corpus_file

    path = corpus_file("pi", "large-session.v1.jsonl")
    before = path.read_bytes()
    p = preview(path, config={}, context_window=None, now_ms=ms_from_iso("2026-06-01T00:00:00Z"))
    data = p.to_json()
    assert data["gate"]["source"] == "none" and not data["applied"]  # a pi session: never touched
    data = data["if_enabled"]
    assert data["gate"]["source"] == "last_assistant_message" and data["applied"]
    assert data["totals"]["chars_after"] == sum(r["chars_after"] for r in data["messages"])
    assert data["totals"]["ratio_after"] < data["totals"]["ratio_before"]
    changed = [r for r in data["messages"] if r["action"] != "keep"]
    assert changed and all(r["role"] == "toolResult" and r["index"] < data["cutoff_index"] for r in changed)
    assert path.read_bytes() == before


def test_preview_cache_gives_the_same_preview_and_reads_each_message_once(tmp_path, monkeypatch):
    """The settings panel re-previews on every edit; with a cache, messages are read and tiktoken-counted once."""
    from inspector.figures.pruning.preview import PreviewCache, PreviewOptions, build_preview
    from inspector.rules.openclaw_2026_4_12.pruning.settings import SettingsOverrides
    from inspector.samples.fixtures import SessionBuilder
    from inspector.session.session import Session, open_session

    b = SessionBuilder(seed=3)
    b.header(cwd="/w")
    for i in range(6):
        b.user(f"step {i}")
        b.assistant([b.tool_call("read", {"path": f"f{i}.py"})])
        b.tool_result(b.last_tool_call_ids[0], "read", ("line of code\n" * 4000))
    b.assistant("done")
    path = tmp_path / "s.jsonl"
    b.write(path)
    session = open_session(path)
    reads = []
    original = Session.load_message
    monkeypatch.setattr(Session, "load_message", lambda self, e: reads.append(e.index) or original(self, e))
    cache = PreviewCache()
    opts = dict(now_ms=1.9e12, force=True, context_window=20_000)
    first = build_preview(session, PreviewOptions(cache=cache, **opts)).to_json()
    n = len(reads)
    second = build_preview(
        session, PreviewOptions(cache=cache, overrides=SettingsOverrides(soft_trim_head_chars=500), **opts)
    ).to_json()
    assert len(reads) == n, "the second preview must not read the file again"
    assert first == build_preview(session, PreviewOptions(**opts)).to_json()
    assert second == build_preview(session, PreviewOptions(overrides=SettingsOverrides(soft_trim_head_chars=500), **opts)).to_json()
    assert first["messages"] != second["messages"]  # the edit changed what is cut
