"""The compaction screen's texts: the headline of each phase, the plan, and the before/after view of a summary.

Every figure is the engine's: the plan's rows (`inspector.figures.forecast.plan.ContextRole`: what is summarized,
what is kept) and the run's result (`inspector.write.runner.RunResult`: the entry, `tokens_after`). These functions
only format. The summary, reasons and file names are untrusted: they go through `make_inert` into `Text`, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from inspector.base.textsafe import make_inert
from inspector.figures.forecast.plan import CompactionPlan
from inspector.write.runner import RunResult

SUMMARIZED_PLANS = ("previous_summary", "summarized", "turn_prefix")


def _inert(text: object) -> str:
    return make_inert(str(text), keep_newlines=False)


@dataclass(frozen=True)
class Share:
    """Some context messages: how many, their tokens, their first and last line."""

    messages: int
    tokens: int
    first_line: int | None
    last_line: int | None

    @classmethod
    def of(cls, plan: CompactionPlan, kinds: tuple[str, ...]) -> Share:
        rows = [r for r in plan.rows if r.plan in kinds]
        return cls(len(rows), sum(r.tokens for r in rows), rows[0].line if rows else None, rows[-1].line if rows else None)

    def text(self) -> str:
        lines = f" (lines {self.first_line:,}–{self.last_line:,})" if self.first_line is not None and self.last_line is not None else ""
        return f"{self.messages:,} message(s) · {self.tokens:,} tokens{lines}"


def plan_text(plan: CompactionPlan) -> Text:
    """What the plan summarizes and keeps, before anything runs (the status line first)."""
    out = Text()
    out.append("Plan\n", style="bold")
    if plan.nothing_to_plan is not None:
        out.append("nothing to compact: ", style="bold")
        out.append(_inert(plan.nothing_to_plan.reason))
        return out
    out.append("summarized  ", style="dim")
    out.append(Share.of(plan, SUMMARIZED_PLANS).text() + "\n")
    out.append("kept        ", style="dim")
    out.append(Share.of(plan, ("kept",)).text())
    out.append(f"\ncut before line {plan.first_kept_line or 0:,} · {plan.tokens_before or 0:,} tokens before", style="dim")
    if plan.is_split_turn:
        out.append(f" · split turn ({len(plan.turn_prefix_messages)} in its prefix)", style="dim")
    calls = "0 (boundary summary)" if plan.boundary_only else str(plan.llm_calls)
    out.append(f"\nmodel calls {calls} · {len(plan.stages)} stage(s)", style="dim")
    return out


def before_after_text(plan: CompactionPlan, result: RunResult) -> Text:
    """Before: the context, what is summarized, what is kept. After: the summary and the same kept messages. Then
    the summary itself, exactly as it is (to be) written."""
    entry = result.entry or {}
    summary = str(entry.get("summary", ""))
    summarized, kept = Share.of(plan, SUMMARIZED_PLANS), Share.of(plan, ("kept",))
    out = Text()
    out.append("Before ", style="bold")
    out.append(f"{plan.context_tokens:,} tokens in context\n")
    out.append("  summarized  ", style="dim")
    out.append(summarized.text() + "\n")
    out.append("  kept        ", style="dim")
    out.append(kept.text() + "\n")
    out.append("After  ", style="bold")
    after = result.tokens_after
    out.append((f"~{after:,} tokens" if after is not None else "?") + "\n")
    out.append("  summary     ", style="dim")
    summary_tokens = f" · ~{after - kept.tokens:,} tokens" if after is not None else ""
    out.append(f"{len(summary):,} characters{summary_tokens}\n")
    out.append("  kept        ", style="dim")
    out.append(f"the same {kept.messages:,} message(s), from line {plan.first_kept_line or 0:,}\n")
    if result.fallback_summary:
        out.append("  the summary is OpenClaw's \"Summary unavailable\" fallback\n", style="bold yellow")
    out.append("\nSummary", style="bold")
    out.append(f" (firstKeptEntryId {_inert(entry.get('firstKeptEntryId'))})\n", style="dim")
    out.append(make_inert(summary))
    return out


def headline_text(phase: str, *, file: str, result: RunResult | None = None, after_tokens: int | None = None,
                  note: str | None = None, truncate: bool = False) -> Text:
    """The line at the top of the screen: what the screen is doing and what the keys do now (see `CompactRunScreen`)."""
    out = Text()
    write = "truncate (checkpoint copy, then rewrite)" if truncate else "append one compaction entry"
    if phase == "setup":
        out.append("Compact ", style="bold")
        out.append(_inert(file), style="bold")
        out.append("? ", style="bold")
        out.append("enter: summarize and preview (nothing is written yet) · tab: summarizer · esc: close", style="dim")
    elif phase == "running":
        out.append("Summarizing… ", style="bold")
        out.append("esc: cancel (nothing is written)", style="dim")
    elif phase == "preview":
        out.append("Preview: nothing written yet. ", style="bold")
        out.append(f"enter: write it ({write}) · esc: back", style="dim")
    elif phase == "writing":
        out.append("Writing…", style="bold")
    elif phase == "done" and result is not None and result.status == "committed":
        entry_id = result.commit.entry_id if result.commit is not None else "?"
        out.append(f"Committed {_inert(entry_id)}: ", style="bold green")
        after = f"~{after_tokens:,}" if after_tokens is not None else "?"
        out.append(f"tokens before {result.tokens_before or 0:,} → after {after}", style="bold green")
        out.append("\nu: undo · o: open the compacted file · esc: close", style="dim")
    elif phase == "undone":
        out.append(_inert(note or "undone"), style="bold")
        out.append("\nesc: close", style="dim")
    else:
        status = result.status if result is not None else "failed"
        reason = result.reason if result is not None else (note or "")
        out.append(_inert(f"Nothing written ({status}): {reason}"), style="bold red")
        out.append("\nenter: try again · r: reset the breaker · esc: close", style="dim")
    if note and phase != "undone":
        out.append("\n" + _inert(note), style="yellow")
    return out
