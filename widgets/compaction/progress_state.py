"""What the run view shows, folded from the runner's events (`inspector.write.events`), and its rendering.

`RunProgress.apply(event)` keeps one row per stage (status, calls, tokens in/out, elapsed, ETA, retries,
fallbacks), the streamed summary text (its tail), the last `MAX_NOTES` notes, and the outcome. `render_progress`
and `render_breaker` turn it and a `CircuitStatus` into Rich renderables; every piece of session or provider
text goes through `Text` (never markup) and `make_inert` (a server's escape sequences are shown, not obeyed), and
notes are cut to `NOTE_CHARS`: what is kept and drawn is bounded whatever a server sends. No logic of the run
lives here: the runner decided everything the events say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from inspector.base.textsafe import cut, make_inert
from inspector.write.breaker import CircuitStatus
from inspector.write.events import RunEvent

STREAM_TAIL_CHARS = 1200
MAX_NOTES = 50
NOTE_CHARS = 500
NARROW_TABLE_WIDTH = 100
"""Below this many columns the stage table drops its ETA, retries and fallbacks columns (`render_progress`)."""


@dataclass
class StageRow:
    """One stage as displayed."""

    stage: str
    label: str = ""
    status: str = "running"
    done: int = 0
    total: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    elapsed_ms: int = 0
    eta_ms: int | None = None
    retries: int = 0
    fallbacks: list[str] = field(default_factory=list)


@dataclass
class RunProgress:
    """The fold of a run's events (see the module docstring)."""

    rows: list[StageRow] = field(default_factory=list)
    streamed: str = ""
    outcome: str | None = None
    """`committed`, `nothing_written` or `failed` once the run ended."""
    message: str = ""
    entry_id: str | None = None
    notes: list[str] = field(default_factory=list)

    def _row(self, stage: str) -> StageRow:
        for row in reversed(self.rows):
            if row.stage == stage:
                return row
        row = StageRow(stage)
        self.rows.append(row)
        return row

    def _note(self, text: str) -> None:
        self.notes.append(cut(text, NOTE_CHARS))
        del self.notes[:-MAX_NOTES]

    def apply(self, event: RunEvent) -> None:
        """Fold one event in."""
        d: dict[str, Any] = event.to_json()
        kind = d["kind"]
        if kind == "stage_started":
            self.rows.append(StageRow(d["stage"], d["label"], "running", 0, d["calls"], d["tokens_in"]))
        elif kind == "stage_progress":
            row = self._row(d["stage"])
            row.done, row.total, row.tokens_in, row.tokens_out = d["done"], d["total"], d["tokens_in"], d["tokens_out"]
            row.elapsed_ms, row.eta_ms = d["elapsed_ms"], d["eta_ms"]
        elif kind == "stage_finished":
            row = self._row(d["stage"])
            row.status, row.elapsed_ms, row.eta_ms = d["status"], d["elapsed_ms"], None
            if d["tokens_in"] or d["tokens_out"]:
                row.tokens_in, row.tokens_out = d["tokens_in"], d["tokens_out"]
        elif kind == "text_streamed":
            self.streamed = (self.streamed + d["text"][-STREAM_TAIL_CHARS:])[-STREAM_TAIL_CHARS:]
        elif kind == "retry_scheduled":
            self._row(d["stage"]).retries += 1
            self._note(f"retry {d['attempt']}/{d['max_attempts']} in {d['delay_ms']} ms: {d['error']}")
        elif kind == "fallback_used":
            self._row(d["stage"]).fallbacks.append(d["fallback"])
            self._note(f"fallback {d['fallback']}: {d['reason']}")
        elif kind == "breaker_changed":
            self._note(f"circuit {d['provider']}: {d['old']} → {d['new']} ({d['failures']} failures)")
        elif kind == "committed":
            self.outcome, self.entry_id, self.message = "committed", d["entry_id"], f"committed {d['entry_id']} ({d['mode']})"
        elif kind == "nothing_written":
            self.outcome, self.message = "nothing_written", cut(f"nothing written: {d['reason']}", NOTE_CHARS)
        elif kind == "failed":
            self.outcome, self.message = "failed", cut(f"failed: {d['message']}", NOTE_CHARS)


def _secs(ms: int | None) -> str:
    return "" if ms is None else f"{ms / 1000:.1f}s"


def render_progress(state: RunProgress, width: int | None = None, *, outcome: bool = True, streamed: bool = True) -> RenderableType:
    """The stage table, the notes (retries, fallbacks, breaker), the outcome line and the streamed text tail (the
    last two left out with `outcome` / `streamed` False, for a view that shows the result and the summary itself).

    Below `NARROW_TABLE_WIDTH` columns (`width`; None: wide) the table keeps stage, status, calls, tokens and the
    time (the ETA beside it); retries and fallbacks are in the notes under it."""
    narrow = width is not None and width < NARROW_TABLE_WIDTH
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, expand=True)
    style = {"done": "green", "failed": "bold red", "cancelled": "yellow", "fallback": "yellow", "running": "cyan"}
    if narrow:
        for col, justify in (("stage", "left"), ("status", "left"), ("calls", "right"), ("in", "right"), ("out", "right"), ("time", "right")):
            table.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
        for r in state.rows:
            eta = f" ETA {_secs(r.eta_ms)}" if r.eta_ms else ""
            table.add_row(Text(r.stage, overflow="ellipsis"), Text(r.status, style=style.get(r.status, "")), Text(f"{r.done}/{r.total}"),
                          Text(f"{r.tokens_in:,}"), Text(f"{r.tokens_out:,}"), Text(_secs(r.elapsed_ms) + eta))
    else:
        for col, justify in (("stage", "left"), ("status", "left"), ("calls", "right"), ("tokens in", "right"), ("tokens out", "right"),
                             ("elapsed", "right"), ("ETA", "right"), ("retries", "right"), ("fallbacks", "left")):
            table.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
        for r in state.rows:
            table.add_row(Text(r.stage), Text(r.status, style=style.get(r.status, "")), Text(f"{r.done}/{r.total}"), Text(f"{r.tokens_in:,}"),
                          Text(f"{r.tokens_out:,}"), Text(_secs(r.elapsed_ms)), Text(_secs(r.eta_ms)), Text(str(r.retries)),
                          Text(", ".join(r.fallbacks)))
    parts: list[RenderableType] = [table]
    for note in state.notes[-4:]:
        parts.append(Text(make_inert(note, keep_newlines=False), style="yellow"))
    if outcome and state.outcome is not None:
        parts.append(Text(make_inert(state.message, keep_newlines=False), style="bold green" if state.outcome == "committed" else "bold red"))
    if streamed and state.streamed:
        parts.append(Text("streamed summary (tail):", style="dim"))
        parts.append(Text(make_inert(state.streamed)))
    return Group(*parts)


def render_breaker(status: CircuitStatus | None, provider: str) -> RenderableType:
    """The circuit of this session and provider: state, consecutive failures, last error, cooldown countdown."""
    if status is None:
        return Text(f"circuit breaker: {provider} makes no network call (no circuit)", style="dim")
    state = status.effective_state
    line = Text("circuit breaker: ")
    line.append(state.replace("_", "-"), style={"open": "bold red", "half_open": "yellow"}.get(state, "green"))
    line.append(f"  {provider}  failures {status.failures}")
    if status.cooldown_remaining_ms:
        line.append(f"  cooldown {_secs(status.cooldown_remaining_ms)}")
    if status.last_error:
        line.append("  last error: " + make_inert(status.last_error, keep_newlines=False), style="dim")
    return line
