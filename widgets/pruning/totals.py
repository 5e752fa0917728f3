"""Totals of a pruning preview: chars and tokens before/after per estimator, and the cache write avoided in $.

Every figure is `PrunePreview.totals_json()`: the pruner's chars (and their share of the char window), pi's
estimate, OpenClaw's compaction estimate, tiktoken, and the prompt-cache write the first request after the TTL
would not pay for the pruned tokens (priced from the session's recorded usage or the model catalog).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from inspector.figures.pruning.preview import PrunePreview

from ..inert import make_inert
from .view import PreviewPanel

TOKEN_ROWS = (
    ("chars_div_4", "chars/4 tok"),
    ("pi", "pi tok"),
    ("openclaw_compaction", "OpenClaw tok"),
    ("tiktoken", "tiktoken tok"),
)


def _n(value: Any) -> str:
    return "–" if value is None else f"{value:,}"


def _usd(value: float | None) -> str:
    return "–" if value is None else f"${value:,.4f}"


class PruningTotals(PreviewPanel):
    """A table: chars (pruner estimate) and tokens per estimator, before / after / saved / cache write avoided."""

    COMPONENT_CLASSES = {"totals--label", "totals--muted", "totals--saved"}

    DEFAULT_CSS = """
    PruningTotals {
        height: auto;
        & > .totals--label { text-style: bold; }
        & > .totals--muted { color: $text-muted; }
        & > .totals--saved { color: $text-success; }
    }
    """


    PLACEHOLDER = "totals: computing…"
    MUTED = "totals--muted"

    def render_preview(self, p: PrunePreview):
        s = self.get_component_rich_style
        t = p.totals_json()
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style=s("totals--label"), expand=False)
        table.add_column("", no_wrap=True)
        table.add_column("before", justify="right", no_wrap=True)
        table.add_column("after", justify="right", no_wrap=True)
        table.add_column("saved", justify="right", no_wrap=True)
        table.add_column("$ avoided", justify="right", no_wrap=True)
        saved = s("totals--saved")
        table.add_row(
            Text("chars", style=s("totals--label")), _n(t["chars_before"]), _n(t["chars_after"]),
            Text(_n(t["chars_saved"]), style=saved), "",
        )
        cw = t["cache_write_avoided"]
        for key, label in TOKEN_ROWS:
            row = t["tokens"][key]
            table.add_row(
                Text(label, style=s("totals--label")), _n(row["before"]), _n(row["after"]),
                Text(_n(row["saved"]), style=saved), Text(_usd(cw["usd"].get(key)), style=saved),
            )
        price = cw["usd_per_million"]
        note = Text(style=s("totals--muted"))
        window = p.result.char_window
        note.append(f"char window {window:,} ({p.window.tokens:,} tok × 4) · " if window else "no context window · ")
        if price is None:
            note.append(make_inert(f"cache write price unknown: {cw['price_source']}"))
        else:
            note.append(make_inert(f"cache write ${price:g}/M tok ({cw['price_source']})"))
        return Group(table, note)
