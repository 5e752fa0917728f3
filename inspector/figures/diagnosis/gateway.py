"""What OpenClaw's Gateway recorded about the session, placed on its calls and set beside the product's figures.

`gateway_log_for(session, ...)` reads the Gateway's log (`inspector.host.gateway_log`) for the session's key (from
`sessions.json` beside a JSONL file, or given: a store session's rows) and id. `place_on_calls` puts each event at
the call it belongs to by time: a precheck or a compaction happens before the request it prepares (the first call
whose request started at or after it: `relation` "before"), an overflow or a loop abort after the request that
caused it (the last call started at or before it: "after"). `timeline_disagreements` names where the log and the
session's figures differ; `forecast_comparison` sets OpenClaw's last precheck and compaction beside the forecast.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from inspector.figures.diagnosis.calls import CallPoint, CallWalk
from inspector.host.gateway_log import GatewayEvent, GatewayLog, gateway_log_files, read_gateway_log, session_key_for
from inspector.session.session import Session

BEFORE_KINDS = frozenset({"overflow_precheck", "compaction_attempt", "compaction_result", "compaction_skipped"})
"""Events logged while the next request is prepared; the others follow the request that caused them."""
COMPACTED = "compacted"


def gateway_log_for(
    session: Session,
    config: dict[str, Any] | None,
    explicit: Path | None = None,
    session_key: str | None = None,
    *,
    dirs: list[Path] | None = None,
) -> GatewayLog:
    """The Gateway log's events of `session` (its key: `session_key`, else `sessions.json`'s; its header id)."""
    key = session_key or session_key_for(Path(session.path))
    header = session.header or {}
    sid = header.get("id") if isinstance(header.get("id"), str) else None
    return read_gateway_log(gateway_log_files(config, explicit, dirs=dirs), key, sid)


def recorded_gateway_log(
    session: Session, config: dict[str, Any] | None, session_key: str | None = None, explicit: Path | None = None
) -> GatewayLog | None:
    """The Gateway log of `session` when it recorded anything of it (the app's default: no log, no section), or
    always when the log was named (`explicit`, `--gateway-log`: its section says it holds nothing of the session);
    a log that cannot be read is None."""
    try:
        log = gateway_log_for(session, config, explicit, session_key)
    except OSError:
        return None
    return log if log.events or explicit is not None else None


@dataclass(frozen=True, slots=True)
class PlacedEvent:
    """A Gateway event and the call it belongs to (None: no call fits its time)."""

    event: GatewayEvent
    call_index: int | None
    entry_id: str | None
    line: int | None
    relation: str | None

    def to_json(self) -> dict[str, Any]:
        """The event's JSON form with `call_index`, `entry_id`, `entry_line` and `relation` added."""
        out = self.event.to_json()
        out.update({"call_index": self.call_index, "entry_id": self.entry_id, "entry_line": self.line, "relation": self.relation})
        return out


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Where OpenClaw's record and the product's figure differ: what each says and by how much."""

    kind: str
    message: str
    openclaw: Any
    product: Any
    difference: int | float | None = None
    call_index: int | None = None
    time: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "kind": self.kind,
            "message": self.message,
            "openclaw": self.openclaw,
            "product": self.product,
            "difference": self.difference,
            "call_index": self.call_index,
            "time": self.time,
        }


def place_on_calls(events: list[GatewayEvent], calls: list[CallPoint]) -> list[PlacedEvent]:
    """Each event at its call by time (see the module docstring)."""
    timed = [c for c in calls if c.request_ms is not None]
    out = []
    for event in events:
        call: CallPoint | None = None
        relation = None
        if event.time_ms is not None:
            if event.kind in BEFORE_KINDS:
                call, relation = next((c for c in timed if c.request_ms >= event.time_ms), None), "before"  # type: ignore[operator]
            else:
                call, relation = next((c for c in reversed(timed) if c.request_ms <= event.time_ms), None), "after"  # type: ignore[operator]
        out.append(
            PlacedEvent(event, call.index if call else None, call.entry_id if call else None, call.line if call else None, relation if call else None)
        )
    return out


def _n(value: Any) -> str:
    return f"{value:,}" if isinstance(value, (int, float)) else "unknown"


def timeline_disagreements(placed: list[PlacedEvent], walk: CallWalk, compaction_threshold: int) -> list[Disagreement]:
    """Where the log and the session differ, call by call:

    - `precheck_vs_recorded`: OpenClaw's pre-prompt estimate against the prompt the provider then counted;
    - `compaction_not_in_session`: OpenClaw compacted before a call, the session holds no compaction there;
    - `compaction_unpredicted`: OpenClaw compacted (not for an overflow) while the last prompt was under the
      compaction threshold the product draws (`window - reserveTokens`)."""
    calls = walk.calls
    compacted_before = {mk.before_call for mk in walk.markers if mk.kind == "compaction"}
    out: list[Disagreement] = []
    for p in placed:
        e, f = p.event, p.event.figures
        if p.call_index is None:
            continue
        call = calls[p.call_index]
        if e.kind == "overflow_precheck" and f.get("phase") == "pre_prompt":
            estimate = f.get("estimated_prompt_tokens")
            if isinstance(estimate, (int, float)) and estimate != call.prompt_tokens:
                diff = estimate - call.prompt_tokens
                out.append(
                    Disagreement(
                        "precheck_vs_recorded",
                        f"OpenClaw estimated {_n(estimate)} prompt tokens before call {call.index}; the provider counted "
                        f"{_n(call.prompt_tokens)}: a difference of {diff:+,}",
                        estimate, call.prompt_tokens, diff, call.index, e.time,
                    )
                )
        if e.kind == "compaction_result" and f.get("outcome") == COMPACTED:
            if p.call_index not in compacted_before:
                out.append(
                    Disagreement(
                        "compaction_not_in_session",
                        f"OpenClaw compacted before call {call.index} (trigger {f.get('trigger')}); the session holds no "
                        "compaction there",
                        COMPACTED, None, None, call.index, e.time,
                    )
                )
            previous = calls[p.call_index - 1] if p.call_index > 0 else None
            if previous is not None and f.get("trigger") != "overflow" and previous.prompt_tokens <= compaction_threshold:
                out.append(
                    Disagreement(
                        "compaction_unpredicted",
                        f"OpenClaw compacted before call {call.index} (trigger {f.get('trigger')}) while the last prompt, "
                        f"{_n(previous.prompt_tokens)} tokens, was under the compaction threshold {_n(compaction_threshold)}",
                        f.get("trigger"), previous.prompt_tokens, previous.prompt_tokens - compaction_threshold, call.index, e.time,
                    )
                )
    return out


def timeline_section(log: GatewayLog, walk: CallWalk, compaction_threshold: int) -> dict[str, Any]:
    """The `gateway` section of `timeline --json`."""
    placed = place_on_calls(log.events, walk.calls)
    return {
        "files": log.files,
        "session_key": log.session_key,
        "session_id": log.session_id,
        "events": [p.to_json() for p in placed],
        "disagreements": [d.to_json() for d in timeline_disagreements(placed, walk, compaction_threshold)],
        "diagnostics": [d.to_json() for d in log.diagnostics],
    }


def last_entry_ms(session: Session) -> float | None:
    """The epoch milliseconds of the session's last entry (its `timestamp`), None when it has none."""
    entries = session.entries
    if not len(entries):
        return None
    stamp = entries[len(entries) - 1].timestamp
    if not isinstance(stamp, str):
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.astimezone()).timestamp() * 1000


def forecast_comparison(log: GatewayLog, triggers: dict[str, Any], last_entry: float | None) -> dict[str, Any]:
    """OpenClaw's last recorded precheck and compaction beside the forecast (`triggers`: the plan's `triggers`).

    `same_context` says the precheck was logged after the session's last entry (it saw the context the forecast
    sees); an older precheck saw an earlier context, and its differences are history rather than error."""
    pre_prompt = triggers.get("pre_prompt") or {}
    threshold = (triggers.get("threshold") or {}).get("threshold_tokens")
    prechecks = [e for e in log.of_kind("overflow_precheck") if e.figures.get("phase") == "pre_prompt"] or log.of_kind("overflow_precheck")
    compactions = log.of_kind("compaction_result")
    precheck = prechecks[-1] if prechecks else None
    compaction = compactions[-1] if compactions else None
    out: dict[str, Any] = {
        "files": log.files,
        "session_key": log.session_key,
        "session_id": log.session_id,
        "events": len(log.events),
        "last_precheck": precheck.to_json() if precheck else None,
        "same_context": None,
        "last_compaction": compaction.to_json() if compaction else None,
        "disagreements": [],
        "diagnostics": [d.to_json() for d in log.diagnostics],
    }
    disagreements: list[Disagreement] = []
    if precheck is not None:
        same = precheck.time_ms is not None and last_entry is not None and precheck.time_ms >= last_entry
        out["same_context"] = same
        note = "" if same else " (OpenClaw's precheck saw an earlier context)"
        f = precheck.figures
        for name, label in (("estimated_prompt_tokens", "prompt tokens"), ("prompt_budget_before_reserve", "tokens of budget before the reserve")):
            theirs, ours = f.get(name), pre_prompt.get(name)
            if isinstance(theirs, (int, float)) and isinstance(ours, (int, float)) and theirs != ours:
                disagreements.append(
                    Disagreement(
                        name,
                        f"OpenClaw estimated {_n(theirs)} {label} where the product's estimate is {_n(ours)}: a difference of "
                        f"{theirs - ours:+,}{note}",
                        theirs, ours, theirs - ours, None, precheck.time,
                    )
                )
        if f.get("route") is not None and f.get("route") != pre_prompt.get("route"):
            disagreements.append(
                Disagreement(
                    "route", f"OpenClaw's precheck routed {f.get('route')}; the forecast routes {pre_prompt.get('route')}{note}",
                    f.get("route"), pre_prompt.get("route"), None, None, precheck.time,
                )
            )
    if compaction is not None and compaction.figures.get("outcome") == COMPACTED and compaction.figures.get("trigger") != "overflow":
        before = compaction.figures.get("tokens_before")
        if isinstance(before, (int, float)) and isinstance(threshold, (int, float)) and before <= threshold:
            disagreements.append(
                Disagreement(
                    "compaction_unpredicted",
                    f"OpenClaw compacted at {_n(before)} tokens (trigger {compaction.figures.get('trigger')}), under the "
                    f"forecast's compaction threshold {_n(threshold)}",
                    before, threshold, before - threshold, None, compaction.time,
                )
            )
    out["disagreements"] = [d.to_json() for d in disagreements]
    return out
