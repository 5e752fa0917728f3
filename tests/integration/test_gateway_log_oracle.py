"""A Gateway log written by OpenClaw 2026.9.6's own logger (its file transport, rotation and message formatters),
read back by `inspector.host.gateway_log`; and the default rolling paths it resolves for profiles. Skips, naming
what is missing, without the oracle (`make oracle`). The logger writes only to the test's own directory."""

from __future__ import annotations

from pathlib import Path

from gateway_log_support import compaction_end, compaction_start, overflow_diag
from oracle.openclaw_2026_9 import HERE, openclaw_2026_9  # noqa: F401

from inspector.host.gateway_log import gateway_log_files, read_gateway_log
from inspector.host.gateway_log.locate import profile_segment

KEY = "agent:main:main"
SID = "0f6c2d5e-real-log"
PRECHECK = {
    "result": {
        "route": "compact_only", "estimatedPromptTokens": 152300, "pressureSource": "estimate", "promptBudgetBeforeReserve": 150000,
        "overflowTokens": 2300, "toolResultReducibleChars": 0, "effectiveReserveTokens": 20000,
    },
    "provider": "anthropic", "modelId": "claude-sonnet-4-5", "messageCount": 40, "contextTokenBudget": 200000,
    "reserveTokens": 20000, "sessionFile": "/home/u/.openclaw/agents/main/sessions/a b.jsonl",
}
LOOP = {"toolName": "exec", "level": "critical", "action": "block", "detector": "generic_repeat", "count": 20,
        "message": 'CRITICAL: Called exec with "identical" outcomes 20 times.'}
PROFILES = ["default", "dev", "My_Work-1", "é"]


def test_a_real_log_read_back(openclaw_2026_9, tmp_path):  # noqa: F811
    active = tmp_path / "logs" / "gw.log"
    events = [
        {"kind": "precheck", "params": PRECHECK},
        {"kind": "text", "level": "warn", "text": overflow_diag(KEY)},
        {"kind": "text", "level": "debug", "text": compaction_start(KEY)},
        {"kind": "text", "level": "debug", "text": compaction_end(KEY)},
        {"kind": "text", "level": "info", "text": f"[compaction] skipping \u2014 no real conversation messages (sessionKey={KEY})"},
        {"kind": "loop", "params": LOOP},
        {"kind": "precheck", "params": {**PRECHECK, "result": {**PRECHECK["result"], "route": "fits", "estimatedPromptTokens": 9}}},
    ]
    payload = {"file": str(active), "maxFileBytes": 2500, "key": KEY, "sessionId": SID, "events": events, "profiles": PROFILES}
    out = openclaw_2026_9.run_script(HERE / "oc_2026_9_gateway_log.mjs", payload)
    files = gateway_log_files({"logging": {"file": str(active)}})
    assert len(files) > 2 and files[-1] == active  # the real transport rotated into gw.1.log, gw.2.log, ...
    log = read_gateway_log(files, KEY, SID)
    assert log.diagnostics == []
    assert [e.kind for e in log.events] == [
        "overflow_precheck", "overflow", "compaction_attempt", "compaction_result", "compaction_skipped", "loop_abort", "overflow_precheck",
    ]
    first, last = log.events[0].figures, log.events[-1].figures
    assert (first["route"], first["estimated_prompt_tokens"], first["prompt_budget_before_reserve"], first["overflow_tokens"]) == (
        "compact_only", 152300, 150000, 2300
    )
    assert first["session_file"] == PRECHECK["sessionFile"] and first["provider"] == "anthropic/claude-sonnet-4-5"
    assert (last["route"], last["estimated_prompt_tokens"]) == ("fits", 9)
    loop = log.events[5]
    assert loop.session_id == SID and loop.level == "ERROR" and loop.figures["message"] == LOOP["message"]
    assert log.events[3].figures["tokens_before"] == 19200 and log.events[3].figures["tokens_after"] == 5100
    times = [e.time_ms for e in log.events]
    assert all(t is not None for t in times) and times == sorted(times)
    assert read_gateway_log(files, "agent:main:other").events == []
    for profile, path in out["paths"].items():
        segment = profile_segment({"OPENCLAW_PROFILE": profile})
        assert Path(path).name == f"openclaw{'-' + segment if segment else ''}-2026-01-02.log"
