"""OpenClaw 2026.9.6's pruning rules, each beside 2026.4.12's (every test here fails under 2026.4.12's rule), and
the preview / `prune` command following a session's rule set.

The real functions are compared on generated contexts in tests/integration/test_pruning_2026_9_oracle.py.
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest
from conftest import ROOT
from inprocess import run_cli

from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.js.jsjson import js_len
from inspector.rules.openclaw_2026_9_6.pruning.projection import hash_tool_result_text
from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

NEW = rule_set("openclaw-2026.9.6")
OLD = rule_set("openclaw-2026.4.12")
RETIRED = {"mode": "cache-ttl", "keepLastAssistants": 0, "softTrimRatio": 0.9, "softTrim": {"maxChars": 10, "headChars": 1}}


def _lone_surrogate(text: str) -> bool:
    units = text.encode("utf-16-le", "surrogatepass")
    codes = [int.from_bytes(units[i : i + 2], "little") for i in range(0, len(units), 2)]
    for i, c in enumerate(codes):
        if 0xD800 <= c <= 0xDBFF and not (i + 1 < len(codes) and 0xDC00 <= codes[i + 1] <= 0xDFFF):
            return True
        if 0xDC00 <= c <= 0xDFFF and not (i > 0 and 0xD800 <= codes[i - 1] <= 0xDBFF):
            return True
    return False


# ---------------------------------------------------------------------------------------------- settings


def test_retired_settings_are_built_in():
    new = NEW.pruning_settings.compute_effective_settings(RETIRED)
    old = OLD.pruning_settings.compute_effective_settings(RETIRED)
    assert (new.keep_last_assistants, new.soft_trim_ratio, new.soft_trim.max_chars, new.soft_trim.head_chars) == (3, 0.3, 4000, 1500)
    assert (old.keep_last_assistants, old.soft_trim_ratio, old.soft_trim.max_chars) == (0, 0.9, 10)
    resolved = NEW.pruning_settings.resolve_settings({"agents": {"defaults": {"contextPruning": RETIRED}}})
    assert resolved.to_json()["retired_keys"] == ["keepLastAssistants", "softTrimRatio", "softTrim"]
    assert "retired_keys" not in OLD.pruning_settings.resolve_settings({"agents": {"defaults": {"contextPruning": RETIRED}}}).to_json()


def test_only_mode_ttl_tools_and_hard_clear_are_settings():
    assert NEW.pruning_settings.CONFIG_KEYS == ("ttl", "hardClear.enabled", "hardClear.placeholder", "tools.allow", "tools.deny")
    assert len(OLD.pruning_settings.CONFIG_KEYS) == 12
    overrides = NEW.pruning_settings.SettingsOverrides(ttl="1h", soft_trim_ratio=0.5)
    assert overrides.unsupported() == ["softTrimRatio"]
    with pytest.raises(ValueError, match="softTrimRatio"):
        overrides.apply({})
    raw: dict = {}
    assert NEW.pruning_settings.SettingsOverrides(ttl="1h", tools_deny=["exec"], hard_clear_enabled=False).apply(raw) == [
        "ttl", "hardClear.enabled", "tools.deny"]
    assert raw == {"ttl": "1h", "hardClear": {"enabled": False}, "tools": {"deny": ["exec"]}}


def test_the_snippet_holds_only_what_2026_9_accepts():
    settings = NEW.pruning_settings.resolve_settings({"agents": {"defaults": {"contextPruning": RETIRED | {"tools": {"deny": ["x"]}}}}}).settings
    doc = json.loads(NEW.snippet.settings_snippet(settings))["agents"]["defaults"]["contextPruning"]
    assert doc == {"mode": "cache-ttl", "ttl": "5m", "hardClear": {"enabled": True, "placeholder": "[Old tool result content cleared]"},
                   "tools": {"deny": ["x"]}}
    assert json.loads(NEW.snippet.settings_snippet(settings, minimal=True))["agents"]["defaults"]["contextPruning"] == {
        "mode": "cache-ttl", "tools": {"deny": ["x"]}}
    assert "softTrim" in OLD.snippet.settings_snippet(settings)
    again = NEW.pruning_settings.resolve_settings({"agents": {"defaults": {"contextPruning": doc}}})
    assert again.retired == [] and again.settings.to_json() == settings.to_json()


# ---------------------------------------------------------------------------------------------- the pruner


def test_the_soft_trim_cut_is_surrogate_safe():
    text = "a" * 1499 + "😀" + "b" * 3000 + "😀" + "c" * 1499
    msg = {"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": [{"type": "text", "text": text}]}
    new = NEW.pruner.soft_prune_cache_ttl_tool_result(msg)["content"][0]["text"]
    old = OLD.pruner.soft_trim_tool_result(msg, OLD.pruning_settings.ContextPruningSettings())["content"][0]["text"]
    assert not _lone_surrogate(new) and new.startswith("a" * 1499 + "\n...\n")
    assert _lone_surrogate(old)
    assert NEW.pruner.slice_utf16_safe("x😀y", 0, 2) == "x" and NEW.pruner.slice_utf16_safe("x😀y", -2) == "y"


def test_the_size_estimate_is_cache_ttl_message_chars():
    assistant = {"role": "assistant", "content": [{"type": "thinking", "thinking": "t" * 100, "thinkingSignature": "s" * 50},
                                                  {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "/x"}}]}
    other = {"role": "bashExecution", "command": "ls", "output": "x" * 1000}
    malformed = {"role": "toolResult", "content": [{"type": "text", "text": 12345}]}
    chars = NEW.pruner.cache_ttl_message_chars
    assert chars(assistant) == 100 + 50 + len('{"path":"/x"}')
    assert chars(other) == 256
    assert chars(malformed) == js_len('{"type":"text","text":12345}')
    old = OLD.pruner.prune_context_messages([malformed], OLD.pruning_settings.ContextPruningSettings(), context_window_tokens=1000)
    assert old.chars_before == [0]  # 2026.4.12: its estimate would throw on it (counted 0)


def _context(n_results: int, size: int) -> list[dict]:
    msgs: list[dict] = [{"role": "user", "content": "go", "timestamp": 1}]
    for i in range(n_results):
        msgs.append({"role": "assistant", "content": [{"type": "toolCall", "id": f"c{i}", "name": "read", "arguments": {}}], "timestamp": 2})
        msgs.append({"role": "toolResult", "toolCallId": f"c{i}", "toolName": "read", "content": [{"type": "text", "text": "x" * size}],
                     "timestamp": 10 + i})
    msgs += [{"role": "assistant", "content": [{"type": "text", "text": "ok"}], "timestamp": 99}] * 3
    return msgs


def test_the_thresholds_are_built_in():
    settings = NEW.pruning_settings.compute_effective_settings(RETIRED)
    messages = _context(2, 5000)
    new = NEW.pruner.prune_context_messages(messages, settings, context_window_tokens=5000)
    old = OLD.pruner.prune_context_messages(messages, OLD.pruning_settings.compute_effective_settings(RETIRED), context_window_tokens=5000)
    assert new.actions.count("soft_trim") == 2 and new.cutoff_index == len(messages) - 3
    assert old.actions != new.actions


def test_what_was_pruned_stays_pruned():
    messages = _context(3, 5000)
    snapshot = {"prunedToolResults": [{"key": "tool:c0:10", "mode": "hard", "placeholder": "[gone]"}, {"key": "tool:c1:11", "mode": "soft"}],
                "frozenToolResults": []}
    marker = SimpleNamespace(type="custom", id="m", line=9, data={"type": "custom", "customType": "openclaw.cache-ttl", "data": snapshot})
    snap = NEW.pruner.read_projection_snapshot([marker])
    settings = NEW.pruning_settings.compute_effective_settings({"mode": "cache-ttl"})
    result = NEW.pruner.prune_context_messages(messages, settings, context_window_tokens=200_000, projections=snap)
    assert result.replayed == {2: "hard", 4: "soft"} and result.actions == ["keep"] * len(messages)  # under 30 %: no new round
    assert result.replay_messages[2]["content"] == [{"type": "text", "text": "[gone]"}]
    assert result.replay_messages[4]["content"][0]["text"].endswith("of 5000 chars.]")
    assert result.replay_messages[6] is messages[6]
    # a result whose text changed since is not replayed; a reset entry ends the search
    changed = [dict(m) for m in messages]
    changed[2] = changed[2] | {"content": [{"type": "text", "text": "new"}]}
    frozen = snapshot | {"frozenToolResults": [{"key": "tool:c0:10", "sourceHash": hash_tool_result_text(["x" * 5000])}]}
    marker.data["data"] = frozen
    again = NEW.pruner.prune_context_messages(changed, settings, context_window_tokens=200_000,
                                              projections=NEW.pruner.read_projection_snapshot([marker]))
    assert 2 not in again.replayed and 4 in again.replayed
    assert NEW.pruner.read_projection_snapshot([marker, SimpleNamespace(type="reset", data={}, id="r", line=10)]) is None
    assert not hasattr(OLD.pruner, "read_projection_snapshot")


# ---------------------------------------------------------------------------------------------- eligibility, server clearing


@pytest.mark.parametrize(
    "provider,model,api,new,old",
    [
        ("openai", "gpt-5", "openai-responses", True, False),
        ("zai", "glm-4.6", "openai-completions", False, True),
        ("openrouter", "deepseek/deepseek-v3", "openai-completions", True, False),
        ("openrouter", "openrouter/~z-ai/glm", "openai-completions", True, False),
    ],
)
def test_eligibility_by_provider_changed(provider, model, api, new, old):
    assert NEW.ttl.is_cache_ttl_eligible(provider, model, api).eligible is new
    assert OLD.ttl.is_cache_ttl_eligible(provider, model, api).eligible is old


def test_direct_anthropic_api_key_requests_use_server_side_clearing():
    messages = _context(6, 40_000)
    tokens = [NEW.pruner.cache_ttl_message_chars(m) // 4 for m in messages]
    clearing = NEW.ttl.server_tool_clearing(configured_mode="cache-ttl", provider="anthropic", model_api="anthropic-messages",
                                            auth_mode="api_key", context_window_tokens=200_000, tools={"deny": ["exec", "web_*"]},
                                            messages=messages, message_tokens=tokens)
    edit = clearing.edit()
    assert edit == {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 60_000},
                    "keep": {"type": "tool_uses", "value": 3}, "clear_at_least": {"type": "input_tokens", "value": 12_500},
                    "exclude_tools": ["exec"], "clear_tool_inputs": False}
    assert clearing.applies is True and clearing.would_clear and [i for i, _ in clearing.clearable] == [2, 4, 6]
    big = NEW.ttl.server_tool_clearing(configured_mode="cache-ttl", provider="anthropic", model_api="anthropic-messages",
                                       auth_mode="oauth", context_window_tokens=1_000_000)
    assert (big.trigger_tokens, big.clear_at_least_tokens, big.applies) == (300_000, 50_000, False)
    assert NEW.ttl.server_tool_clearing(configured_mode="cache-ttl", provider="amazon-bedrock", model_api="anthropic-messages",
                                        auth_mode="api_key", context_window_tokens=200_000) is None
    assert not hasattr(OLD.ttl, "server_tool_clearing")


# ---------------------------------------------------------------------------------------------- preview and command


def _session(tmp_path, snapshot: dict | None = None):
    b = SessionBuilder(seed=3, start="2026-03-01T10:00:00.000Z", provider="anthropic", model="claude-sonnet-4-5")
    b.header()
    b.user("go")
    for n in range(3):
        b.assistant([b.tool_call("read", {"p": n})])
        b.tool_result(b.last_tool_call_ids[0], "read", f"{n}" * 6000)
    for _ in range(3):
        b.assistant("done")
    data = {"timestamp": b.now_ms, "provider": b.provider, "modelId": b.model}
    b.custom("openclaw.cache-ttl", data | (snapshot or {}))
    b.write(tmp_path / "s.jsonl")
    return tmp_path / "s.jsonl", data["timestamp"]


def _first_key(path) -> str:
    for line in open(path):
        obj = json.loads(line)
        if obj.get("message", {}).get("role") == "toolResult":
            m = obj["message"]
            return f"tool:{m['toolCallId']}:{m['timestamp']}"
    raise AssertionError


def test_the_preview_follows_the_rule_set(tmp_path):
    path, _ = _session(tmp_path)
    snap = {"prunedToolResults": [{"key": _first_key(path), "mode": "hard", "placeholder": "[cleared before]"}], "frozenToolResults": []}
    path, touch = _session(tmp_path, snap)
    session = open_session(path)
    opts = PreviewOptions(config={"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}, encoding=None, context_window=200_000,
                          now_ms=touch + 1000)
    new = build_preview(session, opts, rules=NEW)
    data = new.to_json()
    assert data["openclaw_version"] == "2026.9.6" and not new.gate.open
    assert data["projections"]["replayed"] == {"2": "hard"}
    row = next(r for r in data["messages"] if r["index"] == 2)
    assert row["action"] == "already_hard_cleared" and row["content_after"] == [{"type": "text", "text": "[cleared before]"}]
    assert data["server_tool_clearing"]["applies"] is None  # auth not in the config
    old = build_preview(session, opts).to_json()
    assert "projections" not in old and next(r for r in old["messages"] if r["index"] == 2)["action"] == "keep"


def test_prune_command_under_2026_9(tmp_path):
    path, _ = _session(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = run_cli(["prune", str(path), "--rules", "openclaw-2026.9.6", "--keep-last-assistants", "2"], env=env)
    assert proc.returncode == 2 and "keepLastAssistants: not a setting in OpenClaw 2026.9.6" in proc.stderr
    proc = run_cli(["prune", str(path), "--rules", "openclaw-2026.9.6", "--json"], env=env)
    data = json.loads(proc.stdout)
    assert data["rules"]["id"] == "openclaw-2026.9.6" and data["server_tool_clearing"]["edit"]["type"] == "clear_tool_uses_20250919"
    text = run_cli(["prune", str(path), "--rules", "openclaw-2026.9.6"], env=env).stdout
    assert "server-side clearing (clear_tool_uses_20250919)" in text and "built in: the last 3 assistants kept" in text
    assert run_cli(["prune", str(path), "--rules", "openclaw-2026.4.12", "--keep-last-assistants", "2"], env=env).returncode == 0
