"""The context gauge: how full the context is against the window, and OpenClaw's guard verdict on the window.

The figures are the engine's `inspector.figures.overview.ContextOverview` (`inspector.figures.session_figures.context_overview`, the same
object `stats --json` prints): `usage` is the context now (pi's `estimateContextTokens`: last recorded usage plus chars/4 of what
follows; every message estimated when that usage predates the latest compaction, and the last line says so),
`window` OpenClaw's window resolution, `guard` its verdict (ok / warn / block) and `fill` the share of
the window (`context_fill`). The gauge's colour follows the guard; the bar turns to the warning colour past 80 %
and to the error colour past the window.

The guard is about the window's size and says so; how full the window is comes from the engine's `FillState`
(`inspector.figures.diagnosis.fill`): past a threshold its message is shown, over the window as a warning. The part of the
context that is not in the transcript (`inspector.figures.diagnosis.overhead`, derived from the calls' recorded prompts)
is its own share of the bar (`▓`), with its trend.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from inspector.figures.diagnosis.fill import FillState
from inspector.figures.diagnosis.overhead import OverheadSummary
from inspector.figures.overview import ContextOverview

from .diagnosis.texts import fill_warning, overhead_gauge_line
from .inert import make_inert

FILL_WARN_AT = 0.8


class ContextGauge(Widget):
    """A bar of the context now vs the context window, with the guard thresholds and verdict."""

    COMPONENT_CLASSES = {
        "gauge--fill", "gauge--empty", "gauge--label", "gauge--muted", "gauge--verdict",
        "gauge--overhead", "gauge--warn", "gauge--error",
    }

    DEFAULT_CSS = """
    ContextGauge {
        height: auto;
        padding: 0 1;
        & > .gauge--fill { color: $success; }
        & > .gauge--empty { color: $panel-lighten-2; }
        & > .gauge--label { text-style: bold; }
        & > .gauge--muted { color: $text-muted; }
        & > .gauge--verdict { color: $text-success; text-style: bold; }
        & > .gauge--overhead { color: $text-accent; }
        & > .gauge--warn { color: $text-warning; text-style: bold; }
        & > .gauge--error { color: $text-error; text-style: bold; }
        &.-high > .gauge--fill { color: $warning; }
        &.-over > .gauge--fill { color: $error; }
        &.-warn > .gauge--verdict { color: $text-warning; }
        &.-warn > .gauge--fill { color: $warning; }
        &.-block > .gauge--verdict { color: $text-error; }
        &.-block > .gauge--fill { color: $error; }
    }
    """

    data: reactive[ContextOverview | None] = reactive(None, layout=True)
    """The figures shown; None while the session loads."""

    fill_state: reactive[FillState | None] = reactive(None, layout=True)
    """The fill of the window now (None until computed)."""

    overhead: reactive[OverheadSummary | None] = reactive(None, layout=True)
    """What the transcript does not show (None until the timeline is computed)."""

    def watch_data(self, data: ContextOverview | None) -> None:
        level = data.guard.level if data else "ok"
        fill = self._fill(data)
        self.set_class(level == "warn", "-warn")
        self.set_class(level == "block", "-block")
        self.set_class(FILL_WARN_AT <= fill < 1.0, "-high")
        self.set_class(fill >= 1.0, "-over")

    @staticmethod
    def _fill(data: ContextOverview | None) -> float:
        return (data.fill or 0.0) if data is not None else 0.0

    def render(self):
        data = self.data
        if data is None:
            return Text("context: loading…", style=self.get_component_rich_style("gauge--muted"))
        s = self.get_component_rich_style
        used = data.usage.tokens
        window = data.window.tokens
        fill = self._fill(data)
        width = max(10, self.content_region.width or 40)
        head = Text()
        head.append("Context now ", s("gauge--label"))
        head.append(f"{used:,} / {window:,} tok  ")
        head.append(f"{fill * 100:.1f}%", s("gauge--label"))
        filled = min(width, round(min(fill, 1.0) * width))
        overhead = self.overhead
        outside = 0
        if overhead is not None and overhead.latest and overhead.latest > 0 and window:
            outside = min(filled, round(min(overhead.latest, used) / window * width))
        bar = Text()
        bar.append("▓" * outside, s("gauge--overhead"))
        bar.append("█" * (filled - outside), s("gauge--fill"))
        bar.append("░" * (width - filled), s("gauge--empty"))
        source = data.window.source + (f", capped by {data.window.capped_by}" if data.window.capped_by else "")
        win = Text(make_inert(f"window {window:,} ({source})"), style=s("gauge--muted"), overflow="ellipsis", no_wrap=True)
        verdict = Text(no_wrap=True, overflow="ellipsis")
        verdict.append(f"window-size guard {data.guard.level.upper()}", s("gauge--verdict"))
        verdict.append(f"  warn < {data.guard.warn_below:,} · block < {data.guard.hard_min:,}", s("gauge--muted"))
        parts = [head, bar, win]
        warning = fill_warning(self.fill_state, lambda role: s(f"gauge--{role}")) if self.fill_state is not None else None
        if warning is not None:
            parts.append(warning)
        parts.append(verdict)
        if data.guard.message:
            parts.append(Text(make_inert(data.guard.message), style=s("gauge--verdict")))
        parts.append(Text(data.usage.describe(), style=s("gauge--muted")))
        if overhead is not None:
            parts.append(overhead_gauge_line(overhead, lambda role: s(f"gauge--{role}")))
        return Group(*parts)
