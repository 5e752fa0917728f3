"""Column widths and cell-exact text helpers of a transcript row (shared by the rows and the column titles)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

MARKER_CELLS = 2
MIN_INDEX_CELLS = 4
"""Room for the index column's title (`ctx` / `line`)."""
MIN_PREVIEW_WITH_BAR = 36
"""The share bar is the first column to go: it shows only while the preview keeps at least this many cells."""
BAR_CELLS = 10
EIGHTHS = " ▏▎▍▌▋▊▉█"
LABEL_CELLS = 13
SIZE_CELLS = 8
CUMULATIVE_CELLS = 9


@dataclass(frozen=True)
class RowLayout:
    """Column widths of a transcript row for a given width and row count."""

    index_cells: int
    preview_cells: int
    show_bar: bool


def row_layout(width: int, index_max: int) -> RowLayout:
    """marker(2) index label preview [bar] size context: the preview takes what is left.

    `index_max` is the largest number the index column shows (the row count, or the last file line in file
    order). The sizes never go: on a narrow transcript the share bar is dropped first, then the preview shrinks.
    """
    index_cells = max(MIN_INDEX_CELLS, len(str(max(index_max, 1))) + 1)
    fixed = MARKER_CELLS + index_cells + 1 + LABEL_CELLS + 1 + SIZE_CELLS + 1 + CUMULATIVE_CELLS
    show_bar = width - fixed - 1 - (BAR_CELLS + 1) >= MIN_PREVIEW_WITH_BAR
    if show_bar:
        fixed += BAR_CELLS + 1
    return RowLayout(index_cells, max(4, width - fixed - 1), show_bar)


def fit(text: str, cells: int) -> str:
    """`text` cropped or padded to exactly `cells` terminal cells."""
    if text.isascii():
        return text[:cells].ljust(cells)
    return set_cell_size(text, cells)


def ellipsize(text: str, cells: int) -> str:
    """`text` in exactly `cells` cells, ending in an ellipsis when it had to be cut."""
    if text.isascii():
        return text.ljust(cells) if len(text) <= cells else text[: cells - 1] + "…"
    head = text[: cells + 1]  # every printable character takes at least one cell: nothing past this can show
    if len(head) == len(text) and cell_len(head) <= cells:
        return set_cell_size(head, cells)
    return set_cell_size(set_cell_size(head, cells - 1) + "…", cells)


def token_bar(fraction: float, cells: int = BAR_CELLS) -> str:
    """A left-aligned bar of `cells` cells filled to `fraction` (eighth-cell precision)."""
    fraction = max(0.0, min(1.0, fraction))
    eighths = round(fraction * cells * 8)
    if fraction > 0 and eighths == 0:
        eighths = 1
    full, part = divmod(eighths, 8)
    bar = "█" * full + (EIGHTHS[part] if part else "")
    return bar.ljust(cells)
