"""A pruning preview for one session: settings, TTL gate, the pruner's result, savings and the tool guard.

Ties the pure pieces (`settings`, `ttl`, `thinking`, `pruner`, `tool_guard`) to an opened `Session`. Reproduces
OpenClaw 2026.4.12 (commit 8f8492d1) with pi 0.66.1. Read-only: the session file is only read (OpenClaw's
pruning never writes the JSONL either).

The rules are the session's rule set (`build_preview(..., rules=)`, default 2026.4.12's): every rule is called
through it. Under OpenClaw 2026.9.6 the preview also shows what was pruned before and stays pruned (the
projections of the latest `openclaw.cache-ttl` snapshot, replayed whatever the gate: row action `already_*`)
and, for a direct Anthropic request, the server-side `clear_tool_uses_20250919` edit sent instead of a
client-side round (`server_tool_clearing`).

Two scenarios share one pruner run (the pruner does not depend on the gate):

* the preview itself (`scenario` `now`): the gate OpenClaw evaluates with this file, from the last
  `openclaw.cache-ttl` entry for the model; without one the gate is closed and nothing is pruned;
* `if_enabled`, only for a session pruning has never touched (no such entry for the model): the same preview
  with the gate as it would stand after the first touch, projected at the last assistant message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.base.clock import Clock
from inspector.figures.pruning.reference import (
    CacheReferences,
    cache_references,
    last_llm_assistant,
    resolve_now_ms,
    session_gates,
)
from inspector.figures.pruning.savings import CacheWritePrice, TokenCounts, cache_write_price, count_tokens
from inspector.figures.pruning.sticky import release_inputs, release_json
from inspector.figures.rules_of import rules_of
from inspector.js.timeutil import iso_or_none, ms_from_any
from inspector.model import entries as m
from inspector.rules.pruning_terms import ACTION_KEEP, SCENARIO_IF_ENABLED
from inspector.rules.ruleset import DEFAULT_RULES, RuleSet, rule_set
from inspector.session.session import Session

if TYPE_CHECKING:  # the shapes of a release's results (each release's are these or subclasses of them)
    from inspector.rules.openclaw_2026_4_12.pruning.pruner import PruneResult
    from inspector.rules.openclaw_2026_4_12.pruning.settings import ResolvedSettings, SettingsOverrides
    from inspector.rules.openclaw_2026_4_12.pruning.thinking import DropThinkingPolicy
    from inspector.rules.openclaw_2026_4_12.pruning.tool_guard import ToolGuardReport
    from inspector.rules.openclaw_2026_4_12.pruning.ttl import Eligibility, TtlGate
    from inspector.rules.openclaw_2026_4_12.window_guard import ContextWindow

__all__ = [
    "OPENCLAW_VERSION",
    "STAGE_GATE_CLOSED",
    "PreviewCache",
    "PreviewDiagnostic",
    "PreviewOptions",
    "PrunePreview",
    "build_preview",
    "last_llm_assistant",
]

OPENCLAW_VERSION = "2026.4.12 (commit 8f8492d1)"
STAGE_GATE_CLOSED = "gate_closed"


@dataclass(slots=True)
class PreviewCache:
    """What successive previews of one session can share (the settings panel re-previews on every edit):
    messages read from disk and their tiktoken counts, keyed by `Entry.index`. Both depend only on the file,
    never on the settings; use one cache per session (and a new one after the file was re-indexed)."""

    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    tiktoken: dict[tuple[str, int], int | None] = field(default_factory=dict)

    def message(self, session: Session, entry: m.Entry) -> dict[str, Any]:
        """The message of `entry`, read from disk once."""
        msg = self.messages.get(entry.index)
        if msg is None:
            msg = self.messages[entry.index] = session.load_message(entry) or {}
        return msg


@dataclass(slots=True)
class PreviewOptions:
    """Inputs of a preview besides the session: time, config, flag overrides.

    `now_ms` wins over `clock` (default: the system clock). `drop_thinking_for_estimate` None follows the
    transcript policy for the model (as OpenClaw does); True/False force it.
    """

    now_ms: float | None = None
    force: bool = False
    config: dict[str, Any] | None = None
    config_path: Path | None = None
    config_error: str | None = None
    overrides: SettingsOverrides | None = None
    """Settings set by hand (the rules' `pruning_settings.SettingsOverrides`; None: none)."""
    context_window: int | None = None
    drop_thinking_for_estimate: bool | None = None
    leaf_id: str | None = None
    encoding: str | None = "cl100k_base"
    cache: PreviewCache | None = None
    clock: Clock | None = None


@dataclass(frozen=True, slots=True)
class PreviewDiagnostic:
    """Something in the file the preview could not show as OpenClaw's JavaScript would (the rest still works)."""

    kind: str
    message: str
    entry_id: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        """`kind`, `message`, and the entry it concerns."""
        return {"kind": self.kind, "message": self.message, "entry_id": self.entry_id, "line": self.line}


@dataclass(slots=True)
class PrunePreview:
    """Everything `session-inspector prune` reports; `to_json()` is the stable JSON contract.

    `scenario` is `now` for the preview itself and `if_enabled` for the projection it may carry in
    `if_enabled` (same type, same fields, sharing the pruner's `result`).
    """

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
    references: CacheReferences
    drop_thinking: DropThinkingPolicy
    model_api: str | None = None
    scenario: str = "now"
    if_enabled: PrunePreview | None = None
    diagnostics: list[PreviewDiagnostic] = field(default_factory=list)
    tokens_before: dict[str, int | None] = field(default_factory=dict)
    tokens_after: dict[str, int | None] = field(default_factory=dict)
    tiktoken_info: dict[str, Any] = field(default_factory=dict)
    prunable_flags: list[bool] = field(default_factory=list)
    rules: RuleSet | None = None
    """The rule set the preview follows (None: 2026.4.12's)."""
    server_clearing: Any = None
    """2026.9.6: the server-side `clear_tool_uses_20250919` edit of a direct Anthropic request
    (`rules.ttl.ServerToolClearing`), None when the request is not one."""

    # -- derived -------------------------------------------------------------------------------

    @property
    def replayed(self) -> dict[int, str] | None:
        """2026.9.6: index -> `soft`/`hard`/`trimmed` of the projections replayed from earlier rounds (None for a
        release without sticky projections)."""
        return getattr(self.result, "replayed", None)

    @property
    def actions(self) -> list[str]:
        """The effective action per message (all `keep` when the gate is closed and not forced; under 2026.9.6
        `already_soft_trimmed` / `already_hard_cleared` / `already_truncated` for a replayed projection)."""
        replayed = self.replayed
        if replayed is None:
            return self.result.actions if self.applied else [ACTION_KEEP] * len(self.messages)
        base = self.result.actions if self.applied else [ACTION_KEEP] * len(self.messages)
        labels = self.rules_or_default.pruner.ACTION_REPLAYED
        return [labels[replayed[i]] if a == ACTION_KEEP and i in replayed else a for i, a in enumerate(base)]

    @property
    def rules_or_default(self) -> RuleSet:
        """The rule set the preview follows."""
        return self.rules if self.rules is not None else rule_set()

    @property
    def messages_after(self) -> list[dict[str, Any]]:
        """The messages as they would be sent (the originals, or the replayed projections, when nothing is applied)."""
        if self.applied:
            return self.result.messages
        return getattr(self.result, "replay_messages", None) or self.messages

    @property
    def chars_after(self) -> int:
        """The pruner's total after pruning (the total before, or of the replay, when nothing is applied)."""
        if self.applied:
            return self.result.total_chars_after
        return getattr(self.result, "replay_total_chars", self.result.total_chars_before)

    @property
    def new_round_changes(self) -> bool:
        """Whether the pruning round itself changes a message (not counting replayed projections)."""
        if self.replayed is None:
            return self.result.changed
        return any(a != ACTION_KEEP for a in self.result.actions)

    @property
    def would_openclaw_prune(self) -> bool:
        """OpenClaw would prune on the next request: eligible, gate open, a change, and (scenario `now`) pruning
        enabled in the config. For `if_enabled`: would, once enabled and touched at the projected time."""
        enabled = self.resolved.enabled or self.scenario == SCENARIO_IF_ENABLED
        return enabled and self.eligibility.eligible and self.gate.open and self.new_round_changes

    def tool_result_expiry(self, index: int) -> tuple[bool | None, float | None]:
        """(expired, since_ms) for a tool result: its cache entry dies `ttl` after max(last touch, its own time)."""
        ts = ms_from_any(self.messages[index].get("timestamp"))
        return self.rules_or_default.ttl.result_expiry(self.gate.last_cache_touch_at, ts, self.gate.now, self.gate.ttl_ms)

    # -- JSON ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The `prune --json` object (for `if_enabled`: the same shape, its own `if_enabled` null)."""
        r = self.result
        out = {
            "file": str(self.session.path),
            "openclaw_version": self.openclaw_version,
            "scenario": self.scenario,
            "leaf_id": self.context.leaf_id,
            "model": self.context.model,
            "pruning_model": self.references.to_json() | {"api": self.model_api},
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
            "estimate_error": r.estimate_error,
            "settings": self.resolved.settings.to_json(),
            "context_window_tokens": r.context_window_tokens,
            "context_window": {"tokens": self.window.tokens, "source": self.window.source},
            "char_window": r.char_window,
            "cutoff_index": r.cutoff_index,
            "first_user_index": r.first_user_index,
            "prune_start_index": r.prune_start_index,
            "drop_thinking_for_estimate": self.drop_thinking.drop,
            "drop_thinking": self.drop_thinking.to_json(),
            "prunable_indexes": r.prunable_indexes,
            "prunable_tool_chars": r.prunable_tool_chars,
            "totals": self.totals_json(),
            "tool_guard": self.guard.to_json() | {"applies_to": "pruned" if self.applied and r.changed else "unpruned"},
            "messages": self.rows_json(),
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "if_enabled": self.if_enabled.to_json() if self.if_enabled is not None else None,
        }
        out.update(release_json(r, self.replayed, self.server_clearing))
        return out

    @property
    def openclaw_version(self) -> str:
        """The OpenClaw release the preview reproduces."""
        rules = self.rules_or_default
        return OPENCLAW_VERSION if rules.id == DEFAULT_RULES else str(rules.release.openclaw_version)

    def rows_json(self) -> list[dict[str, Any]]:
        """One object per context message: what the pruner did to it and why (see the README's contract)."""
        r = self.result
        after_msgs = self.messages_after
        guard_by_index = {t.index: t for t in self.guard.truncated}
        chars_after = r.chars_after if self.applied else getattr(r, "replay_chars", r.chars_before)
        rows = []
        for row, msg, action, before_c, after_c, prunable in zip(
            self.context.messages, self.messages, self.actions, r.chars_before, chars_after, self.prunable_flags
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
                    "timestamp": iso_or_none(ms_from_any(msg.get("timestamp"))),
                    "action": action,
                    "chars_before": before_c,
                    "chars_after": after_c,
                    "content_after": after_msgs[i].get("content") if action != ACTION_KEEP else None,
                    "prunable": prunable,
                    "protected": self._protection(i, row.role, prunable),
                    "cache_expired": expired,
                    "cache_expired_at": iso_or_none(since) if expired else None,
                    "cache_expires_at": iso_or_none(since),
                    "soft_trim_raw_chars": r.soft_trim_raw_lens.get(i) if self.applied else None,
                    "tool_guard": g.to_json() if g else None,
                }
            )
        return rows

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
        """Characters and ratios (the pruner's), tokens per estimator, and the cache write avoided."""
        r = self.result
        window = r.char_window
        before, after = r.total_chars_before, self.chars_after
        chars_per_token = self.rules_or_default.tokens.CHARS_PER_TOKEN_ESTIMATE
        counts = {
            "chars_div_4": (math.ceil(before / chars_per_token), math.ceil(after / chars_per_token)),
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


def _row_index(ctx: m.SessionContext, entry: m.Entry) -> int:
    for row in reversed(ctx.messages):
        if row.entry_index == entry.index:
            return row.index
    raise KeyError(entry.index)


def _time_diagnostics(
    ctx: m.SessionContext, messages: list[dict[str, Any]], refs: CacheReferences, gates: list[TtlGate]
) -> list[PreviewDiagnostic]:
    """Times JavaScript's Date cannot hold (|ms| > 8.64e15): OpenClaw compares them as numbers, but no ISO
    time can be shown for them."""
    out: list[PreviewDiagnostic] = []
    for row, msg in zip(ctx.messages, messages):
        ts = ms_from_any(msg.get("timestamp"))
        if ts is not None and iso_or_none(ts) is None:
            out.append(
                PreviewDiagnostic(
                    "timestamp_out_of_range",
                    f"message.timestamp {ts:g} is outside JavaScript's Date range: shown as null",
                    row.entry_id,
                    row.line,
                )
            )
    touch = refs.touch
    if touch is not None and iso_or_none(touch.timestamp_ms) is None:
        out.append(
            PreviewDiagnostic(
                "timestamp_out_of_range",
                f"cache touch timestamp {touch.timestamp_ms:g} is outside JavaScript's Date range: compared as a "
                "number (as OpenClaw does), shown as null",
                touch.entry_id,
                touch.line,
            )
        )
    for gate in gates:
        expires = gate.expires_at
        if expires is not None and iso_or_none(expires) is None:
            out.append(
                PreviewDiagnostic(
                    "expiry_out_of_range",
                    f"{gate.scenario}: reference + ttl = {expires:g} ms is outside JavaScript's Date range: expiry times "
                    "are compared as numbers and shown as null",
                )
            )
    return out


def build_preview(session: Session, options: PreviewOptions | None = None, *, rules: RuleSet | None = None) -> PrunePreview:
    """Compute the pruning preview of `session` (leaf `options.leaf_id`, default the last entry) by the rule set
    `rules` (default: the session's), and its `if_enabled` projection when pruning has never touched the cache for
    the session's model."""
    options = options or PreviewOptions()
    rules = rules if rules is not None else rules_of(session)
    ctx = session.context(options.leaf_id)
    if options.cache is not None:
        messages = [options.cache.message(session, session.entries[row.entry_index]) for row in ctx.messages]
    else:
        messages = [session.load_message(session.entries[row.entry_index]) or {} for row in ctx.messages]
    refs = cache_references(session, ctx)
    api = None
    if refs.assistant is not None:
        raw_api = messages[_row_index(ctx, refs.assistant)].get("api")
        api = raw_api if isinstance(raw_api, str) else None

    overrides = options.overrides if options.overrides is not None else rules.pruning_settings.SettingsOverrides()
    resolved = rules.pruning_settings.resolve_settings(options.config, overrides)
    settings = resolved.settings
    eligibility = rules.ttl.is_cache_ttl_eligible(refs.provider, refs.model_id, api)
    window = rules.window_guard.resolve_context_window(refs.provider, refs.model_id, options.config, options.context_window)
    if options.drop_thinking_for_estimate is None:
        drop = rules.thinking.resolve_drop_thinking_blocks(refs.provider, refs.model_id, api)
    else:
        drop = rules.thinking.DropThinkingPolicy(options.drop_thinking_for_estimate, "forced by the caller", "flag")

    now_ms = resolve_now_ms(options.now_ms, options.clock)
    gate, projected = session_gates(rules, refs, settings.ttl_ms, now_ms)

    is_prunable = rules.tool_globs.make_tool_prunable_predicate(settings.tools)
    sticky, clearing = release_inputs(
        rules, session, ctx, messages, configured_mode=resolved.configured_mode, config=options.config, provider=refs.provider,
        api=api, window_tokens=window.tokens, tools=settings.tools,
    )
    result = rules.pruner.prune_context_messages(
        messages,
        settings,
        context_window_tokens=window.tokens,
        is_tool_prunable=is_prunable,
        drop_thinking_blocks_for_estimate=drop.drop,
        **sticky,
    )
    prunable_flags = [(msg.get("role") == "toolResult" and is_prunable(msg.get("toolName"))) for msg in messages]
    entry_indices = [row.entry_index for row in ctx.messages]
    counts = count_tokens(messages, options.encoding, entry_indices, options.cache.tiktoken if options.cache else None, rules.tokens)
    price = cache_write_price(session, ctx, refs.provider, refs.model_id)
    diagnostics = _time_diagnostics(ctx, messages, refs, [g for g in (gate, projected) if g is not None])

    def assemble(g: TtlGate, scenario: str) -> PrunePreview:
        applied = g.open or options.force
        g.forced = options.force and not g.open
        effective = result.messages if applied else (getattr(result, "replay_messages", None) or messages)
        preview = PrunePreview(
            session=session,
            context=ctx,
            messages=messages,
            resolved=resolved,
            eligibility=eligibility,
            window=window,
            gate=g,
            applied=applied,
            result=result,
            guard=rules.tool_guard.evaluate_tool_result_context_guard(effective, window.tokens),
            price=price,
            options=options,
            references=refs,
            drop_thinking=drop,
            model_api=api,
            scenario=scenario,
            diagnostics=diagnostics,
            prunable_flags=prunable_flags,
            rules=rules,
            server_clearing=clearing,
        )
        _fill_tokens(preview, counts)
        return preview

    main = assemble(gate, gate.scenario)
    if projected is not None:
        main.if_enabled = assemble(projected, projected.scenario)
    return main


def _fill_tokens(preview: PrunePreview, counts: TokenCounts) -> None:
    """Token totals before/after for the preview's effective actions (unchanged messages counted once)."""
    changed = [i for i, a in enumerate(preview.actions) if a != ACTION_KEEP]
    before, after = counts.totals(preview.messages_after, changed)
    preview.tokens_before = before
    preview.tokens_after = after
    preview.tiktoken_info = counts.tiktoken_info

