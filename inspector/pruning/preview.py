"""A pruning preview for one session: settings, TTL gate, the pruner's result, savings and the tool guard.

Ties the pure pieces (`settings`, `ttl`, `pruner`, `tool_guard`) to an opened `Session`. Read-only: the
session file is only read (OpenClaw's pruning never writes the JSONL either).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector import model as m
from inspector.session import Session
from inspector.tokens import get_token_counter, openclaw_compaction_tokens, pi_estimate_tokens
from inspector.window import ContextWindow, resolve_context_window

from .pruner import ACTION_KEEP, PruneResult, prune_context_messages
from .settings import ResolvedSettings, SettingsOverrides, resolve_settings
from .tool_guard import ToolGuardReport, evaluate_tool_result_context_guard
from .ttl import (
    SOURCE_CACHE_TTL_ENTRY,
    Eligibility,
    TtlGate,
    evaluate_ttl_gate,
    is_cache_ttl_eligible,
    iso_from_ms,
    ms_from_any,
    read_last_cache_touch,
)
from .tools import make_tool_prunable_predicate

STAGE_GATE_CLOSED = "gate_closed"
SYNTHETIC_PROVIDER = "openclaw"  # delivery mirrors / gateway injections: not LLM calls, no cache touch


@dataclass(slots=True)
class PreviewCache:
    """What successive previews of one session can share (the settings panel re-previews on every edit):
    messages read from disk and their tiktoken counts, keyed by `Entry.index`. Both depend only on the file,
    never on the settings; use one cache per session (and a new one after the file was re-indexed)."""

    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    tiktoken: dict[tuple[str, int], int | None] = field(default_factory=dict)

    def message(self, session: Session, entry: m.Entry) -> dict[str, Any]:
        msg = self.messages.get(entry.index)
        if msg is None:
            msg = self.messages[entry.index] = session.load_message(entry) or {}
        return msg


@dataclass(slots=True)
class PreviewOptions:
    """Inputs of a preview besides the session: time, config, flag overrides."""

    now_ms: float | None = None
    force: bool = False
    config: dict[str, Any] | None = None
    config_path: Path | None = None
    config_error: str | None = None
    overrides: SettingsOverrides = field(default_factory=SettingsOverrides)
    context_window: int | None = None
    drop_thinking_for_estimate: bool = False
    leaf_id: str | None = None
    encoding: str | None = "cl100k_base"
    cache: PreviewCache | None = None


@dataclass(slots=True)
class CacheWritePrice:
    """USD per token for a prompt-cache write, and where the price came from."""

    usd_per_token: float | None
    source: str


@dataclass(slots=True)
class PrunePreview:
    """Everything `session-inspector prune` reports; `to_json()` is the stable JSON contract."""

    session: Session
    context: m.SessionContext
    messages: list[dict[str, Any]]
    resolved: ResolvedSettings
    eligibility: Eligibility
    window: ContextWindow
    gate: TtlGate
    applied: bool
    result: PruneResult
    guard: ToolGuardReport
    price: CacheWritePrice
    options: PreviewOptions
    tokens_before: dict[str, int | None] = field(default_factory=dict)
    tokens_after: dict[str, int | None] = field(default_factory=dict)
    tiktoken_info: dict[str, Any] = field(default_factory=dict)
    prunable_flags: list[bool] = field(default_factory=list)

    # -- derived -------------------------------------------------------------------------------

    @property
    def actions(self) -> list[str]:
        """The effective action per message (all `keep` when the gate is closed and not forced)."""
        return self.result.actions if self.applied else [ACTION_KEEP] * len(self.messages)

    @property
    def messages_after(self) -> list[dict[str, Any]]:
        return self.result.messages if self.applied else self.messages

    @property
    def chars_after(self) -> int:
        return self.result.total_chars_after if self.applied else self.result.total_chars_before

    @property
    def would_openclaw_prune(self) -> bool:
        """OpenClaw itself would prune on the next request: enabled, eligible, a real touch, gate open, a change."""
        return (
            self.resolved.enabled
            and self.eligibility.eligible
            and self.gate.open
            and self.gate.source == SOURCE_CACHE_TTL_ENTRY
            and self.result.changed
        )

    def tool_result_expiry(self, index: int) -> tuple[bool | None, float | None]:
        """(expired, since_ms) for a tool result: its cache entry dies `ttl` after max(last touch, its own time)."""
        ref = self.gate.last_cache_touch_at
        if ref is None:
            return None, None
        ts = ms_from_any(self.messages[index].get("timestamp"))
        start = max(ref, ts) if ts is not None else ref
        expires = start + self.gate.ttl_ms
        return self.gate.now >= expires, expires

    # -- JSON ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        r = self.result
        actions = self.actions
        after_msgs = self.messages_after
        guard_by_index = {t.index: t for t in self.guard.truncated}
        rows = []
        for row, msg, action, before_c, after_c, prunable in zip(
            self.context.messages,
            self.messages,
            actions,
            r.chars_before,
            r.chars_after if self.applied else r.chars_before,
            self.prunable_flags,
        ):
            i = row.index
            expired, since = self.tool_result_expiry(i) if row.role == "toolResult" else (None, None)
            g = guard_by_index.get(i)
            rows.append(
                {
                    "index": i,
                    "entry_id": row.entry_id,
                    "line": row.line,
                    "role": row.role,
                    "tool_name": row.tool_name,
                    "timestamp": iso_from_ms(ms_from_any(msg.get("timestamp"))),
                    "action": action,
                    "chars_before": before_c,
                    "chars_after": after_c,
                    "content_after": after_msgs[i].get("content") if action != ACTION_KEEP else None,
                    "prunable": prunable,
                    "protected": self._protection(i, row.role, prunable),
                    "cache_expired": expired,
                    "cache_expired_at": iso_from_ms(since) if since is not None and expired else None,
                    "cache_expires_at": iso_from_ms(since),
                    "soft_trim_raw_chars": r.soft_trim_raw_lens.get(i) if self.applied else None,
                    "tool_guard": g.to_json() if g else None,
                }
            )
        return {
            "file": str(self.session.path),
            "leaf_id": self.context.leaf_id,
            "model": self.context.model,
            "config": {
                "path": str(self.options.config_path) if self.options.config_path else None,
                "error": self.options.config_error,
            },
            "pruning": self.resolved.to_json() | {"eligibility": self.eligibility.to_json()},
            "would_openclaw_prune": self.would_openclaw_prune,
            "gate": self.gate.to_json(),
            "applied": self.applied,
            "stage": r.stage if self.applied else STAGE_GATE_CLOSED,
            "pruner_stage": r.stage,
            "settings": self.resolved.settings.to_json(),
            "context_window_tokens": r.context_window_tokens,
            "context_window": {"tokens": self.window.tokens, "source": self.window.source},
            "char_window": r.char_window,
            "cutoff_index": r.cutoff_index,
            "first_user_index": r.first_user_index,
            "prune_start_index": r.prune_start_index,
            "drop_thinking_for_estimate": self.options.drop_thinking_for_estimate,
            "prunable_indexes": r.prunable_indexes,
            "prunable_tool_chars": r.prunable_tool_chars,
            "totals": self.totals_json(),
            "tool_guard": self.guard.to_json() | {"applies_to": "pruned" if self.applied and r.changed else "unpruned"},
            "messages": rows,
        }

    def _protection(self, i: int, role: str, prunable: bool) -> str | None:
        r = self.result
        if role != "toolResult":
            return None
        if r.cutoff_index is None:
            return "too_few_assistants"
        if r.prune_start_index is not None and i < r.prune_start_index:
            return "before_first_user"
        if i >= r.cutoff_index:
            return "keep_last_assistants"
        if not prunable:
            return "tool_not_prunable"
        return None

    def totals_json(self) -> dict[str, Any]:
        r = self.result
        window = r.char_window
        before, after = r.total_chars_before, self.chars_after
        counts = {
            "chars_div_4": (math.ceil(before / 4), math.ceil(after / 4)),
            "pi": (self.tokens_before.get("pi"), self.tokens_after.get("pi")),
            "openclaw_compaction": (self.tokens_before.get("openclaw_compaction"), self.tokens_after.get("openclaw_compaction")),
            "tiktoken": (self.tokens_before.get("tiktoken"), self.tokens_after.get("tiktoken")),
        }
        tokens = {
            name: {"before": b, "after": a, "saved": (b - a) if b is not None and a is not None else None}
            for name, (b, a) in counts.items()
        }
        price = self.price.usd_per_token
        write_avoided = {
            name: (round(t["saved"] * price, 6) if price is not None and t["saved"] is not None else None)
            for name, t in tokens.items()
        }
        return {
            "chars_before": before,
            "chars_after": after,
            "chars_saved": before - after,
            "ratio_before": before / window if window else None,
            "ratio_after": after / window if window else None,
            "tokens": tokens,
            "tiktoken": self.tiktoken_info,
            "cache_write_avoided": {
                "note": "the first request after the TTL re-writes the whole prompt to the cache; pruned tokens are not written",
                "usd_per_token": price,
                "usd_per_million": round(price * 1e6, 6) if price is not None else None,
                "price_source": self.price.source,
                "tokens": {name: t["saved"] for name, t in tokens.items()},
                "usd": write_avoided,
            },
        }


# ------------------------------------------------------------------------------------------------- build


def last_llm_assistant(session: Session, ctx: m.SessionContext) -> m.Entry | None:
    """The last assistant entry on the path that was a real LLM call (not an OpenClaw delivery mirror)."""
    for row in reversed(ctx.messages):
        e = session.entries[row.entry_index]
        if e.role == "assistant" and e.provider != SYNTHETIC_PROVIDER:
            return e
    return None


def cache_write_price(session: Session, ctx: m.SessionContext, provider: str | None, model_id: str | None) -> CacheWritePrice:
    """USD per cache-written token: from the latest recorded `usage.cost.cacheWrite / usage.cacheWrite` of this
    model on the path, else from the model catalog, else unknown."""
    for row in reversed(ctx.messages):
        e = session.entries[row.entry_index]
        if e.role != "assistant" or not isinstance(e.usage, dict):
            continue
        if e.provider != provider or e.model != model_id:
            continue
        tokens = e.usage.get("cacheWrite")
        cost = e.usage.get("cost")
        usd = cost.get("cacheWrite") if isinstance(cost, dict) else None
        if _positive(tokens) and _positive(usd):
            return CacheWritePrice(usd / tokens, f"recorded usage of entry {e.id} (line {e.line})")
    from inspector.models_catalog import known_model

    km = known_model(provider, model_id)
    if km is not None and km.cache_write_cost > 0:
        return CacheWritePrice(km.cache_write_cost / 1e6, f"model catalog {km.key}")
    return CacheWritePrice(None, "no recorded cache-write cost and no catalog price for this model")


def _positive(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def build_preview(session: Session, options: PreviewOptions | None = None) -> PrunePreview:
    """Compute the pruning preview of `session` (leaf `options.leaf_id`, default the last entry)."""
    options = options or PreviewOptions()
    ctx = session.context(options.leaf_id)
    if options.cache is not None:
        messages = [options.cache.message(session, session.entries[row.entry_index]) for row in ctx.messages]
    else:
        messages = [session.load_message(session.entries[row.entry_index]) or {} for row in ctx.messages]
    model = ctx.model or {}
    provider, model_id = model.get("provider"), model.get("modelId")

    last_assistant = last_llm_assistant(session, ctx)
    api = None
    if last_assistant is not None:
        msg = messages[_row_index(ctx, last_assistant)]
        api = msg.get("api") if isinstance(msg.get("api"), str) else None

    resolved = resolve_settings(options.config, options.overrides)
    settings = resolved.settings
    eligibility = is_cache_ttl_eligible(provider, model_id, api)
    window = resolve_context_window(provider, model_id, options.config, options.context_window)

    now_ms = options.now_ms if options.now_ms is not None else time.time_ns() // 1_000_000  # Date.now(): whole ms
    touch = read_last_cache_touch(session.entries, provider, model_id)
    fallback_ms = None
    fallback_id = None
    if last_assistant is not None:
        stored = last_assistant.timestamp or session.load_entry_object(last_assistant).get("timestamp")
        fallback_ms = ms_from_any(stored)  # when it was written: after the response, as a touch would be
        if fallback_ms is None:
            fallback_ms = ms_from_any(last_assistant.message_timestamp)
        fallback_id = last_assistant.id
    gate = evaluate_ttl_gate(now_ms=now_ms, ttl_ms=settings.ttl_ms, touch=touch, fallback_ms=fallback_ms, fallback_entry_id=fallback_id)
    applied = gate.open or options.force
    gate.forced = options.force and not gate.open

    is_prunable = make_tool_prunable_predicate(settings.tools)
    result = prune_context_messages(
        messages,
        settings,
        context_window_tokens=window.tokens,
        is_tool_prunable=is_prunable,
        drop_thinking_blocks_for_estimate=options.drop_thinking_for_estimate,
    )
    effective = result.messages if applied else messages
    guard = evaluate_tool_result_context_guard(effective, window.tokens)
    prunable_flags = [
        (msg.get("role") == "toolResult" and is_prunable(msg.get("toolName"))) for msg in messages
    ]

    preview = PrunePreview(
        session=session,
        context=ctx,
        messages=messages,
        resolved=resolved,
        eligibility=eligibility,
        window=window,
        gate=gate,
        applied=applied,
        result=result,
        guard=guard,
        price=cache_write_price(session, ctx, provider, model_id),
        options=options,
        prunable_flags=prunable_flags,
    )
    _count_tokens(preview, options.encoding, [row.entry_index for row in ctx.messages], options.cache)
    return preview


def _row_index(ctx: m.SessionContext, entry: m.Entry) -> int:
    for row in reversed(ctx.messages):
        if row.entry_index == entry.index:
            return row.index
    raise KeyError(entry.index)


def _count_tokens(preview: PrunePreview, encoding: str | None, entry_indices: list[int], cache: PreviewCache | None) -> None:
    """pi's `estimateTokens`, OpenClaw's compaction estimate and tiktoken, before and after (unchanged messages
    counted once). The `chars_div_4` figure is derived from the pruner's own totals."""
    before_msgs = preview.messages
    after_msgs = preview.messages_after
    changed = [i for i, a in enumerate(preview.actions) if a != ACTION_KEEP]
    pi_before = [pi_estimate_tokens(msg) for msg in before_msgs]
    pi_after = list(pi_before)
    for i in changed:
        pi_after[i] = pi_estimate_tokens(after_msgs[i])
    preview.tokens_before["pi"] = sum(pi_before)
    preview.tokens_after["pi"] = sum(pi_after)
    oc_before = [openclaw_compaction_tokens(msg) for msg in before_msgs]
    oc_after = list(oc_before)
    for i in changed:
        oc_after[i] = openclaw_compaction_tokens(after_msgs[i])
    preview.tokens_before["openclaw_compaction"] = sum(oc_before)
    preview.tokens_after["openclaw_compaction"] = sum(oc_after)
    if encoding is None:
        preview.tiktoken_info = {"enabled": False}
        preview.tokens_before["tiktoken"] = preview.tokens_after["tiktoken"] = None
        return
    counter = get_token_counter(encoding)
    preview.tiktoken_info = {"enabled": counter.available, "encoding": counter.name, "notice": counter.notice}
    if not counter.available:
        preview.tokens_before["tiktoken"] = preview.tokens_after["tiktoken"] = None
        return
    if cache is None:
        tk_before = [counter.count_message(msg) for msg in before_msgs]
    else:
        tk_before = []
        for idx, msg in zip(entry_indices, before_msgs):
            key = (counter.name, idx)
            if key not in cache.tiktoken:
                cache.tiktoken[key] = counter.count_message(msg)
            tk_before.append(cache.tiktoken[key])
    tk_after = list(tk_before)
    for i in changed:
        tk_after[i] = counter.count_message(after_msgs[i])
    preview.tokens_before["tiktoken"] = sum(tk_before)
    preview.tokens_after["tiktoken"] = sum(tk_after)
