"""The detail pane: everything about the selected row, read from disk in a thread worker.

Text, thinking, tool-call arguments as pretty JSON, tool results, image placeholders with their size, the raw
JSON line (`r`), every estimator, a tiktoken count, and whether the estimator is far from it (the transcript's `⚑`,
`figures.diagnosis.misestimates`). Long blocks are cut; `a` shows everything.
"""

from __future__ import annotations

from textual import on, work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from inspector.counting.counter import get_token_counter
from inspector.figures.diagnosis.misestimates import Misestimate, row_misestimates
from inspector.figures.marks import MarkKind
from inspector.figures.rules_of import rules_of

from ..transcript.marks import flag_words
from ..transcript.model import TranscriptModel
from .render import DetailData, DetailStyles, render_detail


class DetailLoaded(Message):
    """Row `row` of `model` was read from disk (`data`)."""

    def __init__(self, model: TranscriptModel, row: int, data: DetailData) -> None:
        super().__init__()
        self.model = model
        self.row = row
        self.data = data


class MessageDetail(VerticalScroll, can_focus=True):
    """Shows one row of a `TranscriptModel` in full."""

    ALLOW_MAXIMIZE = True

    COMPONENT_CLASSES = {"detail--heading", "detail--muted", "detail--thinking", "detail--error", "detail--label"}

    DEFAULT_CSS = """
    MessageDetail {
        padding: 0 1;
        & > .detail--heading { color: $text-accent; text-style: bold; }
        & > .detail--muted { color: $text-muted; }
        & > .detail--thinking { color: $text-muted; text-style: italic; }
        & > .detail--error { color: $text-error; }
        & > .detail--label { color: $text-muted; }
        & > #detail-body { width: 100%; }
    }
    """

    BINDINGS = [
        Binding("a", "show_all", "Show all", tooltip="Show long blocks in full", id="detail.show_all"),
        Binding("r", "toggle_raw", "Raw JSON", tooltip="Show the raw JSON line as stored", id="detail.raw"),
    ]

    show_all: reactive[bool] = reactive(False, init=False)
    """Show long blocks in full instead of cut."""

    raw: reactive[bool] = reactive(False, init=False)
    """Show the raw JSON line instead of the rendered message."""

    def __init__(self, *, encoding: str | None = "cl100k_base", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.encoding = encoding
        self.data: DetailData | None = None
        self._request: tuple[int, int] | None = None

    def compose(self):
        yield Static("Select a row (↑↓, Enter) to see the message here.", id="detail-body", markup=False)

    def _styles(self) -> DetailStyles:
        s = self.get_component_rich_style
        return DetailStyles(
            heading=s("detail--heading"),
            muted=s("detail--muted"),
            thinking=s("detail--thinking"),
            error=s("detail--error"),
            label=s("detail--label"),
        )

    def clear(self, text: str = "") -> None:
        """Empty the pane."""
        self.data = None
        self.query_one("#detail-body", Static).update(text)

    def show_row(self, model: TranscriptModel, row: int) -> None:
        """Load row `row` of `model` from disk (thread) and show it."""
        if self._request == (id(model), row) and self.data is not None:
            return
        self._request = (id(model), row)
        self.show_all = False
        self._load(model, row)

    @work(thread=True, exclusive=True, group="detail", description="detail")
    def _load(self, model: TranscriptModel, row: int) -> None:
        entry = model.entry(row)
        cm = model.message(row)
        message = raw = None
        error = None
        try:
            raw = model.session.raw_line(entry)
            message = model.session.load_message(entry) if (cm is not None or entry.role is not None) else None
        except (OSError, ValueError) as exc:
            error = f"cannot read line {entry.line}: {exc}"
        tiktoken = note = None
        pos = model.ctx_pos(row)
        if pos is not None and pos in model.tiktoken:
            tiktoken = model.tiktoken[pos]
        elif message is not None and self.encoding is not None:
            counter = get_token_counter(self.encoding)
            tiktoken = counter.count_message(message) if counter.available else None
            note = counter.notice if not counter.available else None
        mark = model.marks.first(entry.index, MarkKind.CACHE_EXPIRED)
        expiry = mark.payload if mark is not None else None
        usage = entry.usage
        recorded = rules_of(model.session).tokens.calculate_context_tokens(usage) if isinstance(usage, dict) else None
        data = DetailData(entry, cm, message, raw, tiktoken, note, error, expiry, recorded, self._flag(model, row))
        self.post_message(DetailLoaded(model, row, data))

    def _flag(self, model: TranscriptModel, row: int) -> str | None:
        """The row's mis-estimate flag in words (None: not far off, not in the context, or no tokenizer)."""
        pos, cm = model.ctx_pos(row), model.message(row)
        if pos is None or cm is None or self.encoding is None:
            return None
        found: Misestimate | None
        if model.flag_known(pos):
            found = model.flag(pos)
        else:
            try:
                found = row_misestimates(model.session, [cm], model.flag_name).get(cm.entry_index)
            except (OSError, ValueError):
                return None
        if found is None:
            return None
        try:
            label = str(rules_of(model.session).estimator(model.flag_name).label)
        except KeyError:
            label = model.flag_name
        return flag_words(found, label)

    @on(DetailLoaded)
    def _loaded(self, message: DetailLoaded) -> None:
        message.stop()
        if self._request != (id(message.model), message.row):
            return
        self.data = message.data
        self._render_data()
        self.scroll_home(animate=False)

    def _render_data(self) -> None:
        if self.data is None:
            return
        self.query_one("#detail-body", Static).update(render_detail(self.data, self._styles(), show_all=self.show_all, raw=self.raw))
        e = self.data.entry
        self.border_subtitle = f"line {e.line}" + (" · raw" if self.raw else "") + (" · all" if self.show_all else "")

    def watch_show_all(self) -> None:
        self._render_data()

    def watch_raw(self) -> None:
        self._render_data()

    def action_show_all(self) -> None:
        self.show_all = not self.show_all

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
