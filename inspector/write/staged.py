"""OpenClaw's staged summarization (2026.4 `compaction.ts`): `summarizeInStages` → `summarizeWithFallback` →
`summarizeChunks`, run on real messages through `calls.call_summarizer` (retries, breaker, events).

- `summarize_chunks`: chunk by `maxChunkTokens`, one call per chunk, the summary so far as the next call's
  previous summary (the rolling summary); an empty input returns the previous summary or "No prior history.".
- `summarize_with_fallback`: when the full summary fails, summarize again without the oversized messages
  (each oversized one leaves a `[Large <role> (~NK tokens) omitted from summary]` note; under 2026.9 its whole
  tool batch goes, the rules' `build_oversized_fallback_plan`); when that fails too (or there is nothing to leave
  out), OpenClaw 2026.4's "Summary unavailable" text: `Stager.unavailable` is set, and the runner writes such a
  summary only when the caller accepts it. Under rules without that text (`assembly.SUMMARY_FALLBACK_WRITTEN`
  False, 2026.9) a chunk failing after others keeps the rolling summary marked as partial
  (`assembly.partial_summary_note`, `PartialSummary`), and with no partial summary the chain raises.
- `summarize_in_stages`: split into token-share parts (2026.9: the rules' stage split) when the input is big
  (≥ 4 messages, more tokens than one chunk), summarize each part without a previous summary, then merge the
  part summaries as user messages (each labelled by `assembly.stage_summary_label`) with OpenClaw's merge
  instructions.

Unlike OpenClaw, a cancel, the safety timeout or an open circuit stop the whole run at once instead of being
swallowed by the fallback chain (OpenClaw would cancel the compaction in those cases too, one step later).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.base.clock import Clock, now_ms
from inspector.rules.ruleset import RuleSet
from inspector.write.breaker import CircuitBreaker
from inspector.write.calls import RetryPolicy, call_summarizer
from inspector.write.events import FallbackUsed, RunEvent, StageName, StageProgress
from inspector.write.summarizers.base import CancelToken, ProviderError, Purpose, Summarizer, SummaryRequest

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem
    from inspector.rules.openclaw_2026_4_12.compaction.prompts import IdentifierPolicy


@dataclass
class Msg:
    """A message of a summarizer input: the AgentMessage and its item (tokens, tool ids)."""

    item: SummaryItem
    message: dict[str, Any]


def synthetic_message(rules: RuleSet, item: SummaryItem) -> dict[str, Any]:
    """OpenClaw `makeMissingToolResult` for a tool call whose result is missing (its text is the rules')."""
    return {
        "role": "toolResult",
        "toolCallId": item.tool_result_id,
        "toolName": "unknown",
        "content": [{"type": "text", "text": rules.items.SYNTHETIC_TOOL_RESULT_TEXT}],
        "isError": True,
        "timestamp": 0,
    }


def _strip_details(message: dict[str, Any]) -> dict[str, Any]:
    """OpenClaw `stripToolResultDetails`."""
    if message.get("role") == "toolResult" and "details" in message:
        return {k: v for k, v in message.items() if k != "details"}
    return message


class PartialSummary(ProviderError):
    """A chunk failed after earlier chunks were summarized, under rules that keep the rolling summary so far
    (`partial`, marked by `assembly.partial_summary_note`)."""

    def __init__(self, cause: ProviderError, partial: str) -> None:
        super().__init__(cause.provider, cause.message, kind=cause.kind, status=cause.status)
        self.partial = partial


@dataclass
class CallStats:
    """What one stage's calls cost so far."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    retries: int = 0
    fallbacks: list[str] = field(default_factory=list)


@dataclass
class Stager:
    """Runs summaries for one compaction (see the module docstring); `stats` of the current stage."""

    summarizer: Summarizer
    session: Path
    emit: Callable[[RunEvent], None]
    clock: Clock
    cancel: CancelToken
    context_window: int
    reserve_tokens: int
    rules: RuleSet
    """The rule set the session is compacted with (its prompts, chunking, fallbacks)."""
    policy: IdentifierPolicy = "strict"
    thinking_level: str | None = None
    """The thinking level of the summary calls: the rules' `prompts.compaction_thinking_level` of the session's (pi: the
    session's own; 2026.9.6: `agents.defaults.compaction.thinkingLevel`, default low)."""
    breaker: CircuitBreaker | None = None
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    rng: random.Random = field(default_factory=random.Random)
    stage: StageName = "chunks"
    expected_calls: int = 0
    stats: CallStats = field(default_factory=CallStats)
    unavailable: bool = False
    requests: int = 0
    """The summary requests made so far (every attempt, failed ones too)."""
    max_chars: int | None = None
    """What each request's `SummaryRequest.max_chars` is (the room the assembly leaves the summary being made)."""
    section_max_chars: int | None = None
    """What each request's `SummaryRequest.section_max_chars` is (2026.9.6's guard: its protected sections' room)."""
    _started: float = 0.0

    def begin(self, stage: StageName, expected_calls: int) -> None:
        """Start counting a new stage."""
        self.stage = stage
        self.expected_calls = expected_calls
        self.stats = CallStats()
        self._started = time.monotonic()

    def _emit(self, event: RunEvent) -> None:
        if event.kind == "retry_scheduled":
            self.stats.retries += 1
        self.emit(event)

    def _count_request(self) -> None:
        self.requests += 1

    def call(self, msgs: list[Msg], instructions: str, previous: str | None, purpose: Purpose, label: str) -> str:
        """One `generateSummary` call (retried, behind the breaker)."""
        messages = [_strip_details(m.message) for m in msgs]
        prompt = self.rules.prompts.safeguard_prompt(
            messages, self.reserve_tokens, instructions, previous, policy=self.policy, thinking_level=self.thinking_level
        )
        request = SummaryRequest(purpose, tuple(messages), prompt, previous, label, self.rules, self.thinking_level, self.max_chars,
                                 self.section_max_chars)
        tokens_in = self.rules.items.total_tokens([m.item for m in msgs])
        result = call_summarizer(
            self.summarizer, request, stage=self.stage, session=self.session, breaker=self.breaker, cancel=self.cancel,
            emit=self._emit, clock=self.clock, policy=self.retry_policy, rng=self.rng, call_index=self.stats.calls,
            on_request=self._count_request,
        )
        st = self.stats
        st.calls += 1
        st.tokens_in += result.input_tokens if result.input_tokens is not None else tokens_in
        chars_per_token = self.rules.tokens.CHARS_PER_TOKEN_ESTIMATE
        st.tokens_out += result.output_tokens if result.output_tokens is not None else math.ceil(len(result.text) / chars_per_token)
        elapsed = int((time.monotonic() - self._started) * 1000)
        total = max(self.expected_calls, st.calls)
        eta = int(elapsed / st.calls * (total - st.calls)) if st.calls else None
        self.emit(StageProgress(at_ms=now_ms(self.clock), stage=self.stage, done=st.calls, total=total, tokens_in=st.tokens_in,
                                tokens_out=st.tokens_out, elapsed_ms=elapsed, eta_ms=eta, label=label))
        return result.text

    def summarize_chunks(self, msgs: list[Msg], instructions: str, previous: str | None, max_chunk_tokens: int, purpose: Purpose) -> str:
        """OpenClaw `summarizeChunks`: the rolling summary over the chunks."""
        if not msgs:
            return previous if previous is not None else self.rules.prompts.DEFAULT_SUMMARY_FALLBACK
        by_id = {id(m.item): m for m in msgs}
        chunks = self.rules.safeguard.chunk_messages_by_max_tokens([m.item for m in msgs], max_chunk_tokens)
        summary = previous
        for k, chunk in enumerate(chunks):
            try:
                summary = self.call([by_id[id(it)] for it in chunk], instructions, summary, purpose, f"chunk {k + 1}/{len(chunks)}")
            except ProviderError as err:
                note = self.rules.assembly.partial_summary_note(k, len(chunks))
                if note is None or k == 0 or summary is None or err.timeout:
                    raise
                raise PartialSummary(err, summary + note) from err
        return summary if summary is not None else self.rules.prompts.DEFAULT_SUMMARY_FALLBACK

    def summarize_with_fallback(self, msgs: list[Msg], instructions: str, previous: str | None, max_chunk_tokens: int, purpose: Purpose) -> str:
        """OpenClaw `summarizeWithFallback` (see the module docstring)."""
        if not msgs:
            return previous if previous is not None else self.rules.prompts.DEFAULT_SUMMARY_FALLBACK
        partial: str | None = None
        try:
            return self.summarize_chunks(msgs, instructions, previous, max_chunk_tokens, purpose)
        except ProviderError as err:
            last, full_error = err, err.message
            partial = err.partial if isinstance(err, PartialSummary) else None
        small, notes = self._without_oversized(msgs)
        if small and len(small) != len(msgs):
            self._fallback("without_oversized", f"full summarization failed: {full_error}", notes)
            try:
                text = self.summarize_chunks(small, instructions, previous, max_chunk_tokens, purpose)
                return text + (("\n\n" + "\n".join(notes)) if notes else "")
            except ProviderError as err:
                last, full_error = err, err.message
                if isinstance(err, PartialSummary):
                    partial = err.partial + (("\n\n" + "\n".join(notes)) if notes else "")
        if not self.rules.assembly.SUMMARY_FALLBACK_WRITTEN:
            if partial is not None:
                self._fallback("partial_summary", f"summarization failed part way: {full_error}", notes)
                return partial
            raise ProviderError(last.provider, f"All summarization attempts failed for {len(msgs)} messages. Last error: {full_error}",
                                kind=last.kind, status=last.status)
        self.unavailable = True
        self._fallback("summary_unavailable", f"summarization failed: {full_error}", notes)
        return f"Context contained {len(msgs)} messages ({len(notes)} oversized). Summary unavailable due to size limits."

    def _without_oversized(self, msgs: list[Msg]) -> tuple[list[Msg], list[str]]:
        """The messages the fallback summarizes and the notes of those it leaves out: the rules'
        `build_oversized_fallback_plan` when they have one (2026.9: whole tool batches), else each oversized one."""
        plan_of = getattr(self.rules.safeguard, "build_oversized_fallback_plan", None)
        if plan_of is not None:
            by_id = {id(m.item): m for m in msgs}
            plan = plan_of([m.item for m in msgs], self.context_window)
            return [by_id[id(it)] for it in plan.small], list(plan.notes)
        small: list[Msg] = []
        notes: list[str] = []
        for m in msgs:
            if self.rules.safeguard.is_oversized_for_summary(m.item, self.context_window):
                role = m.message.get("role") or "message"
                notes.append(f"[Large {role} (~{_js_round(m.item.tokens / 1000)}K tokens) omitted from summary]")
            else:
                small.append(m)
        return small, notes

    def _fallback(self, kind: Any, reason: str, notes: list[str]) -> None:
        self.stats.fallbacks.append(kind)
        self.emit(FallbackUsed(at_ms=now_ms(self.clock), stage=self.stage, fallback=kind, reason=reason, notes=tuple(notes)))

    def plan_parts(self, msgs: list[Msg], max_chunk_tokens: int) -> list[list[Msg]] | None:
        """The token-share parts `summarizeInStages` would use, or None when it summarizes in one go."""
        if not msgs:
            return None
        parts = self.rules.safeguard.normalize_parts(self.rules.safeguard.DEFAULT_PARTS, len(msgs))
        few = len(msgs) < max(2, self.rules.safeguard.MIN_MESSAGES_FOR_SPLIT)
        if parts <= 1 or few or self.rules.items.total_tokens([m.item for m in msgs]) <= max_chunk_tokens:
            return None
        by_id = {id(m.item): m for m in msgs}
        stage_split = getattr(self.rules.safeguard, "build_stage_split_plan", None)
        if stage_split is not None:  # 2026.9: whole tool-call groups
            split = stage_split([m.item for m in msgs], max_chunk_tokens)
            splits = split.chunks if split.mode == "split" else []
        else:
            splits = [s for s in self.rules.safeguard.split_messages_by_token_share([m.item for m in msgs], parts) if s]
        if len(splits) <= 1:
            return None
        return [[by_id[id(it)] for it in s] for s in splits]

    def count_chunks(self, msgs: list[Msg], max_chunk_tokens: int) -> int:
        """How many calls `summarize_chunks` will make on `msgs` (when nothing fails)."""
        return len(self.rules.safeguard.chunk_messages_by_max_tokens([m.item for m in msgs], max_chunk_tokens)) if msgs else 0

    def merge(self, part_summaries: list[str], instructions: str, previous: str | None, max_chunk_tokens: int,
              parts: list[list[Msg]] | None = None) -> str:
        """The merge call of `summarizeInStages`: the part summaries as user messages (labelled by the rules'
        `stage_summary_label` from each part's timestamps), merge instructions, and (as OpenClaw spreads
        `...params`) the stage's previous summary."""
        n = len(part_summaries)
        stamps = [[m.message.get("timestamp") for m in part] for part in parts] if parts else [[] for _ in part_summaries]
        merged = [{"role": "user", "content": self.rules.assembly.stage_summary_label(k, n, stamps[k]) + s, "timestamp": now_ms(self.clock)}
                  for k, s in enumerate(part_summaries)]
        msgs = [Msg(self.rules.items.item_for_message(msg, k), msg) for k, msg in enumerate(merged)]
        return self.summarize_with_fallback(msgs, self.rules.prompts.merge_instructions(instructions), previous, max_chunk_tokens, "merge")


def _js_round(x: float) -> int:
    """JavaScript `Math.round` (halves round up)."""
    return math.floor(x + 0.5)
