"""Column widths and cell-exact text helpers of a transcript row (shared by the rows and the column titles)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

MARKER_CELLS = 2
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


def row_layout(width: int, row_count: int) -> RowLayout:
    """marker(2) index label preview [bar] size context: the preview takes what is left."""
    index_cells = len(str(max(row_count, 1))) + 1
    show_bar = width >= 70
    fixed = MARKER_CELLS + index_cells + 1 + LABEL_CELLS + 1 + (BAR_CELLS + 1 if show_bar else 0) + SIZE_CELLS + 1 + CUMULATIVE_CELLS
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
