"""Before/after bars of the context against OpenClaw's char window, with the soft-trim and hard-clear thresholds.

The ratios are the pruner's own (`PrunePreview.totals_json()`: `ratio_before`, `ratio_after`, total chars over
`contextWindowTokens × 4`); the thresholds are the previewed `softTrimRatio` and `hardClearRatio`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from inspector.figures.pruning.preview import PrunePreview

from .view import laid_out_width

LABEL_WIDTH = 7
PERCENT_WIDTH = 8


@dataclass(frozen=True)
class PruningGaugeData:
    """The two ratios (None without a window), the thresholds and the char window."""

    ratio_before: float | None
    ratio_after: float | None
    soft_trim_ratio: float
    hard_clear_ratio: float
    char_window: int | None

    @classmethod
    def of(cls, preview: PrunePreview) -> PruningGaugeData:
        """The gauge figures of a preview."""
        t = preview.totals_json()
        s = preview.resolved.settings
        return cls(t["ratio_before"], t["ratio_after"], s.soft_trim_ratio, s.hard_clear_ratio, preview.result.char_window)


class PruningGauge(Widget):
    """Two bars (before, after) and a scale marking softTrimRatio (▲S) and hardClearRatio (▲H)."""

    COMPONENT_CLASSES = {"pgauge--fill", "pgauge--soft", "pgauge--hard", "pgauge--empty", "pgauge--label", "pgauge--muted"}

    DEFAULT_CSS = """
    PruningGauge {
        height: auto;
        & > .pgauge--fill { color: $success; }
        & > .pgauge--soft { color: $warning; }
        & > .pgauge--hard { color: $error; }
        & > .pgauge--empty { color: $panel-lighten-2; }
        & > .pgauge--label { text-style: bold; }
        & > .pgauge--muted { color: $text-muted; }
    }
    """

    data: reactive[PruningGaugeData | None] = reactive(None, layout=True)
    """What the bars show; None while the first preview runs."""

    unavailable: reactive[bool] = reactive(False)
    """The preview failed: without data, say so rather than "computing…"."""

    def _bar(self, label: str, ratio: float | None, width: int) -> Text:
        s = self.get_component_rich_style
        d = self.data
        assert d is not None
        line = Text()
        line.append(f"{label:<{LABEL_WIDTH}}", s("pgauge--label"))
        if ratio is None:
            line.append("no context window", s("pgauge--muted"))
            return line
        filled = min(width, round(min(ratio, 1.0) * width))
        style = "pgauge--fill"
        if ratio >= d.hard_clear_ratio:
            style = "pgauge--hard"
        elif ratio >= d.soft_trim_ratio:
            style = "pgauge--soft"
        line.append("█" * filled, s(style))
        line.append("░" * (width - filled), s("pgauge--empty"))
        line.append(f"{ratio * 100:>{PERCENT_WIDTH - 1}.1f}%", s("pgauge--label"))
        return line

    def render(self):
        s = self.get_component_rich_style
        d = self.data
        if d is None:
            return Text("gauge: unavailable" if self.unavailable else "computing…", style=s("pgauge--muted"))
        width = max(10, (laid_out_width(self) or 60) - LABEL_WIDTH - PERCENT_WIDTH)
        return Group(self._bar("before", d.ratio_before, width), self._bar("after", d.ratio_after, width), self._scale(width))

    def _scale(self, width: int) -> Text:
        """`S30%` under softTrimRatio and `H50%` under hardClearRatio (shifted right when they would overlap)."""
        s = self.get_component_rich_style
        d = self.data
        assert d is not None
        line = Text(" " * LABEL_WIDTH)
        column = 0
        for ratio, mark, style in sorted(
            ((d.soft_trim_ratio, "S", "pgauge--soft"), (d.hard_clear_ratio, "H", "pgauge--hard")), key=lambda m: m[0]
        ):
            pos = max(column, min(width, round(ratio * width)))
            line.append(" " * (pos - column))
            label = f"▲{mark} {ratio * 100:g}%"
            line.append(label, s(style))
            column = pos + len(label) + 1
            line.append(" ")
        return line
