"""The compaction run: OpenClaw 2026.4's safeguard compaction, executed and written safely.

`run_compaction(path, options, emit)` plans (`plan.plan_compaction`), summarizes stage by stage as the
safeguard does (`staged.Stager`), assembles the summary (`assembly`), and commits it through
`writer.commit_compaction` (append by default, `truncate=True` on request, with a `since` snapshot so a file
replaced or moved to another branch meanwhile is refused). Stages, in OpenClaw's order:

1. `history_share`: when the new content exceeds `ctx * maxHistoryShare * 1.2`, the dropped oldest chunks are
   summarized first (with the previous compaction's summary); that summary becomes the previous summary;
2. `parts` + `merge` (big input: token-share parts each summarized, then merged) or `chunks` (one rolling
   summary over the chunks), with the fallback chain;
3. `split_turn_prefix`: the prefix of a split turn, with the split-turn instructions;
4. `assembly`: body + split-turn section, recent turns preserved verbatim, tool failures, file lists, capped
   at 16000 characters with the truncation note;
5. `commit`.

When nothing real is left to summarize, the boundary summary (`boundary.py`) is written with no call at all.
Before planning, a run that may write finishes what crashed writes of this session left and carries lines
written late into a file a rewrite replaced (`recovery.recover_session`, reported in `recovered`); a compaction
appended by another run since the plan ends the run with "nothing to compact" (`writer.CompactedMeanwhile`).
A cancel (`CancelToken`) or the safety timeout (default 15 min) stops the run at any moment with nothing
written; a "Summary unavailable" fallback is written only with `accept_fallback`. Every step is reported as
an `events.RunEvent` to `emit`; exactly one of `Committed` / `NothingWritten` / `Failed` ends the run.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.figures.forecast.plan import CompactionPlan, PlanOptions, plan_compaction
from inspector.js.jsjson import js_len
from inspector.rules.ruleset import RuleSet, rule_set
from inspector.session.session import EntryChangedOnDisk, open_session
from inspector.write.breaker import CircuitBreaker
from inspector.write.calls import BreakerOpen, RetryPolicy
from inspector.write.events import Committed, Failed, NothingWritten, RunEvent, StageFinished, StageName, StageStarted
from inspector.write.journal import Journal
from inspector.write.lock import LockHeld
from inspector.write.migrate import migrate_session
from inspector.write.preflight import Check, header_version, preflight
from inspector.write.recovery import recover_session
from inspector.write.run_result import RunResult, StageReport
from inspector.write.sessionfile import CURRENT_VERSION, SessionWriteError
from inspector.write.staged import Msg, Stager, synthetic_message
from inspector.write.summarizers.base import CancelToken, ProviderError, Summarizer, SummaryCancelled
from inspector.write.summarizers.keys import ProviderConfig
from inspector.write.summarizers.rule_based import RulesSummarizer
from inspector.write.summary_budget import assemble, body_room, summary_checks
from inspector.write.truncate import HeartbeatSettings
from inspector.write.writer import CompactedMeanwhile, PlanSnapshot, commit_compaction

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem

DEFAULT_TIMEOUT_S = 15 * 60.0


@dataclass
class RunOptions:
    """How to run: the summarizer, plan inputs, custom instructions, write mode, fallback policy, limits."""

    summarizer: Summarizer = field(default_factory=RulesSummarizer)
    plan: PlanOptions = field(default_factory=PlanOptions)
    instructions: str | None = None
    truncate: bool = False
    dry_run: bool = False
    accept_fallback: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    breaker: CircuitBreaker | None = None
    clock: Clock | None = None
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    rng: random.Random | None = None
    lock_timeout_ms: int = 10_000
    rules_id: str | None = None
    """The rule set the session is read and compacted with (None: the default rule set)."""
    refuse_unwritable: bool | None = None
    """Refuse a file this tool cannot write (version 1/2) before any call (None: unless `dry_run`; the CLI's preview
    before "Write it?" sets True)."""
    migrate: bool = False
    """Where a version 1/2 file would be refused, migrate it to version 3 first as pi does on open (`migrate.py`:
    under the lock, after a checkpoint, undoable) and go on."""


class _TimedOut(Exception):
    pass


def _model_of(summarizer: Summarizer) -> dict[str, Any] | None:
    """An LLM summarizer's model in OpenClaw's shape (`ProviderConfig.summary_model`); None for the rules summarizer."""
    config = getattr(summarizer, "config", None)
    return config.summary_model() if isinstance(config, ProviderConfig) else None


def _guard_audits(rules: RuleSet, settings: Any) -> bool:
    """Whether the release's safeguard budgets and audits the summary with its quality guard (2026.9.6, the guard on)."""
    return bool(getattr(settings, "quality_guard", False)) and hasattr(rules.quality, "safeguard_facts")


def _guard_check(rules: RuleSet, settings: Any, config: dict[str, Any] | None) -> Check | None:
    """`guard`: the release's quality guard, on or off, the retries a failing summary gets and what a summary still
    failing does (2026.9.6: `rules.quality.guard_note`; None for a release without one)."""
    note = getattr(rules.quality, "guard_note", None)
    if note is None:
        return None
    return Check("guard", True, note(bool(getattr(settings, "quality_guard", False)), rules.quality.configured_max_retries(config)))


class _Refused(Exception):
    """A blocking check failed before any call."""

    def __init__(self, check: Check) -> None:
        super().__init__(check.detail)
        self.check = check


def _estimate_tokens_after(rules: RuleSet, plan: CompactionPlan, summary: str) -> int:
    """The rules' `estimateTokens` of the compaction summary message (chars/4) plus the kept tail's estimate."""
    kept = sum(r.tokens for r in plan.rows if r.plan == "kept")
    return math.ceil(len(summary) / rules.tokens.CHARS_PER_TOKEN_ESTIMATE) + kept


class _Run:
    def __init__(self, path: Path, options: RunOptions, emit: Callable[[RunEvent], None], cancel: CancelToken) -> None:
        self.path = path
        self.o = options
        self.emit = emit
        self.cancel = cancel
        self.clock = options.clock or SystemClock()
        self.timed_out = False
        self.result = RunResult(str(path), "failed", summarizer=options.summarizer.name, model=options.summarizer.model)
        self.stage_total = 0
        self.stage_index = 0
        self.stager: Stager | None = None

    # ------------------------------------------------------------------ stage bookkeeping
    def _start(self, stager: Stager | None, stage: StageName, label: str, calls: int, tokens_in: int = 0) -> float:
        if stager is not None:
            stager.begin(stage, calls)
        self.stage_index += 1
        self.emit(StageStarted(at_ms=now_ms(self.clock), stage=stage, index=self.stage_index, total=self.stage_total,
                               label=label, calls=calls, tokens_in=tokens_in))
        return time.monotonic()

    def _finish(self, stager: Stager | None, stage: StageName, started: float, status: Any = "done", detail: str = "") -> None:
        st = stager.stats if stager is not None else None
        elapsed = int((time.monotonic() - started) * 1000)
        if st is not None and st.fallbacks and status == "done":
            status = "fallback"
        rep = StageReport(stage, status, st.calls if st else 0, st.tokens_in if st else 0, st.tokens_out if st else 0, elapsed,
                          st.retries if st else 0, list(st.fallbacks) if st else [], detail)
        self.result.stages.append(rep)
        self.emit(StageFinished(at_ms=now_ms(self.clock), stage=stage, status=status, tokens_in=rep.tokens_in,
                                tokens_out=rep.tokens_out, elapsed_ms=elapsed, detail=detail))

    # ------------------------------------------------------------------ the run
    def run(self) -> RunResult:
        self.result.checks = preflight(self.path, self.o.summarizer)
        refuse_version = self.o.refuse_unwritable if self.o.refuse_unwritable is not None else not self.o.dry_run
        if refuse_version and self.o.migrate and (header_version(self.path) or CURRENT_VERSION) < CURRENT_VERSION:
            self.result.migration = migrate_session(self.path, clock=self.clock, lock_timeout_ms=self.o.lock_timeout_ms)
            self.result.checks = preflight(self.path, self.o.summarizer)
        for check in self.result.checks:
            if check.blocking and not check.ok and (check.name != "version" or refuse_version):
                raise _Refused(check)
        if not self.o.dry_run and Journal().needs_recovery(self.path):
            self.result.recovered = recover_session(self.path, clock=self.clock, lock_timeout_ms=self.o.lock_timeout_ms)
        session = open_session(self.path, self.o.rules_id)
        self.rules = R = rule_set(session.rules_id)
        snapshot = PlanSnapshot.of(self.path)
        self.result.snapshot = snapshot
        ctx = session.context()
        plan = plan_compaction(session, ctx, self.o.plan)
        self.result.tokens_before = plan.tokens_before
        if plan.nothing_to_plan is not None:
            return self._nothing(f"nothing to compact: {plan.nothing_to_plan.reason}")
        assert plan.first_kept_entry_id is not None
        if plan.boundary_only:
            self.stage_total = 2
            t = self._start(None, "assembly", "boundary summary (nothing real to summarize; no model call)", 0)
            summary = plan.boundary_summary or R.prompts.build_structured_fallback_summary(plan.previous_summary if isinstance(plan.previous_summary, str) else None)
            self._finish(None, "assembly", t, detail="boundary")
            return self._commit(plan, snapshot, summary, None)
        summary, details = self._summarize(session, ctx, plan)
        return self._commit(plan, snapshot, summary, details)

    def _nothing(self, reason: str, summary_chars: int = 0) -> RunResult:
        self.result.status = "nothing_written"
        self.result.reason = reason
        self.emit(NothingWritten(at_ms=now_ms(self.clock), reason=reason, summary_chars=summary_chars))
        return self.result

    def _messages(self, session: Any, path: list[int], items: list[SummaryItem]) -> list[Msg]:
        out = []
        for it in items:
            if it.entry_index is None:
                out.append(Msg(it, synthetic_message(self.rules, it)))
            else:
                out.append(Msg(it, session.load_message(session.entries[it.entry_index]) or {}))
        return out

    def _summarize(self, session: Any, ctx: Any, plan: CompactionPlan) -> tuple[str, dict[str, Any]]:
        R = self.rules
        s = plan.settings
        prep = plan.preparation if plan.preparation is not None else R.prepare.prepare_compaction(session, ctx, s.compaction_settings())
        if isinstance(prep, R.prepare.NothingToPlan):  # pragma: no cover - the plan saw the same file
            raise SessionWriteError(prep.reason)
        window = int(plan.context_window["tokens"])
        reserve = max(1, math.floor(s.reserve_tokens))
        all_items = R.items.items_for_positions(session, ctx.path, prep.summarize_pos)
        prefix_items = R.items.items_for_positions(session, ctx.path, prep.turn_prefix_pos)
        all_msgs = self._messages(session, ctx.path, all_items)
        by_id = {id(m.item): m for m in all_msgs}
        prefix_msgs = self._messages(session, ctx.path, prefix_items)
        structured = R.prompts.safeguard_structured_instructions(self.o.instructions)
        previous = plan.previous_summary if isinstance(plan.previous_summary, str) else None
        stager = Stager(self.o.summarizer, self.path, self.emit, self.clock, self.cancel, window, reserve, R,
                        thinking_level=R.prompts.compaction_thinking_level(self.o.plan.config, ctx.thinking_level, model=_model_of(self.o.summarizer)),
                        breaker=self.o.breaker, retry_policy=self.o.retry_policy, rng=self.o.rng or random.Random())
        self.stager = stager
        tool_failures = R.assembly.format_tool_failures_section([m.message for m in all_msgs + prefix_msgs])
        file_ops = R.assembly.format_file_operations(plan.read_files, plan.modified_files)

        hs = plan.history_share
        kept_items = all_items
        dropped_msgs: list[Msg] = []
        if hs is not None and hs.applies:
            pruned = R.safeguard.prune_history_for_context_share(all_items, window, s.max_history_share, 2)
            if pruned.dropped_chunks > 0:
                kept_items = pruned.messages
                dropped_msgs = [by_id[id(it)] for it in pruned.dropped if id(it) in by_id]
        for it in kept_items:
            if id(it) not in by_id:
                by_id[id(it)] = Msg(it, synthetic_message(self.rules, it))
        split = R.safeguard.split_preserved_recent_turns(kept_items, s.recent_turns_preserve)
        for it in split.summarizable:
            if id(it) not in by_id:
                by_id[id(it)] = Msg(it, synthetic_message(self.rules, it))
        preserved = [by_id[id(it)].message for it in split.preserved]
        summarizable = [by_id[id(it)] for it in split.summarizable]
        kept_msgs = [by_id[id(it)].message for it in kept_items]
        facts = R.quality.safeguard_facts(kept_msgs, [m.message for m in prefix_msgs], prep.is_split_turn) if _guard_audits(R, s) else None
        if facts is not None and R.quality.summarizes_recent_turns(facts, len(summarizable), R.assembly.format_preserved_turns_section(preserved).text):
            summarizable = [by_id[id(it)] for it in kept_items]  # 2026.9.6's guard: the latest ask's turns summarized too
        budget = body_room(R, preserved, tool_failures, file_ops)
        prefix_budget = max(600, budget // 3) if prep.is_split_turn and prefix_msgs and budget else None
        split_room = prefix_budget + js_len(R.assembly.SPLIT_TURN_HEADING) + 8 if prefix_budget else 0
        stager.max_chars = max(200, budget - split_room) if budget else None  # 0: the assembly keeps none of it
        if facts is not None and budget:  # 2026.9.6's guard: the room its retention plan leaves the summary whole
            body_chars, stager.section_max_chars = R.quality.guard_room(facts, budget - split_room)
            stager.max_chars = max(200, body_chars)
        max_chunk = plan.chunking.max_chunk_tokens if plan.chunking else max(1, window // 2)
        parts = stager.plan_parts(summarizable, max_chunk)
        do_prefix = prep.is_split_turn and bool(prefix_msgs)
        self.stage_total = (1 if dropped_msgs else 0) + (2 if parts else 1) + (1 if do_prefix else 0) + 2

        dropped_summary: str | None = None
        if dropped_msgs:
            dmax = hs.dropped_chunking.max_chunk_tokens if hs is not None and hs.dropped_chunking else max_chunk
            t = self._start(stager, "history_share", f"summary of {len(dropped_msgs)} messages dropped by the history share",
                            stager.count_chunks(dropped_msgs, dmax), sum(m.item.tokens for m in dropped_msgs))
            dropped_summary = self._in_stages(stager, dropped_msgs, structured, previous, dmax, "dropped", t, "history_share")
        effective_previous = dropped_summary if dropped_summary is not None else previous

        if not summarizable:
            history = R.prompts.build_structured_fallback_summary(effective_previous)
            t = self._start(stager, "chunks", "no messages left to summarize: structured fallback", 0)
            self._finish(stager, "chunks", t, "skipped", "structured fallback summary")
        else:
            history = self._in_stages(stager, summarizable, structured, effective_previous, max_chunk, "history", None, "chunks", parts)

        prefix_summary: str | None = None
        if do_prefix:
            stager.max_chars, stager.section_max_chars = prefix_budget, None
            pmax = max_chunk
            t = self._start(stager, "split_turn_prefix", f"prefix of the split turn ({len(prefix_msgs)} messages)",
                            stager.count_chunks(prefix_msgs, pmax), sum(m.item.tokens for m in prefix_msgs))
            text = self._in_stages(stager, prefix_msgs, R.prompts.compose_split_turn_instructions(R.prompts.TURN_PREFIX_INSTRUCTIONS, structured), None,
                                   pmax, "turn_prefix", t, "split_turn_prefix")
            prefix_summary = text

        t = self._start(None, "assembly", "recent turns, tool failures, file lists; 16000-character cap", 0)
        quality = facts.retention(R.assembly.unbudgeted_summary(history, prefix_summary)) if facts is not None else None
        assembled = assemble(R, history, prefix_summary, preserved, tool_failures, file_ops, quality)
        summary = assembled.written
        self._finish(None, "assembly", t, detail=f"{len(summary)} characters" + (", appended sections budgeted" if assembled.budgeted else ""))
        self.result.checks += summary_checks(R, history, prefix_summary, assembled, [m.message for m in summarizable], kept_msgs,
                                             [m.message for m in prefix_msgs], prep.is_split_turn, _guard_check(R, s, self.o.plan.config),
                                             facts is not None or not hasattr(R.quality, "guard_note"))
        self.result.fallback_summary = stager.unavailable
        return summary, {"readFiles": plan.read_files, "modifiedFiles": plan.modified_files}

    def _in_stages(self, stager: Stager, msgs: list[Msg], instructions: str, previous: str | None, max_chunk: int, purpose: Any,
                   started: float | None, stage: StageName, parts: list[list[Msg]] | None = None) -> str:
        """`summarizeInStages`, with a stage event around each step (under rules that re-distill the previous
        summary, 2026.9, it is a first message of the stage: `prompts.previous_summary_message`)."""
        redistill = getattr(self.rules.prompts, "previous_summary_message", None)
        if redistill is not None:
            first = redistill(previous)
            previous = None
            if first is not None:
                msgs = [Msg(self.rules.items.item_for_message(first, 0), first), *msgs]
                parts = stager.plan_parts(msgs, max_chunk)
        if parts is None and stage != "chunks":
            parts = stager.plan_parts(msgs, max_chunk)
        if not parts:
            if started is None:
                started = self._start(stager, stage, f"{len(msgs)} messages in {stager.count_chunks(msgs, max_chunk)} chunk(s)",
                                      stager.count_chunks(msgs, max_chunk), sum(m.item.tokens for m in msgs))
            text = self._guard(stager, stage, started, lambda: stager.summarize_with_fallback(msgs, instructions, previous, max_chunk, purpose))
            self._finish(stager, stage, started)
            return text
        if started is not None:
            self._finish(stager, stage, started, detail=f"staged in {len(parts)} parts")
        calls = sum(stager.count_chunks(p, max_chunk) for p in parts)
        t = self._start(stager, "parts", f"{len(parts)} token-share parts, {calls} chunk call(s)", calls, sum(m.item.tokens for m in msgs))
        summaries = []
        for part in parts:

            def summarize_part(part: Any = part) -> str:
                return stager.summarize_with_fallback(part, instructions, None, max_chunk, purpose)

            summaries.append(self._guard(stager, "parts", t, summarize_part))
        self._finish(stager, "parts", t)
        if len(summaries) == 1:
            return summaries[0]
        t = self._start(stager, "merge", f"merge of {len(summaries)} part summaries", 1)
        text = self._guard(stager, "merge", t, lambda: stager.merge(summaries, instructions, previous, max_chunk, parts))
        self._finish(stager, "merge", t)
        return text

    def _guard(self, stager: Stager, stage: StageName, started: float, fn: Callable[[], str]) -> str:
        try:
            return fn()
        except (SummaryCancelled, BreakerOpen, ProviderError) as exc:
            status = "cancelled" if isinstance(exc, SummaryCancelled) else "failed"
            self._finish(stager, stage, started, status, "timed out" if self.timed_out else str(exc))
            raise

    def _commit(self, plan: CompactionPlan, snapshot: PlanSnapshot, summary: str, details: dict[str, Any] | None) -> RunResult:
        assert plan.first_kept_entry_id is not None
        self.result.tokens_after = _estimate_tokens_after(self.rules, plan, summary)
        entry: dict[str, Any] = {"type": "compaction", "summary": summary, "firstKeptEntryId": plan.first_kept_entry_id,
                                 "tokensBefore": plan.tokens_before}
        if details is not None:
            entry["details"] = details
        entry["fromHook"] = True
        self.result.entry = entry
        if self.result.fallback_summary and not self.o.accept_fallback:
            return self._nothing("the summary is OpenClaw's \"Summary unavailable\" fallback; not written without accept_fallback", len(summary))
        if self.o.dry_run:
            self.result.status = "dry_run"
            self.result.reason = "dry run: nothing written"
            self.emit(NothingWritten(at_ms=now_ms(self.clock), reason=self.result.reason, summary_chars=len(summary)))
            return self.result
        self.cancel.raise_if_cancelled()
        self.stage_index = self.stage_total - 1
        t = self._start(None, "commit", "truncate: rewrite after a checkpoint" if self.o.truncate else "append one compaction entry", 0)
        res = commit_compaction(self.path, summary, plan.first_kept_entry_id, plan.tokens_before or 0, details, from_hook=True,
                                truncate=self.o.truncate, since=snapshot, clock=self.clock, lock_timeout_ms=self.o.lock_timeout_ms,
                                heartbeat=HeartbeatSettings.from_config(self.o.plan.config, self.rules))
        self._finish(None, "commit", t, detail=res.mode)
        self.result.commit = res
        self.result.status = "committed"
        self.result.entry = {"type": "compaction", "id": res.entry_id, "parentId": res.parent_id, "timestamp": res.timestamp, **{
            k: v for k, v in entry.items() if k != "type"}}
        self.emit(Committed(at_ms=now_ms(self.clock), path=str(self.path), entry_id=res.entry_id, mode=res.mode,
                            tokens_before=res.tokens_before, summary_chars=len(summary), result=res.to_json()))
        return self.result


def run_compaction(
    path: Path | str,
    options: RunOptions | None = None,
    emit: Callable[[RunEvent], None] = lambda e: None,
    cancel: CancelToken | None = None,
) -> RunResult:
    """Run one compaction of `path` (see the module docstring); never raises for a failed run (see `status`)."""
    options = options or RunOptions()
    cancel = cancel or CancelToken()
    run = _Run(Path(path), options, emit, cancel)
    timer: threading.Timer | None = None
    if options.timeout_s and options.timeout_s > 0:

        def expire() -> None:
            run.timed_out = True
            cancel.cancel()

        timer = threading.Timer(options.timeout_s, expire)
        timer.daemon = True
        timer.start()
    try:
        return run.run()
    except SummaryCancelled:
        if run.timed_out:
            return _failed(run, "timeout", f"the run took longer than the safety timeout ({options.timeout_s:g} s); nothing written")
        return run._nothing("cancelled: nothing written")
    except _Refused as exc:
        return _failed(run, "preflight", f"{exc.check.detail}; nothing summarized, nothing written")
    except BreakerOpen as exc:
        made = run.stager.requests if run.stager is not None else 0
        if made:
            return _failed(run, "breaker", f"{exc}; {made} summary request{'s were' if made != 1 else ' was'} made in this run before it opened; nothing written")
        return _failed(run, "breaker", f"{exc}; no request was made and nothing written")
    except ProviderError as exc:
        if run.timed_out:
            return _failed(run, "timeout", f"the run took longer than the safety timeout ({options.timeout_s:g} s); nothing written")
        return _failed(run, "summarize", f"{exc.message}; nothing written", exc.to_json())
    except LockHeld as exc:
        return _failed(run, "commit", f"{exc.hint}; nothing written")
    except CompactedMeanwhile as exc:
        return run._nothing(str(exc))
    except EntryChangedOnDisk as exc:
        return _failed(run, "commit", f"{run.path}: the session file changed during the compaction ({exc}: another program rewrote "
                                      "or truncated it while it was read); nothing written. Run compact again once nothing else "
                                      "rewrites the file.")
    except (SessionWriteError, OSError, ValueError) as exc:
        return _failed(run, "commit", str(exc))
    finally:
        if timer is not None:
            timer.cancel()


def forecast_checks(session: Any, ctx: Any, plan: CompactionPlan, options: PlanOptions | None = None, rules: RuleSet | None = None) -> list[Check]:
    """The checks of the summary `compact` would write for `plan` of `session` (`summary_budget.summary_checks`: the
    release's cap, our budget, the quality guard), computed as a run computes them, with the offline `rules` summarizer
    and nothing written: what `plan` and the app's forecast show. None to check (nothing to plan, a boundary entry
    only): []. `rules`: the plan's (None: the session's)."""
    if plan.nothing_to_plan is not None or plan.boundary_only:
        return []
    run = _Run(Path(session.path), RunOptions(plan=options or PlanOptions(), dry_run=True), lambda e: None, CancelToken())
    run.rules = rules or rule_set(session.rules_id)
    run._summarize(session, ctx, plan)
    return run.result.checks


def _failed(run: _Run, stage: str, message: str, error: dict[str, Any] | None = None) -> RunResult:
    run.result.status = "failed"
    run.result.reason = message
    run.result.error = error or {}
    run.emit(Failed(at_ms=now_ms(run.clock), stage=stage, message=message, error=error or {}))
    return run.result
