"""The selected call's figures: what was sent (recorded), what the transcript holds (derived), cache, cost, and
why it is marked (a jump and its causes, a threshold first crossed, a cache write after a TTL expiry, a compaction
or branch before it).

The figures are the call's `CallPoint.to_json()` (the row `timeline --json` prints) and the engine's `Jump`,
`ThresholdCrossing` and `ExpiryWrite` objects for that call; this widget only lays them out.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from inspector.base.durations import format_duration_ms
from inspector.base.textsafe import one_line
from inspector.figures.diagnosis.timeline import Timeline

from ..transcript.previews import role_icon
from .texts import percent, signed, tokens, usd

CAUSES_SHOWN = 5
COST_SOURCES = {"recorded": "recorded usage.cost", "price_table": "bundled price table"}
MARKER_LABELS = {"compaction": "compaction", "branch_summary": "branch summary", "branch_point": "branch point"}


class CallFigures(Static):
    """Every figure of one call of a `Timeline`."""

    DEFAULT_CSS = """
    CallFigures {
        height: auto;
        padding: 0 1;
    }
    """

    def show_call(self, timeline: Timeline, index: int, notes: bool = True) -> None:
        """Lay out call `index` of `timeline` (`notes` False: without the notes column, for a narrow panel)."""
        self.update(call_figures(timeline, index, notes))


def call_figures(timeline: Timeline, index: int, notes: bool = True) -> Group:
    """The renderable for call `index`: a figures table, then its marks (jump causes, thresholds, expiry, markers)."""
    call = timeline.calls[index]
    row = call.to_json()
    n = len(timeline.calls)
    title = Text()
    title.append(f"Call {index} of {n} ", style="bold")
    title.append(f"· line {call.line} · {one_line(call.entry_id or '?', 16)}", style="dim")
    parts: list[Text | Table] = [title]
    if row["request_at"]:
        parts.append(Text(f"request {row['request_at']}", style="dim"))
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    if notes:
        table.add_column()

    def _row(table: Table, label: str, value: str, note: str = "") -> None:
        cells = [Text(label, style="bold"), Text(value)] + ([Text(note, style="dim")] if notes else [])
        table.add_row(*cells)

    _row(table, "prompt", tokens(call.prompt_tokens), "recorded")
    _row(table, "  input", tokens(call.input))
    _row(table, "  cache read", tokens(call.cache_read))
    _row(table, "  cache write", tokens(call.cache_write))
    if index:
        previous = timeline.calls[index - 1]
        _row(table, "  Δ previous", signed(call.prompt_tokens - previous.prompt_tokens))
    _row(table, "transcript", tokens(call.transcript_estimate), f"{timeline.attribution.estimator}, {call.context_messages:,} msgs")
    if call.transcript_tokens is not None:
        _row(table, "  tokenizer", tokens(call.transcript_tokens), "tiktoken")
    _row(table, "not in transcr.", tokens(call.not_in_transcript), "derived")
    if call.overhead_tokens is not None:
        _row(table, "  overhead", tokens(call.overhead_tokens), "outside the transcript")
        _row(table, "  estimator err.", signed(call.estimator_error_tokens or 0), "by the tokenizer")
    _row(table, "output", tokens(call.output_tokens), "recorded")
    _row(table, "cache hit", percent(row["cache_hit_ratio"], 0), "cache read / prompt")
    _row(table, "cost", usd(call.cost.total), COST_SOURCES.get(call.cost.source, "unpriced model"))
    _row(table, "added", tokens(row["added_tokens"]), f"pi tok in {row['added_messages']:,} new msgs")
    if call.gap_ms is not None:
        _row(table, "gap", format_duration_ms(call.gap_ms), "since the previous call")
    parts.append(table)
    parts.extend(_marks(timeline, index))
    return Group(*parts)


def _marks(timeline: Timeline, index: int) -> list[Text]:
    out: list[Text] = []
    for marker in timeline.walk.markers:
        if marker.before_call == index:
            out.append(Text(f"│ {MARKER_LABELS.get(marker.kind, marker.kind)} before this call (line {marker.line})", style="bold"))
    for crossing in timeline.thresholds:
        if crossing.call_index == index:
            out.append(Text(f"▲ first above {crossing.name} ({tokens(crossing.tokens)} tok, {percent(crossing.fraction, 0)} of the window)", style="bold"))
    for write in timeline.cache.expiry_writes:
        if write.call_index == index:
            out.append(
                Text(
                    f"cache expired: {format_duration_ms(write.gap_ms)} idle > TTL {format_duration_ms(timeline.cache.ttl_ms)}; "
                    f"{tokens(write.rewritten_tokens)} tok written again, {usd(write.cost)}",
                    style="bold",
                )
            )
    for rank, jump in enumerate(timeline.jumps, 1):
        if jump.call_index != index:
            continue
        head = Text(f"Jump #{rank} of {len(timeline.jumps)}: {signed(jump.delta_tokens)} tok", style="bold")
        if jump.across_compaction:
            head.append(" (across a compaction)", style="dim")
        out.append(head)
        if not jump.causes:
            out.append(Text("  nothing in the transcript was added: the growth is outside it", style="dim"))
        for cause in jump.causes[:CAUSES_SHOWN]:
            label = one_line(cause.tool_name or cause.role, 18)
            out.append(Text(f"  {role_icon(cause.role)} {label:<18} line {cause.line:<6} {tokens(cause.pi_tokens):>8} tok"))
        if len(jump.causes) > CAUSES_SHOWN:
            out.append(Text(f"  … {len(jump.causes) - CAUSES_SHOWN} more", style="dim"))
        out.append(Text(f"  the transcript explains {tokens(jump.explained_tokens)} of {tokens(jump.delta_tokens)} tok · x: show the largest", style="dim"))
    return out
