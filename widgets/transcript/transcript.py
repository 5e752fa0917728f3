"""The transcript: one Line-API `ScrollView` that draws only the rows on screen.

Never one widget per message: `render_line(y)` builds the strip for row `scroll_y + y` from entry metadata
(kept in memory by the engine) and a preview read from disk for that row only, cached in an LRU. Previews of
very long lines, and tiktoken counts, are loaded in thread workers that post `PreviewsLoaded` / `CountsLoaded`
back; rows show a placeholder until they arrive; so are the mis-estimate flags of the rows drawn (`flags`). A row is drawn by `row_strip` (its marks, from
`TranscriptModel.marks`, as `widgets.transcript.marks` says: a marker glyph, dimmed rows, a rule between rows).
"""

from __future__ import annotations

import re

from rich.style import Style
from textual import events, on, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from inspector.counting.counter import get_token_counter
from inspector.model import entries as m

from .estimators import ESTIMATOR_UNITS, flag_estimator
from .flags import FlagQueue, FlagsLoaded, judge_rows
from .model import TranscriptModel
from .previews import entry_preview_text, message_preview_text, preview
from .row_strip import component_styles, row_strip

SYNC_PREVIEW_BYTES = 64 * 1024  # longer lines are always read in a worker
TIKTOKEN_BATCH = 400


class Transcript(ScrollView, can_focus=True):
    """The rows of a `TranscriptModel`, with a cursor, an estimator, lazy previews and lazy tiktoken counts."""

    COMPONENT_CLASSES = {
        "transcript--cursor",
        "transcript--user",
        "transcript--assistant",
        "transcript--tool",
        "transcript--summary",
        "transcript--other",
        "transcript--dim",
        "transcript--number",
        "transcript--bar",
        "transcript--marker",
        "transcript--match",
        "transcript--placeholder",
        "transcript--expired",
    }

    DEFAULT_CSS = """
    Transcript {
        background: $surface;
        overflow-x: hidden;
        overflow-y: scroll;
        & > .transcript--cursor { background: $block-cursor-blurred-background; }
        &:focus > .transcript--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        & > .transcript--user { color: $text-success; }
        & > .transcript--assistant { color: $text-primary; }
        & > .transcript--tool { color: $text-warning; }
        & > .transcript--summary { color: $text-accent; text-style: bold; }
        & > .transcript--other { color: $text-muted; }
        & > .transcript--dim { color: $text-disabled; }
        & > .transcript--number { color: $text-muted; }
        & > .transcript--bar { color: $primary; }
        & > .transcript--marker { color: $text-accent; }
        & > .transcript--match { background: $warning-muted; }
        & > .transcript--placeholder { color: $text-disabled; }
        & > .transcript--expired { color: $text-warning; text-style: bold; }
    }
    """

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="transcript.cursor_up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="transcript.cursor_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="transcript.page_up"),
        Binding("pagedown,space", "page_down", "Page down", show=False, id="transcript.page_down"),
        Binding("home,g", "first", "First", show=False, id="transcript.first"),
        Binding("end,G", "last", "Last", show=False, id="transcript.last"),
        Binding("enter", "select", "Details", show=False, id="transcript.select"),
    ]

    cursor: reactive[int] = reactive(0, repaint=False, init=False)
    """View position of the highlighted row."""

    estimator: reactive[str] = reactive("pi", init=False)
    """Which size the size / bar / context columns show: pi, prune, tiktoken or usage."""

    class Highlighted(Message):
        """The cursor moved to view position `position` (unfiltered row `row`)."""

        def __init__(self, transcript: Transcript, position: int, row: int | None) -> None:
            super().__init__()
            self.transcript = transcript
            self.position = position
            self.row = row

    class Selected(Message):
        """A row was chosen (Enter or click): show its details."""

        def __init__(self, transcript: Transcript, row: int) -> None:
            super().__init__()
            self.transcript = transcript
            self.row = row

    class CountsUpdated(Message):
        """tiktoken counts arrived for some context messages."""

    class PreviewsLoaded(Message):
        """Previews of long lines read in a worker (`out`: row -> preview) for model generation `generation`."""

        def __init__(self, out: dict[int, str], generation: int) -> None:
            super().__init__()
            self.out = out
            self.generation = generation

    class CountsLoaded(Message):
        """tiktoken counts of `model` counted in a worker (`out`: context position -> tokens)."""

        def __init__(self, model: TranscriptModel, out: dict[int, int | None]) -> None:
            super().__init__()
            self.model = model
            self.out = out

    def __init__(self, *, encoding: str | None = "cl100k_base", name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.model: TranscriptModel | None = None
        self.encoding = encoding
        self.search_query: str | None = None
        self._generation = 0
        self._strips: LRUCache[tuple, Strip] = LRUCache(2048)
        self._previews: LRUCache[int, str] = LRUCache(4096)
        self._pending_previews: set[int] = set()
        self._pending_counts: set[int] = set()
        self._counting: set[int] = set()
        self._flags = FlagQueue()
        self._load_scheduled = False
        self._search_re: re.Pattern[str] | None = None
        self._style_cache: dict[str, Style] | None = None

    # -- model ----------------------------------------------------------------------------------

    def set_model(self, model: TranscriptModel, *, keep_cursor_row: int | None = None, cursor: int | None = None) -> None:
        """Show `model`. The cursor goes to `cursor` (view position), or stays on `keep_cursor_row` when shown."""
        same_rows = self.model is not None and self.model.ctx is model.ctx and self.model.show_off_path == model.show_off_path
        self.model = model
        model.flag_name = flag_estimator(self.estimator)
        self._generation += 1
        self._strips.clear()
        if not same_rows:
            self._previews.clear()
        self._pending_previews.clear()
        self.virtual_size = Size(self.size.width, len(model))
        target = cursor
        if target is None and keep_cursor_row is not None:
            target = model.nearest_view_index(keep_cursor_row)
        if target is None:
            target = min(self.cursor, max(0, len(model) - 1))
        self.set_reactive(Transcript.cursor, max(0, min(target, len(model) - 1)))
        self._scroll_cursor_into_view(center=True)
        self.refresh()
        self.post_message(self.Highlighted(self, self.cursor, self.current_row))

    def extend_model(self, model: TranscriptModel) -> None:
        """Replace the model with one that has the same rows plus more at the end (live append)."""
        old = self.model
        self.model = model
        if old is not None:
            model.tiktoken.update(old.tiktoken)
            for name, found in old.flags.items():
                model.set_flags(name, {pos: v for pos, v in found.items() if pos < model.revised_from})
            if old.filtered:
                model.set_filters(old.filter_roles, old.filter_tools)
        model.flag_name = flag_estimator(self.estimator)
        self._generation += 1
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(model))
        self.refresh()

    def invalidate(self) -> None:
        """Redraw every row (filters, counts or styles changed)."""
        self._generation += 1
        self._strips.clear()
        if self.model is not None:
            self.virtual_size = Size(self.size.width, len(self.model))
            if self.cursor >= len(self.model):
                self.set_reactive(Transcript.cursor, max(0, len(self.model) - 1))
        self.refresh()

    @property
    def current_row(self) -> int | None:
        """Unfiltered row index under the cursor."""
        if self.model is None or not len(self.model.view):
            return None
        return self.model.view[min(self.cursor, len(self.model.view) - 1)]

    @property
    def at_bottom(self) -> bool:
        """Whether the cursor is on the last row (live follow keeps it there)."""
        return self.model is None or self.cursor >= len(self.model) - 1

    def set_search(self, query: str | None) -> None:
        """Highlight `query` (case-insensitive) in the previews."""
        self.search_query = query or None
        self._search_re = re.compile(re.escape(query), re.IGNORECASE) if query else None
        self.invalidate()

    # -- reactives ------------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        if self.model is None or not len(self.model.view):
            return 0
        return max(0, min(value, len(self.model.view) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        top = round(self.scroll_y)
        self._scroll_cursor_into_view()
        if round(self.scroll_y) == top:
            # no scroll: repaint just the two rows whose cursor state changed (a scroll repaints everything)
            self.refresh_line(old)
            self.refresh_line(new)
        self.post_message(self.Highlighted(self, new, self.current_row))

    def watch_estimator(self) -> None:
        if self.model is not None:
            self.model.flag_name = flag_estimator(self.estimator)
        self.invalidate()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_cache = None
        self._strips.clear()

    def on_focus(self) -> None:
        self._style_cache = None
        self.refresh()

    def on_blur(self) -> None:
        self._style_cache = None
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        if self.model is not None:
            self.virtual_size = Size(event.size.width, len(self.model))
        self._strips.clear()
        self._scroll_cursor_into_view()

    def _scroll_cursor_into_view(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if height <= 0:
            return
        top = round(self.scroll_y)
        if center and not (top <= self.cursor < top + height):
            self.scroll_to(y=max(0, self.cursor - height // 2), animate=False, immediate=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    # -- actions --------------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up(self) -> None:
        self.cursor -= max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        self.cursor += max(1, self.scrollable_content_region.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        if self.model is not None:
            self.cursor = len(self.model) - 1
            self._scroll_cursor_into_view()

    def action_select(self) -> None:
        row = self.current_row
        if row is not None:
            self.post_message(self.Selected(self, row))

    def move_to(self, position: int, *, center: bool = True) -> None:
        """Put the cursor on view position `position`, centering it when it was off screen."""
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_y)
        if center and height > 0 and not (top <= position < top + height):
            self.scroll_to(y=max(0, position - height // 2), animate=False, immediate=True)
        self.cursor = position

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.model is None:
            return
        position = offset.y + round(self.scroll_y)
        if 0 <= position < len(self.model):
            self.cursor = position
            if event.chain >= 2:
                self.action_select()

    # -- rendering ------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        position = round(self.scroll_y) + y
        if self.model is None or position >= len(self.model):
            return Strip.blank(width, self.rich_style)
        selected = position == self.cursor
        key = (position, width, self._generation, selected, self.has_focus and selected)
        strip = self._strips.get(key)
        if strip is None:
            strip, complete = self._render_row(position, width, selected)
            if complete:
                self._strips[key] = strip
        return strip

    def _styles(self) -> dict[str, Style]:
        """Rich styles of the component classes, over the widget's own style (cached until styles change)."""
        if self._style_cache is None:
            self._style_cache = component_styles(self, self.COMPONENT_CLASSES)
        return self._style_cache

    def _render_row(self, position: int, width: int, selected: bool) -> tuple[Strip, bool]:
        """The row's strip (`row_strip`), and whether it is complete (False: its preview or tiktoken count is
        loading, so the strip is not cached)."""
        model = self.model
        assert model is not None
        row = model.view[position]
        info = model.info(row)
        entry = info.entry
        pos = model.ctx_pos(row)
        complete = True
        if self.estimator == "tiktoken" and pos is not None and pos not in model.tiktoken:
            self._want_count(pos)
            complete = False
        if pos is not None and self.encoding is not None and not model.flag_known(pos):
            self._want_flag(pos)
            complete = False
        preview_text = self._preview(row, entry, info.message is not None or entry.role is not None)
        strip = row_strip(model, position, info, width, selected=selected, estimator=self.estimator, styles=self._styles(),
                          preview_text=preview_text, search=self._search_re)
        return strip, complete and preview_text is not None

    # -- lazy previews --------------------------------------------------------------------------

    def _preview(self, row: int, entry: m.Entry, is_message: bool) -> str | None:
        cached = self._previews.get(row)
        if cached is not None:
            return cached
        if not is_message or entry.type == m.COMPACTION:
            text = preview(self._load_preview_text(entry, is_message))
            self._previews[row] = text
            return text
        if entry.length <= SYNC_PREVIEW_BYTES:
            text = preview(self._load_preview_text(entry, is_message))
            self._previews[row] = text
            return text
        self._pending_previews.add(row)
        self._schedule_load()
        return None

    def _load_preview_text(self, entry: m.Entry, is_message: bool) -> str:
        model = self.model
        assert model is not None
        if not is_message:
            return entry_preview_text(entry)
        try:
            msg = model.session.load_message(entry)
        except (OSError, ValueError) as exc:
            return f"(cannot read line {entry.line}: {exc})"
        if msg is None:
            return entry_preview_text(entry)
        return message_preview_text(msg)

    def _schedule_load(self) -> None:
        if not self._load_scheduled:
            self._load_scheduled = True
            self.call_later(self._start_loads)

    def _start_loads(self) -> None:
        self._load_scheduled = False
        if self._pending_previews:
            rows = sorted(self._pending_previews)
            self._pending_previews.clear()
            self._load_previews(rows, self._generation)
        if self._flags.pending and self.model is not None and (todo := self._flags.take(self.model.flag_name)):
            self._judge(self.model, self.model.flag_name, todo)
        if self._pending_counts:
            positions = sorted(self._pending_counts - self._counting)
            self._pending_counts.clear()
            if positions:
                self._counting.update(positions)
                self._count_tokens(positions, self._generation)

    @work(thread=True, group="previews", description="previews")
    def _load_previews(self, rows: list[int], generation: int) -> None:
        model = self.model
        if model is None:
            return
        out: dict[int, str] = {}
        for row in rows:
            entry = model.entry(row)
            out[row] = preview(self._load_preview_text(entry, True))
        self.post_message(self.PreviewsLoaded(out, generation))

    @on(PreviewsLoaded)
    def _previews_loaded(self, message: PreviewsLoaded) -> None:
        message.stop()
        if message.generation != self._generation:
            return
        for row, text in message.out.items():
            self._previews[row] = text
        self._strips.clear()
        self.refresh()

    # -- lazy mis-estimate flags -----------------------------------------------------------------

    def _want_flag(self, pos: int) -> None:
        if self.model is not None and self._flags.want(self.model.flag_name, pos):
            self._schedule_load()

    @work(thread=True, group="flags", description="mis-estimate flags")
    def _judge(self, model: TranscriptModel, name: str, positions: list[int]) -> None:
        worker = get_current_worker()
        judge_rows(model, name, positions, self.post_message, lambda: worker.is_cancelled)

    @on(FlagsLoaded)
    def _flags_loaded(self, message: FlagsLoaded) -> None:
        message.stop()
        message.model.set_flags(message.name, message.out)
        self._flags.done(message)
        if message.model is self.model:
            self._strips.clear()
            self.refresh()

    # -- lazy tiktoken ----------------------------------------------------------------------------

    def _want_count(self, pos: int) -> None:
        if pos in self._counting or self.encoding is None or (self.model is not None and pos in self.model.tiktoken):
            return
        self._pending_counts.add(pos)
        self._schedule_load()

    def request_counts(self, positions: list[int]) -> None:
        """Count tiktoken tokens for these context positions in the background (if not known yet)."""
        if self.model is None or self.encoding is None:
            return
        todo = [p for p in positions if p not in self.model.tiktoken and p not in self._counting]
        if todo:
            self._counting.update(todo)
            self._count_tokens(todo, self._generation)

    @work(thread=True, group="tiktoken", description="tiktoken")
    def _count_tokens(self, positions: list[int], generation: int) -> None:
        model = self.model
        if model is None or self.encoding is None:
            return
        counter = get_token_counter(self.encoding)
        worker = get_current_worker()
        for start in range(0, len(positions), TIKTOKEN_BATCH):
            if worker.is_cancelled:  # the screen left or the app quits: the thread ends within one batch
                return
            out: dict[int, int | None] = {}
            for pos in positions[start : start + TIKTOKEN_BATCH]:
                msg_row = model.ctx.messages[pos]
                try:
                    msg = model.session.load_message(model.entry_at(msg_row.entry_index))
                except (OSError, ValueError, IndexError):
                    msg = None
                out[pos] = counter.count_message(msg) if (msg is not None and counter.available) else None
            self.post_message(self.CountsLoaded(model, out))

    @on(CountsLoaded)
    def _counts_loaded(self, message: CountsLoaded) -> None:
        message.stop()
        model, out = message.model, message.out
        model.set_tiktoken(out)
        self._counting.difference_update(out)
        if model is self.model:
            self._strips.clear()
            self.refresh()
            self.post_message(self.CountsUpdated())

    def unit(self) -> str:
        """Unit of the size columns under the current estimator."""
        return ESTIMATOR_UNITS.get(self.estimator, "")
