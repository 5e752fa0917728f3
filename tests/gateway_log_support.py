"""Lines of OpenClaw 2026.9.6's Gateway log, written as its file transport writes them (dist `logger-*.mjs`,
`buildLogger`: tslog's numbered arguments, the bindings of `createSubsystemLogger` first, `_meta`, `time`,
`hostname`, `message`), with the message texts of the dist functions named in
`inspector.host.gateway_log.events`. A real line of each shape was checked against the real logger
(`tests/integration/test_gateway_log_oracle.py`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

LEVEL_IDS = {"TRACE": 1, "DEBUG": 2, "INFO": 3, "WARN": 4, "ERROR": 5}


def iso(ms: int) -> str:
    """`formatTimestamp(date, {style: "long"})` in UTC: `2026-01-02T03:04:05.680+00:00`."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}+00:00"


def log_line(ms: int, text: str, *, subsystem: str = "agent/embedded", level: str = "INFO") -> str:
    """One JSON line of the Gateway's file log."""
    bindings = json.dumps({"subsystem": subsystem}, separators=(",", ":"))
    date = datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
    record = {
        "0": bindings,
        "1": text,
        "_meta": {
            "runtime": "node", "runtimeVersion": "26.10.0", "hostname": "vm", "date": date,
            "logLevelId": LEVEL_IDS[level], "logLevelName": level, "name": bindings, "parentNames": ["openclaw"],
        },
        "time": iso(ms),
        "hostname": "vm",
        "message": text[:4096],
    }
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def precheck(key: str, *, route: str = "compact_only", estimate: int = 152300, budget: int = 150000, overflow: int = 2300,
             session_file: str = "/home/u/.openclaw/agents/main/sessions/s 1.jsonl") -> str:
    """`formatPrePromptPrecheckLog`."""
    return (
        f"[context-overflow-precheck] pre-prompt check sessionKey={key} provider=anthropic/claude-sonnet-4-5 route={route} "
        f"estimatedPromptTokens={estimate} pressureSource=estimate promptBudgetBeforeReserve={budget} overflowTokens={overflow} "
        f"toolResultReducibleChars=0 reserveTokens=20000 effectiveReserveTokens=20000 contextTokenBudget=200000 messages=40 "
        f"unwindowedMessages=40 sessionFile={session_file}"
    )


def midturn_precheck(key: str) -> str:
    """The mid-turn precheck's warning (`builtin-openclaw-*.mjs`)."""
    return (
        f"[context-overflow-midturn-precheck] sessionKey={key} provider=anthropic/claude-sonnet-4-5 route=compact_then_truncate "
        "estimatedPromptTokens=181000 promptBudgetBeforeReserve=180000 overflowTokens=1000 toolResultReducibleChars=9000 "
        "effectiveReserveTokens=20000 prePromptMessageCount=12 sessionFile=/x/s.jsonl"
    )


def overflow_diag(key: str) -> str:
    """`[context-overflow-diag]` (`embedded-agent-*.mjs`)."""
    return (
        f"[context-overflow-diag] sessionKey={key} provider=anthropic/claude-sonnet-4-5 source=provider trigger=overflow "
        "messages=22 sessionFile=/x/my session.jsonl diagId=ovf-1 compactionAttempts=0 observedTokens=201234 "
        "preflightEstimatedTokens=unknown compactionTokens=201234 providerPayloadBytes=unknown "
        "error=prompt is too long: 201234 tokens > 200000 maximum"
    )


def compaction_start(key: str, *, diag: str = "cmp-1", trigger: str = "budget", before: int | str = 19200) -> str:
    """`[compaction-diag] start` (`compact-*.mjs`)."""
    return (
        f"[compaction-diag] start runId=run-1 sessionKey={key} diagId={diag} trigger={trigger} provider=anthropic/claude-sonnet-4-5 "
        f"attempt=1 maxAttempts=1 pre.messages=14 pre.historyTextChars=70000 pre.toolResultChars=56000 pre.estTokens={before}"
    )


def compaction_end(key: str, *, diag: str = "cmp-1", trigger: str = "budget", after: int = 5100, before: int = 19200) -> str:
    """`[compaction-diag] end ... outcome=compacted` (`compact-*.mjs`)."""
    return (
        f"[compaction-diag] end runId=run-1 sessionKey={key} diagId={diag} trigger={trigger} provider=anthropic/claude-sonnet-4-5 "
        f"attempt=1 maxAttempts=1 outcome=compacted reason=none durationMs=2100 retrying=false post.messages=3 "
        f"post.historyTextChars=900 post.toolResultChars=0 post.estTokens={after} delta.messages=-11 "
        f"delta.historyTextChars=-69100 delta.toolResultChars=-56000 delta.estTokens={after - before}"
    )


def compaction_failed(key: str, *, diag: str = "cmp-2") -> str:
    """`[compaction-diag] end ... outcome=failed` (`compact-*.mjs`, `fail`)."""
    return (
        f"[compaction-diag] end runId=run-2 sessionKey={key} diagId={diag} trigger=overflow provider=anthropic/claude-sonnet-4-5 "
        "attempt=2 maxAttempts=3 outcome=failed reason=timeout durationMs=60000"
    )


def loop_abort(key: str, session_id: str) -> str:
    """`logToolLoopAction` (`diagnostic-*.mjs`) for a blocked call."""
    return (
        f"tool loop: sessionId={session_id} sessionKey={key} tool=exec level=critical action=block detector=generic_repeat "
        'count=20 message="CRITICAL: Called exec with identical outcomes 20 times. Session execution blocked to prevent runaway loops."'
    )


def write_log(path: Path, lines: list[str]) -> Path:
    """A log file of these lines (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
