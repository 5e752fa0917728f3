"""The column titles above the transcript, aligned with its rows, naming the estimator and its unit."""

from __future__ import annotations

from rich.cells import set_cell_size
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from .layout import BAR_CELLS, CUMULATIVE_CELLS, LABEL_CELLS, SIZE_CELLS, row_layout
from .model import ESTIMATOR_LABELS, ESTIMATOR_UNITS


class TranscriptColumns(Widget):
    """One line: `#  role  message  [estimator bar]  size  context`."""

    DEFAULT_CSS = """
    TranscriptColumns {
        height: 1;
        background: $panel;
        color: $text-muted;
        text-style: bold;
    }
    """

    estimator: reactive[str] = reactive("pi")
    """The transcript's estimator (its label heads the bar column)."""

    row_count: reactive[int] = reactive(0)
    """Rows in the transcript (sets the index column's width)."""

    title: reactive[str] = reactive("message")
    """Title of the preview column (says when a filter is on)."""

    scrollbar_cells: int = 2

    def render(self) -> Text:
        width = max(10, self.content_region.width - self.scrollbar_cells)
        layout = row_layout(width, self.row_count)
        unit = ESTIMATOR_UNITS.get(self.estimator, "")
        label = ESTIMATOR_LABELS.get(self.estimator, self.estimator)
        parts = [
            "  ",
            "#".rjust(layout.index_cells) + " ",
            set_cell_size("role", LABEL_CELLS) + " ",
            set_cell_size(f"{self.title} · sizes: {label}", layout.preview_cells) + " ",
        ]
        if layout.show_bar:
            parts.append(set_cell_size("share", BAR_CELLS) + " ")
        parts.append(unit.rjust(SIZE_CELLS) + " ")
        parts.append("context".rjust(CUMULATIVE_CELLS))
        return Text("".join(parts), no_wrap=True, overflow="ellipsis")
