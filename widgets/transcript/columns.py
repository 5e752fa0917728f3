"""The column titles above the transcript, aligned with its rows, naming the index, the estimator and its unit.

The first line never changes with a search or a filter: those get a second line of their own, so the titles of the
size columns are never pushed out (issue 14). The index column says what its numbers are: `ctx`, the position in
the context the model sees, or `line`, the physical line in the file (every entry in file order, `o`).
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..inert import one_line
from .estimators import ESTIMATOR_LABELS, ESTIMATOR_UNITS
from .layout import BAR_CELLS, CUMULATIVE_CELLS, LABEL_CELLS, SIZE_CELLS, row_layout

INDEX_LABELS = {False: "ctx", True: "line"}
"""The index column's title: context position (transcript of the context), file line (every entry, `o`)."""


def preview_title(title: str, label: str, cells: int) -> str:
    """The preview column's title in `cells` cells: `message · sizes: pi chars/4`, shortened rather than cut."""
    for text in (f"{title} · sizes: {label}", f"sizes: {label}", label):
        if cell_len(text) <= cells:
            return set_cell_size(text, cells)
    return set_cell_size(label, cells)


class TranscriptColumns(Widget):
    """`ctx  role  message · sizes: …  [share]  size  context`, and a second line while a filter or search is on."""

    DEFAULT_CSS = """
    TranscriptColumns {
        height: auto;
        max-height: 3;
        background: $panel;
        color: $text-muted;
        text-style: bold;
    }
    """

    estimator: reactive[str] = reactive("pi")
    """The transcript's estimator (named in the preview column's title)."""

    row_count: reactive[int] = reactive(0)
    """The largest number the index column shows (sets its width, as the rows' `row_layout` does)."""

    off_path: reactive[bool] = reactive(False)
    """Every entry in file order (the index is the file line) rather than the context (the index is its position)."""

    title: reactive[str] = reactive("message")
    """Title of the preview column (`message`, or `all entries` in file order)."""

    status: reactive[str] = reactive("", layout=True)
    """The filter and search in force (shown on a line of its own; empty: none)."""

    scrollbar_cells: int = 2
    estimator_label: str = ""
    """What the session's rule set calls the estimator (`model.estimator_label`; empty: the transcript's own word)."""

    def render(self) -> Text:
        width = max(10, self.content_region.width - self.scrollbar_cells)
        layout = row_layout(width, self.row_count)
        unit = ESTIMATOR_UNITS.get(self.estimator, "")
        label = self.estimator_label or ESTIMATOR_LABELS.get(self.estimator, self.estimator)
        parts = [
            "  ",
            INDEX_LABELS[self.off_path].rjust(layout.index_cells) + " ",
            set_cell_size("role", LABEL_CELLS) + " ",
            preview_title(self.title, label, layout.preview_cells) + " ",
        ]
        if layout.show_bar:
            parts.append(set_cell_size("share", BAR_CELLS) + " ")
        parts.append(unit.rjust(SIZE_CELLS) + " ")
        parts.append("context".rjust(CUMULATIVE_CELLS))
        text = Text("".join(parts), no_wrap=True, overflow="ellipsis")
        if self.status:  # on lines of its own (two at most), so the titles above are never pushed out
            status = Text(one_line(self.status, 2 * max(10, self.content_region.width) - 1), style="italic")
            for line in status.wrap(self.app.console, max(10, self.content_region.width))[:2]:
                text.append("\n")
                text.append_text(line)
        return text
