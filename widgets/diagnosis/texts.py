"""How the diagnosis figures read, shared by the header, the gauge, the breakdown and the timeline screen.

Every figure is the engine's (`inspector.figures.diagnosis`: `FillState`, `OverheadSummary`, `CostSummary`, ...); the
functions here only format them into `rich.text.Text` with the caller's styles. Strings that come from a session
file (entry ids, tool names, repeat subjects) go through `inspector.base.textsafe`.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from inspector.base.textsafe import one_line
from inspector.figures.diagnosis.fill import FILL_COMPACTION_DUE, FILL_EARLY_WARNING, FILL_OVER_WINDOW, FillState
from inspector.figures.diagnosis.overhead import OverheadSummary

StyleOf = Callable[[str], Style]
"""A style getter: a role name (`ok`, `warn`, `error`, `muted`, `label`) to a Rich style."""

FILL_LEVEL_LABELS = {
    FILL_OVER_WINDOW: "OVER THE WINDOW",
    FILL_COMPACTION_DUE: "compaction due",
    FILL_EARLY_WARNING: "early warning",
    "ok": "ok",
}
FILL_LEVEL_ROLE = {FILL_OVER_WINDOW: "error", FILL_COMPACTION_DUE: "warn", FILL_EARLY_WARNING: "warn", "ok": "ok"}
GUARD_NOTE = "about the window's size, not how full it is"
NOT_IN_TRANSCRIPT = "not in the transcript"
OVERHEAD_WHAT = "system prompt, tool schemas, injected context (and chars/4 estimator error)"
TREND_ARROWS = {"rising": "↗", "falling": "↘", "flat": "→", "unknown": "?"}


def tokens(value: int | float | None) -> str:
    """A token count with thousands separators (integral floats without `.0`; None as an en dash)."""
    if value is None:
        return "–"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def signed(value: int | float) -> str:
    """`+1,234` / `-1,234`."""
    return ("+" if value >= 0 else "") + tokens(value)


def percent(fraction: float | None, digits: int = 1) -> str:
    """A fraction as a percentage (`–` for None)."""
    return "–" if fraction is None else f"{fraction * 100:.{digits}f}%"


def usd(value: float) -> str:
    """A cost in US dollars, to the cent below $10 with four places (as `timeline` prints it)."""
    return f"${value:,.4f}" if value < 10 else f"${value:,.2f}"


def fill_label(fill: FillState) -> str:
    """`OVER THE WINDOW 130.0% (30,000 over)`, `compaction due 92.0%`, `early warning 61.1%`, `61.1%`."""
    pct = percent(fill.fill)
    if fill.level == FILL_OVER_WINDOW:
        return f"OVER THE WINDOW {pct} ({tokens(fill.tokens - fill.window)} over)"
    if fill.level == "ok":
        return pct
    return f"{FILL_LEVEL_LABELS.get(fill.level, fill.level)} {pct}"


def fill_role(fill: FillState) -> str:
    """The style role of a fill level: `error` over the window, `warn` past a threshold, else `ok`."""
    return FILL_LEVEL_ROLE.get(fill.level, "ok")


def fill_warning(fill: FillState, style: StyleOf) -> Text | None:
    """The fill past a threshold as the gauge shows it: over the window, the engine's whole message (a warning);
    past the compaction or an early threshold, one line naming it. None below every threshold."""
    if fill.level == "ok":
        return None
    if fill.level == FILL_OVER_WINDOW:
        return Text("⚠ " + fill.message, style=style("error"))
    mark = "⚠ " if fill.level == FILL_COMPACTION_DUE else ""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{mark}{fill_label(fill)}", style(fill_role(fill)))
    if fill.level == FILL_COMPACTION_DUE:
        line.append(f" (above {fill.threshold_words}: {fill.compacts_when_due})", style("muted"))
    elif fill.threshold:
        line.append(f" (above {fill.threshold})", style("muted"))
    return line


def trend_text(overhead: OverheadSummary) -> str:
    """`rising ↗ +567.66 tok/call (mean 28,268 → 42,550)`."""
    t = overhead.trend
    if t.slope_tokens_per_call is None:
        return "no trend from a single call"
    arrow = TREND_ARROWS.get(t.direction, "")
    text = f"{t.direction} {arrow}"
    if t.slope_tokens_per_call is not None:
        text += f" {'+' if t.slope_tokens_per_call >= 0 else ''}{t.slope_tokens_per_call:,} tok/call"
    if t.first_half_mean is not None and t.second_half_mean is not None:
        text += f" (mean {tokens(round(t.first_half_mean))} → {tokens(round(t.second_half_mean))})"
    return text


def overhead_source(overhead: OverheadSummary) -> str:
    """Which calls the not-in-transcript figure is derived from: `derived from 54 calls (8a8eb767 … a22c74df)`."""
    if not overhead.calls_used:
        return "no call with a recorded prompt: nothing to derive it from"
    first = one_line(overhead.first_entry_id or "?", 12)
    last = one_line(overhead.last_entry_id or "?", 12)
    span = first if overhead.calls_used == 1 else f"{first} … {last}"
    text = f"derived from {overhead.calls_used:,} call{'s' if overhead.calls_used != 1 else ''} ({span})"
    if overhead.negative_calls:
        text += f"; negative on {overhead.negative_calls:,} (chars/4 over-estimated)"
    return text


def overhead_headline(overhead: OverheadSummary) -> str:
    """`54,006 tok · 44.2% of the last prompt` (or why there is no figure)."""
    if overhead.latest is None:
        return "unknown (no recorded prompt)"
    return f"{tokens(overhead.latest)} tok · {percent(overhead.latest_share)} of the last prompt"


def overhead_explanation(overhead: OverheadSummary) -> str:
    """What the figure is and where it comes from, in one sentence."""
    return f"recorded prompt − pi chars/4 of the transcript sent: {OVERHEAD_WHAT}; {overhead_source(overhead)}"


def overhead_gauge_line(overhead: OverheadSummary, style: StyleOf) -> Text:
    """One line for the gauge: `▓ not in the transcript (derived) 54,006 tok · 44.2% of the last prompt ↗ rising`."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append("▓ ", style("overhead"))
    line.append("not in the transcript ", style("label"))
    line.append("(derived) ", style("muted"))
    line.append(overhead_headline(overhead), style("overhead"))
    if overhead.trend.slope_tokens_per_call is not None:
        line.append(f" {TREND_ARROWS.get(overhead.trend.direction, '')} {overhead.trend.direction}", style("muted"))
    return line
