"""The steps a compaction run executes, in order, as the forecast predicts them.

Safeguard mode (OpenClaw 2026.4 `compactionSafeguardExtension`): an optional compaction provider, the
history-share prune and the summary of what it dropped, the preserved recent turns, the history summary
(token-share parts → chunks → merge), the split-turn prefix summary, the optional quality guard, and the
assembly (split-turn context, preserved turns, tool failures, file lists, workspace rules; 16000 chars
at most). When nothing real is left to summarize, a single boundary step. Default mode (pi 0.66.1 `compact`):
one history summary call, one turn-prefix call when a turn is split, then the file lists appended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.rules.openclaw_2026_4_12.compaction.chunking import Chunking

MAX_COMPACTION_SUMMARY_CHARS = 16000


@dataclass(frozen=True, slots=True)
class Stage:
    """One step of the run. `llm_calls` is what it costs (0: no model call); `positions` index `input`."""

    name: str
    label: str
    llm_calls: int = 0
    input: str | None = None
    part: int | None = None
    chunk: int | None = None
    tokens: int | None = None
    positions: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "llm_calls": self.llm_calls,
            "input": self.input,
            "part": self.part,
            "chunk": self.chunk,
            "tokens": self.tokens,
            "positions": self.positions,
        }


def summary_stages(name: str, what: str, chunking: Chunking) -> list[Stage]:
    """One stage per chunk call, then the merge of the part summaries when the input is staged."""
    out = []
    for c in chunking.chunks:
        where = f"part {c.part + 1}, " if c.part is not None else ""
        n = len(c.positions) + c.synthetic_tool_results
        out.append(
            Stage(
                name,
                f"{what}: {where}chunk {c.index + 1}/{len(chunking.chunks)} ({n} messages, {c.tokens:,} tokens)",
                1,
                chunking.input,
                c.part,
                c.index,
                c.tokens,
                list(c.positions),
            )
        )
    if chunking.staged:
        out.append(Stage(f"{name}_merge", f"{what}: merge {len(chunking.token_share_parts)} part summaries", 1, chunking.input))
    return out


@dataclass(slots=True)
class StageInputs:
    """What `build_stages` needs to know about the plan."""

    mode: str
    boundary_only: bool
    provider: str | None
    is_split_turn: bool
    history: Chunking
    turn_prefix: Chunking | None
    dropped: Chunking | None
    dropped_count: int
    preserved_count: int
    quality_guard: bool
    reserve_tokens: int
    has_file_ops: bool
    has_previous_summary: bool
    summarize_count: int = 0
    summarize_tokens: int = 0


def build_stages(s: StageInputs) -> list[Stage]:
    """The ordered steps of the run for this plan."""
    if s.mode != "safeguard":
        return _default_stages(s)
    if s.boundary_only:
        return [
            Stage(
                "boundary",
                "nothing real to summarize: a boundary compaction with the structured fallback summary is written "
                "(no LLM call), so the trigger does not loop",
            )
        ]
    out: list[Stage] = []
    if s.provider:
        out.append(Stage("provider", f"compaction provider {s.provider!r} summarizes all messages first; the steps below run if it fails or returns nothing"))
    if s.dropped is not None and s.dropped_count:
        out.append(
            Stage(
                "history_share_prune",
                f"history-share prune: {s.dropped_count} oldest messages dropped from the summary input, summarized separately",
                0,
                s.dropped.input,
            )
        )
        out.extend(summary_stages("dropped_history_summary", "summary of the dropped history", s.dropped))
    if s.preserved_count:
        out.append(Stage("preserve_recent_turns", f"{s.preserved_count} messages of the recent turns kept verbatim (not summarized)"))
    if s.history.message_count:
        out.extend(summary_stages("history_summary", "history summary", s.history))
    else:
        out.append(Stage("history_summary", "no history left to summarize: the structured fallback summary (no LLM call)", 0, s.history.input))
    if s.is_split_turn and s.turn_prefix is not None and s.turn_prefix.message_count:
        out.extend(summary_stages("split_turn_prefix", "split-turn prefix summary", s.turn_prefix))
    if s.quality_guard:
        out.append(Stage("quality_guard", "quality guard: headings, identifiers and the latest ask checked; regenerated on failure"))
    out.append(
        Stage(
            "assembly",
            "assembly: summary, split-turn context, preserved turns, tool failures, file lists, workspace rules "
            f"(at most {MAX_COMPACTION_SUMMARY_CHARS:,} chars; the body is cut first)",
        )
    )
    return out


def _default_stages(s: StageInputs) -> list[Stage]:
    """pi's own `compact()`: one call for the history, one for the turn prefix, file lists appended."""
    max_tokens = int(0.8 * s.reserve_tokens)
    out: list[Stage] = []
    h = s.history
    split = s.is_split_turn and s.turn_prefix is not None and s.turn_prefix.message_count > 0
    if split and not s.summarize_count:
        out.append(Stage("history_summary", "no history: \"No prior history.\" (no LLM call)", 0, h.input))
    else:
        prev = " with the previous summary (update prompt)" if s.has_previous_summary else ""
        out.append(
            Stage(
                "history_summary",
                f"pi generateSummary over {s.summarize_count} messages ({s.summarize_tokens:,} tokens){prev}, "
                f"output at most {max_tokens:,} tokens",
                1,
                h.input,
                tokens=s.summarize_tokens,
            )
        )
    if split and s.turn_prefix is not None:
        out.append(
            Stage(
                "split_turn_prefix",
                f"pi turn-prefix summary over {s.turn_prefix.message_count} messages, output at most {int(0.5 * s.reserve_tokens):,} tokens",
                1,
                s.turn_prefix.input,
                tokens=s.turn_prefix.total_tokens,
            )
        )
    files = " and the <read-files>/<modified-files> lists" if s.has_file_ops else ""
    out.append(Stage("assembly", f"assembly: history summary, split-turn context{files}"))
    return out
