"""Help (`?`): what the columns and estimators mean, and every key of the screen it was opened from."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.styles import RulesMap
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual, Visual
from textual.widgets import Static

from ..inert import one_line
from ..transcript.estimators import ESTIMATOR_HELP, ESTIMATOR_LABELS

INTRO = (
    "Each transcript row is one message of the context the model sees (pi's buildSessionContext), in order: "
    "role and tool, a one-line preview, a bar and size under the chosen estimator, and the context so far.\n"
    "The right side shows the context now against the window (OpenClaw's window resolution and guard), where it "
    "goes by tool and role, and the largest messages; Enter on a row shows the whole message. Below 110 columns the "
    "side panel sits under the transcript: Enter, w or s opens it, Esc closes it.\n"
    "Markers: ├ branch point (the entry has several children) · ○ off the active path · × dropped by compaction · ~ tool result whose prompt-cache TTL has expired (when, and its age, in the message detail; `p` previews what pruning would cut).\n"
    "Compaction forecast (C): ✂ cut point · │ kept tail · ↳ split-turn prefix · § part / ┆ chunk start (with its tokens) "
    "· ! oversized · - dropped by the history share (dimmed).\n"
    "The first column is `ctx`, the position in the context the model sees, or `line`, the line in the file when `o` shows every entry in file order."
)


class MemoRichVisual(RichVisual):
    """A Rich renderable that never changes, laid out once per width: Textual asks a table's height and its lines
    again at each layout (twice when the screen opens), and the help's key table took ~15 ms each time."""

    def __init__(self, widget: Any, renderable: RenderableType) -> None:
        super().__init__(widget, renderable)
        self._heights: dict[int, int] = {}
        self._strips: dict[tuple[int, Style], list[Strip]] = {}

    def get_height(self, rules: RulesMap, width: int) -> int:
        if width not in self._heights:
            self._heights[width] = super().get_height(rules, width)
        return self._heights[width]

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        key = (width, style)
        if key not in self._strips:
            self._strips[key] = super().render_strips(width, None, style, options)
        return self._strips[key][:height]


class FixedTable(Static):
    """A `Static` showing one Rich table for good, through `MemoRichVisual`."""

    def __init__(self, table: Table) -> None:
        super().__init__()
        self._memo = MemoRichVisual(self, table)

    @property
    def visual(self) -> Visual:
        return self._memo


class HelpScreen(ModalScreen[None]):
    """Keys and concepts; any of Esc / q / ? closes it.

    Its background is opaque: a see-through one makes Textual draw the whole screen underneath, dimmed, on every
    frame (~100 ms for the inspector on a big session). Its scrollbar's gutter is always kept: else the tables are
    laid out at one width, then again at the width the scrollbar leaves them."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        background: $background;
        & #help-box { width: 96; max-width: 95%; height: 90%; border: heavy $primary; background: $panel; padding: 0 1;
                      scrollbar-gutter: stable; }
    }
    """

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, bindings: list[tuple[str, str, str]], title: str = "Session Inspector", intro: str = INTRO, *, estimators: bool = True) -> None:
        """`intro` and `estimators` (the estimator table) describe the screen it was opened from."""
        super().__init__()
        self.key_rows = bindings
        self.title_text = title
        self.intro = intro
        self.estimators = estimators

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text(one_line(self.title_text, 200), style="bold"))
            yield Static(Text(self.intro))
            if self.estimators:
                est = Table(box=None, padding=(0, 1), show_header=False)
                est.add_column(style="bold", no_wrap=True)
                est.add_column()
                for key, label in ESTIMATOR_LABELS.items():
                    est.add_row(label, ESTIMATOR_HELP[key])
                yield Static(Text("\nEstimators (e cycles)", style="bold"))
                yield FixedTable(est)
            keys = Table(box=None, padding=(0, 1), show_header=False)
            keys.add_column(style="bold", no_wrap=True)
            keys.add_column(no_wrap=True)
            keys.add_column()
            for key, description, tooltip in self.key_rows:
                keys.add_row(key, description, tooltip)
            yield Static(Text("\nKeys (also in the command palette, ctrl+p)", style="bold"))
            yield FixedTable(keys)

    def action_close(self) -> None:
        self.dismiss(None)
