"""One transcript row drawn as a `Strip`: marker, index, role and label, preview (search matches highlighted), share
bar, size and context so far, with the row's marks (`marks.row_decor`) and the cursor over it.

Drawing only: the `Transcript` widget hands over the row's preview (None while it is read in a worker) and the Rich
styles of its component classes (`component_styles`, cached by the widget until its styles change).
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from inspector.model import entries as m

from .layout import CUMULATIVE_CELLS, LABEL_CELLS, SIZE_CELLS, ellipsize, fit, row_layout, token_bar
from .marks import flag_label, row_decor
from .model import RowInfo, TranscriptModel
from .previews import compact_number, role_icon, row_label


def component_styles(widget: Widget, component_classes: set[str]) -> dict[str, Style]:
    """Rich styles of the component classes, over the widget's own style, plus the ones a row composes from them."""
    base = widget.rich_style
    get = widget.get_component_rich_style
    styles = {name: get(name) for name in component_classes}
    styles["base"] = base
    styles["plain"] = base
    cursor = styles["transcript--cursor"]
    styles["cursor-post"] = Style(bgcolor=cursor.bgcolor, color=cursor.color, bold=cursor.bold)
    styles["rule"] = Style(underline=True)
    return styles


def role_style(role: str, entry: m.Entry) -> str:
    """The component class a row's role and label are drawn in."""
    if role == "user":
        return "transcript--user"
    if role == "assistant":
        return "transcript--assistant"
    if role in ("toolResult", "bashExecution"):
        return "transcript--tool"
    if role in ("compactionSummary", "branchSummary") or entry.type == m.COMPACTION:
        return "transcript--summary"
    return "transcript--other"


def row_strip(
    model: TranscriptModel,
    position: int,
    info: RowInfo,
    width: int,
    *,
    selected: bool,
    estimator: str,
    styles: dict[str, Style],
    preview_text: str | None,
    search: re.Pattern[str] | None,
) -> Strip:
    """The strip of the row at view position `position` (`info`: its row info), `width` cells wide."""
    row = model.view[position]
    entry = info.entry
    role = model.role_of(row)
    pos = model.ctx_pos(row)
    est = estimator
    st = styles
    next_entry = model.row_entries[model.view[position + 1]] if position + 1 < len(model.view) else None
    decor = row_decor(model.marks, entry.index, next_entry)
    dim = (
        not info.on_path
        or info.dropped_by_compaction
        or decor.dims
        or (info.message is not None and info.message.excluded_from_llm)
    )
    role_style_ = st["transcript--dim"] if dim else st[role_style(role, entry)]
    number_style = st["transcript--dim"] if dim else st["transcript--number"]
    text_style = st["transcript--dim"] if dim else st["plain"]

    # marker: branch point, a row mark (cache TTL expired, compaction forecast), dropped by compaction, off path
    if info.children > 1:
        marker = "├ "
    elif decor.glyph is not None:
        marker = decor.glyph + " "
    elif info.dropped_by_compaction:
        marker = "× "
    elif not info.on_path:
        marker = "○ "
    else:
        marker = "  "
    layout = row_layout(width, model.index_max)
    index_text = str(entry.line) if model.show_off_path else str(pos if pos is not None else "")
    size = model.size(est, pos) if pos is not None else None
    cumulative = model.cumulative_at(est, pos) if pos is not None else None

    segments = [
        Segment(marker, st["transcript--expired"] if decor.expired is not None and info.children <= 1 else st["transcript--marker"]),
        Segment(index_text.rjust(layout.index_cells) + " ", number_style),
        Segment(fit(f"{role_icon(role)} {row_label(entry, role)}", LABEL_CELLS) + " ", role_style_),
    ]
    cells = layout.preview_cells
    if preview_text is None:
        segments.append(Segment(fit("…", cells), st["transcript--placeholder"]))
    else:
        if decor.label is not None:
            # A forecast mark's label (the cut point, oversized, a part's / chunk's tokens): before the expiry age.
            room = cells - 4
            label = decor.label if cell_len(decor.label) <= room else ellipsize(decor.label, room)
            tag = label + " · " if room > 4 else ""
            segments.append(Segment(tag, st["transcript--dim"] if dim else st["transcript--expired"]))
            cells -= cell_len(tag)
        found = model.flag(pos) if pos is not None else None
        if found is not None and cells > 12:
            # The estimator is far from the tokenizer here (`figures.diagnosis.misestimates`): the ratio first.
            tag = flag_label(found) + " "
            segments.append(Segment(tag, st["transcript--dim"] if dim else st["transcript--expired"]))
            cells -= cell_len(tag)
        # A tool result whose cache TTL has expired carries `~` in the marker column; its age is in the detail
        # pane (`widgets.detail.render`), so the preview keeps all its cells.
        shown = ellipsize(preview_text, cells)
        if search is None:
            segments.append(Segment(shown, text_style))
        else:
            segments.extend(highlight(shown, search, text_style, st["transcript--match"]))
    segments.append(Segment(" ", st["base"]))
    if layout.show_bar:
        max_size = model.max_size(est)
        fraction = (size / max_size) if (size and max_size) else 0.0
        segments.append(Segment(token_bar(fraction) + " ", st["transcript--dim"] if dim else st["transcript--bar"]))
    blank_size = " " * SIZE_CELLS
    segments.append(Segment(compact_number(size).rjust(SIZE_CELLS) if pos is not None else blank_size, number_style))
    segments.append(Segment(" ", st["base"]))
    segments.append(Segment(compact_number(cumulative).rjust(CUMULATIVE_CELLS) if pos is not None else " " * CUMULATIVE_CELLS, number_style))
    if decor.rule_below:
        segments = list(Segment.apply_style(segments, post_style=st["rule"]))
    if selected:
        segments = list(Segment.apply_style(segments, post_style=st["cursor-post"]))
    return Strip(segments).adjust_cell_length(width, st["transcript--cursor"] if selected else st["base"])


def highlight(shown: str, search: re.Pattern[str], style: Style, match_style: Style) -> list[Segment]:
    """`shown` split into segments with the matches of `search` in `match_style`."""
    out: list[Segment] = []
    last = 0
    for match in search.finditer(shown):
        if match.start() > last:
            out.append(Segment(shown[last : match.start()], style))
        out.append(Segment(shown[match.start() : match.end()], style + match_style))
        last = match.end()
    if last < len(shown):
        out.append(Segment(shown[last:], style))
    return out
