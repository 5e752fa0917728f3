"""Session fixtures for issue 11, each with its expected numbers worked out by hand from OpenClaw 2026.4.12's code.

Every fixture is a real session file written by `SessionBuilder`, read back by the reader and previewed by
`build_preview` (or `session-inspector prune --json`). The docstrings show the arithmetic; the code they follow is
quoted where it decides.
"""

from __future__ import annotations

import json

import orjson

from inspector.cli import main
from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.js.timeutil import iso_from_ms, ms_from_iso
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

START = "2026-03-01T10:00:00.000Z"
ENABLED = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}


def preview_json(path, **kw):
    kw.setdefault("config", ENABLED)
    kw.setdefault("encoding", None)
    return build_preview(open_session(path), PreviewOptions(**kw)).to_json()


# --------------------------------------------------------------------------------------------- 1. no touch


def never_touched(tmp_path):
    """user "go" + 3 x (assistant call read {"p":1}, 6000-char result) + assistant "done"; no cache-ttl entry."""
    b = SessionBuilder(seed=101, start=START)
    b.header()
    b.user("go")
    for i in range(3):
        b.assistant([b.tool_call("read", {"p": i})])
        b.tool_result(b.last_tool_call_ids[0], "read", "x" * 6000)
    b.assistant("done")
    return b.write(tmp_path / "never.jsonl"), b


def test_no_touch_gate_is_closed_and_if_enabled_projects_the_first_touch(tmp_path):
    """Window 2,500 tokens -> charWindow 10,000; defaults (keepLastAssistants 3, softTrim 4000/1500/1500).

    chars: user "go" 2; each call `{"p":0}` 7; each result 6000; "done" 4 -> 2 + 3*7 + 3*6000 + 4 = 18,027.
    OpenClaw (`extension.ts`): lastCacheTouchAt = readLastCacheTtlTimestamp(...) = null, so
    `if (!lastTouch || ttlMs <= 0) return;` -> no pruning, whatever the time: gate open false, touch null.

    if_enabled: first touch assumed at the last assistant entry ("done"), now = that + 5 min -> open (>= ttl).
    cutoff = the 3rd assistant from the end = index 3 (messages: 0 user, 1 call, 2 result, 3 call, 4 result,
    5 call, 6 result, 7 done); first user index 0. ratio 18,027 / 10,000 = 1.80 >= 0.3: soft trim results in
    [0, 3): only index 2. rawLen 6000 > 4000 -> head 1500 + "\\n...\\n" (5) + tail 1500 + note
    "\\n\\n[Tool result trimmed: kept first 1500 chars and last 1500 chars of 6000 chars.]" (2 + 79 = 81)
    = 3,086 chars; total 18,027 - 6000 + 3086 = 15,113; 1.51 >= hardClearRatio 0.5; prunable chars 3,086 <
    minPrunableToolChars 50,000 -> stop: below_min_prunable_tool_chars, chars_after 15,113.
    """
    path, _b = never_touched(tmp_path)
    session = open_session(path)
    done = session.entries[-1]
    done_ms = ms_from_iso(session.load_entry_object(done)["timestamp"])  # when it was written
    data = preview_json(path, context_window=2_500, now_ms=done_ms + 300_000)
    g = data["gate"]
    assert (g["open"], g["last_cache_touch_at"], g["source"], g["touch"]) == (False, None, "none", None)
    assert "lastCacheTouchAt null" in g["reason"]
    assert data["applied"] is False and data["stage"] == "gate_closed" and data["would_openclaw_prune"] is False
    assert data["totals"]["chars_before"] == data["totals"]["chars_after"] == 18_027

    p = data["if_enabled"]
    pg = p["gate"]
    assert (pg["open"], pg["source"], pg["reference_entry_id"]) == (True, "last_assistant_message", done.id)
    assert pg["last_cache_touch_at"] == iso_from_ms(done_ms) and pg["elapsed_ms"] == 300_000
    assert (p["cutoff_index"], p["first_user_index"]) == (3, 0)
    assert p["stage"] == "below_min_prunable_tool_chars" and p["prunable_indexes"] == [2]
    assert [r["action"] for r in p["messages"]] == ["keep", "keep", "soft_trim"] + ["keep"] * 5
    assert p["messages"][2]["chars_after"] == 3_086 and p["prunable_tool_chars"] == 3_086
    assert p["totals"]["chars_before"] == 18_027 and p["totals"]["chars_after"] == 15_113
    assert p["messages"][4]["protected"] == "keep_last_assistants"


def test_no_touch_projection_one_millisecond_early_is_still_warm(tmp_path):
    """`Date.now() - lastTouch < ttlMs` -> return: at done + 299,999 ms the projected gate is closed."""
    path, _ = never_touched(tmp_path)
    session = open_session(path)
    done_ms = ms_from_iso(session.load_entry_object(session.entries[-1])["timestamp"])
    p = preview_json(path, context_window=2_500, now_ms=done_ms + 299_999)["if_enabled"]
    assert p["gate"]["open"] is False and p["applied"] is False and "still warm" in p["gate"]["reason"]


def test_cli_no_touch_json(tmp_path, capsysbinary):
    path, _ = never_touched(tmp_path)
    session = open_session(path)
    done_iso = session.load_entry_object(session.entries[-1])["timestamp"]
    now = iso_from_ms(ms_from_iso(done_iso) + 3_600_000)
    cfg = tmp_path / "openclaw.json"
    cfg.write_text(json.dumps(ENABLED))
    assert main(["prune", str(path), "--json", "--no-tiktoken", "--config", str(cfg), "--now", now, "--context-window", "2500"]) == 0
    data = orjson.loads(capsysbinary.readouterr().out)
    assert data["gate"]["open"] is False and data["gate"]["last_cache_touch_at"] is None
    assert data["if_enabled"]["gate"]["open"] is True and data["if_enabled"]["gate"]["now"] == now
    assert data["openclaw_version"].startswith("2026.4.12")


# ------------------------------------------------------------------------------------- 2. thinking blocks


def thinking_session(tmp_path, model: str):
    """Assistant thinking (+ signatures) and tool-call arguments; the 2nd assistant is thinking only.

    0 user "hi"                                                        2
    1 assistant [thinking "t"*100 sig "s"*20, toolCall {"path":"a.txt"}]   100 + 20 + 16 = 136
    2 toolResult "r"*50                                                50
    3 assistant [thinking "u"*9 sig "v"*0]                             9  (the signature "" counts 0)
    4 user "more"                                                      4
    5 assistant [thinking "w"*40 sig "", text "ok"]                    40 + 2 = 42
    """
    b = SessionBuilder(seed=202, start=START, model=model)
    b.header()
    b.user("hi")
    b.assistant([b.thinking("t" * 100, signature="s" * 20), b.tool_call("read", {"path": "a.txt"})])
    b.tool_result(b.last_tool_call_ids[0], "read", "r" * 50)
    b.assistant([b.thinking("u" * 9, signature="")])
    b.user("more")
    b.assistant([b.thinking("w" * 40, signature=""), b.text_block("ok")])
    b.cache_ttl()
    return b.write(tmp_path / f"{model}.jsonl")


def test_drop_thinking_blocks_as_pinned_thinking_ts(tmp_path):
    """claude-3-7-sonnet on anthropic: the Anthropic plugin's replay policy sets dropThinkingBlocks
    (`claude` in the id, not preserved: no opus-4/sonnet-4/haiku-4, no claude-5+).

    Kept: 2 + 136 + 50 + 9 + 4 + 42 = 243.
    Dropped (every assistant with array content but the latest, index 5): index 1 loses 120 -> 16;
    index 3 loses its only block and gets `{type: "text", text: ""}` -> 0 (newer OpenClaw writes
    "[assistant reasoning omitted]", 29 chars: the issue's 29-character difference); index 5 keeps 42.
    Total 2 + 16 + 50 + 0 + 4 + 42 = 114.
    """
    path = thinking_session(tmp_path, "claude-3-7-sonnet")
    data = preview_json(path, context_window=50_000)
    assert data["drop_thinking"]["drop"] is True and data["drop_thinking"]["source"] == "transcript_policy"
    assert [r["chars_before"] for r in data["messages"]] == [2, 16, 50, 0, 4, 42]
    assert data["totals"]["chars_before"] == 114
    forced_off = preview_json(path, context_window=50_000, drop_thinking_for_estimate=False)
    assert [r["chars_before"] for r in forced_off["messages"]] == [2, 136, 50, 9, 4, 42]
    assert forced_off["totals"]["chars_before"] == 243 and forced_off["drop_thinking"]["source"] == "flag"


def test_modern_claude_keeps_thinking_in_the_estimate(tmp_path):
    """claude-sonnet-4-5: shouldPreserveThinkingBlocks ("sonnet-4") -> dropThinkingBlocks false -> 243."""
    path = thinking_session(tmp_path, "claude-sonnet-4-5")
    data = preview_json(path, context_window=50_000)
    assert data["drop_thinking"]["drop"] is False and data["totals"]["chars_before"] == 243


# -------------------------------------------------------------------------- 3. soft trim, images, CJK, globs


def test_soft_trim_image_marker_cjk_and_tool_globs(tmp_path):
    """Window 1,000 tokens -> 4,000 chars; softTrim maxChars 100 head 20 tail 10; keepLastAssistants 1;
    tools deny ["ex*"], allow ["*"]; hardClear off.

    0 user "漢字" (2 CJK: 2 - 0 + 3*2 = 8)                                          8
    1 assistant call read {}                                                       2
    2 toolResult read [text "a"*150, image]: 150 + 8000 = 8150 -> soft trim: parts "a"*150 and
      "[image removed during context pruning]" (38); rawLen 150 + 38 + 1 = 189 > 100 -> head 20 "a"*20,
      tail 10 "ntext pruning]"[-10:] = "t pruning]", text "a"*20 + "\\n...\\n" + "t pruning]" + note
      "\\n\\n[Tool result trimmed: kept first 20 chars and last 10 chars of 189 chars.]" (2 + 74): 20+5+10+76 = 111
    3 assistant call exec {}                                                       2
    4 toolResult exec "b"*500: denied by "ex*" -> kept                             500
    5 assistant "ok"                                                               2
    Total 8 + 2 + 8150 + 2 + 500 + 2 = 8,664 (2.17 >= 0.3); after 8,664 - 8,150 + 111 = 625 (0.156 < 0.5: done).
    """
    b = SessionBuilder(seed=303, start=START)
    b.header()
    b.user("漢字")
    b.assistant([b.tool_call("read", {})])
    b.tool_result(b.last_tool_call_ids[0], "read", [b.text_block("a" * 150), b.image()])
    b.assistant([b.tool_call("exec", {})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "b" * 500)
    b.assistant("ok")
    b.cache_ttl()
    touch_ms = b.now_ms
    config = {"agents": {"defaults": {"contextPruning": {
        "mode": "cache-ttl", "keepLastAssistants": 1, "softTrim": {"maxChars": 100, "headChars": 20, "tailChars": 10},
        "tools": {"deny": ["ex*"], "allow": ["*"]}, "hardClear": {"enabled": False}}}}}
    data = preview_json(b.write(tmp_path / "s.jsonl"), config=config, context_window=1_000, now_ms=touch_ms + 300_000)
    rows = data["messages"]
    assert [r["chars_before"] for r in rows] == [8, 2, 8150, 2, 500, 2]
    assert rows[2]["action"] == "soft_trim" and rows[2]["chars_after"] == 111
    text = rows[2]["content_after"][0]["text"]
    assert text == "a" * 20 + "\n...\n" + "t pruning]" + "\n\n[Tool result trimmed: kept first 20 chars and last 10 chars of 189 chars.]"
    assert rows[4]["action"] == "keep" and rows[4]["protected"] == "tool_not_prunable"
    assert data["totals"]["chars_before"] == 8_664 and data["totals"]["chars_after"] == 625
    assert data["stage"] == "below_hard_clear_ratio"  # 625 / 4,000 = 0.156 < 0.5, checked before hardClear.enabled


# ------------------------------------------------------------------ 4. cutoff, first user, min chars, hard clear


def test_first_user_protection_cutoff_and_hard_clear_oldest_first(tmp_path):
    """Window 1,000 tokens (4,000 chars); softTrim maxChars 10,000 (nothing trims); keepLastAssistants 1;
    minPrunableToolChars 1,000; hardClearRatio 0.5.

    0 toolResult read "p"*900 (before the first user: protected)     900
    1 user "u"                                                        1
    2 assistant call read {}                                          2
    3 toolResult read "q"*1200                                        1200
    4 assistant call read {}                                          2
    5 toolResult read "r"*1200                                        1200
    6 assistant call read {} (the last assistant: cutoff index 6)     2
    7 toolResult read "s"*900 (after the cutoff: protected)           900
    Total 4,207 (1.05). Prunable [3, 5] = 2,400 >= 1,000. Hard clear oldest first while ratio >= 0.5:
    clear 3: 4,207 - 1,200 + 33 = 3,040 (0.76); clear 5: 3,040 - 1,200 + 33 = 1,873 (0.47) -> stop.
    """
    b = SessionBuilder(seed=404, start=START)
    b.header()
    pre = b.tool_call("read", {})
    b.tool_result(pre["id"], "read", "p" * 900)
    b.user("u")
    for text in ("q" * 1200, "r" * 1200):
        b.assistant([b.tool_call("read", {})])
        b.tool_result(b.last_tool_call_ids[0], "read", text)
    b.assistant([b.tool_call("read", {})])
    b.tool_result(b.last_tool_call_ids[0], "read", "s" * 900)
    b.cache_ttl()
    config = {"agents": {"defaults": {"contextPruning": {
        "mode": "cache-ttl", "keepLastAssistants": 1, "minPrunableToolChars": 1000, "softTrim": {"maxChars": 10000}}}}}
    data = preview_json(b.write(tmp_path / "s.jsonl"), config=config, context_window=1_000, now_ms=b.now_ms + 300_000)
    rows = data["messages"]
    assert [r["chars_before"] for r in rows] == [900, 1, 2, 1200, 2, 1200, 2, 900]
    assert (data["cutoff_index"], data["first_user_index"]) == (6, 1)
    assert [r["action"] for r in rows] == ["keep", "keep", "keep", "hard_clear", "keep", "hard_clear", "keep", "keep"]
    assert rows[0]["protected"] == "before_first_user" and rows[7]["protected"] == "keep_last_assistants"
    assert data["prunable_tool_chars"] == 2_400 and data["stage"] == "hard_cleared"
    assert data["totals"]["chars_before"] == 4_207 and data["totals"]["chars_after"] == 1_873
    assert rows[3]["content_after"] == [{"type": "text", "text": "[Old tool result content cleared]"}]


def test_min_prunable_tool_chars_is_strictly_below(tmp_path):
    """Same session with minPrunableToolChars 2,401: 2,400 < 2,401 -> no hard clear at all."""
    b = SessionBuilder(seed=404, start=START)
    b.header()
    b.user("u")
    for text in ("q" * 1200, "r" * 1200):
        b.assistant([b.tool_call("read", {})])
        b.tool_result(b.last_tool_call_ids[0], "read", text)
    b.assistant([b.tool_call("read", {})])
    b.tool_result(b.last_tool_call_ids[0], "read", "s" * 900)
    b.cache_ttl()
    config = {"agents": {"defaults": {"contextPruning": {
        "mode": "cache-ttl", "keepLastAssistants": 1, "minPrunableToolChars": 2401, "softTrim": {"maxChars": 10000}}}}}
    data = preview_json(b.write(tmp_path / "s.jsonl"), config=config, context_window=1_000, now_ms=b.now_ms + 300_000)
    assert data["stage"] == "below_min_prunable_tool_chars" and data["prunable_tool_chars"] == 2_400
    assert {r["action"] for r in data["messages"]} == {"keep"}


# ------------------------------------------------------------------------------ 5. what OpenClaw throws on


def test_a_result_openclaw_cannot_estimate_leaves_the_context_unpruned(tmp_path):
    """A text block whose `text` is a number: estimateStringChars(5) throws (`text.match` is not a function);
    pi's extension runner catches it and the request goes out unpruned: stage estimate_threw, nothing changes."""
    b = SessionBuilder(seed=505, start=START)
    b.header()
    b.user("u" * 3000)
    b.assistant([b.tool_call("read", {})])
    b.entry("message", {"message": {"role": "toolResult", "toolCallId": b.last_tool_call_ids[0], "toolName": "read",
                                    "content": [{"type": "text", "text": 5}], "isError": False, "timestamp": b.now_ms}})
    b.assistant("ok")
    b.cache_ttl()
    config = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "keepLastAssistants": 1}}}}
    data = preview_json(b.write(tmp_path / "s.jsonl"), config=config, context_window=1_000, now_ms=b.now_ms + 300_000)
    assert data["gate"]["open"] and data["stage"] == "estimate_threw" and data["estimate_error"].startswith("message 2")
    assert {r["action"] for r in data["messages"]} == {"keep"} and not data["would_openclaw_prune"]
