"""The inspector of one session: header, transcript, gauge, breakdown, detail; live follow; search and jumps.

All engine work (indexing, refresh, context, figures, search) runs in thread workers; results come back to
the UI thread and are applied there. The screen owns the `Session`; widgets get a `TranscriptModel`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, TabbedContent, TabPane

from inspector.session import Session, SessionOpenError
from inspector.tail import tail_session

from ..breakdown import ContextBreakdown
from ..detail import MessageDetail
from ..gauge import ContextGauge
from ..heap import freeze_long_lived
from ..new_entries import NewEntriesIndicator
from ..notice_bar import NoticeBar
from ..options import InspectorOptions
from ..search import find_match
from ..search_bar import SearchBar
from ..session_figures import SessionFigures, compute_figures, expired_markers, is_unsupported, load_window_options
from ..session_header import SessionHeader
from ..transcript import Transcript
from ..transcript_columns import TranscriptColumns
from ..transcript_model import ESTIMATOR_LABELS, ESTIMATORS, TranscriptModel
from .diagnostics import DiagnosticsScreen
from .error import ErrorInfo, ErrorScreen
from .filter import FilterScreen
from .help import HelpScreen
from .live_follow import LiveFollow

TIKTOKEN_ALL_BELOW = 20_000
DETAIL_DEBOUNCE = 0.06


TAIL_FIRST_MIN_BYTES = 32 * 1024 * 1024
TAIL_FIRST_ENTRIES = 1000

class InspectorScreen(LiveFollow, Screen):
    """One session file, live."""

    BINDINGS = [
        Binding("e", "next_estimator", "Estimator", tooltip="Cycle pi chars/4 → OpenClaw pruning chars → tiktoken → recorded usage"),
        Binding("o", "toggle_off_path", "Off-path", tooltip="Show every entry in file order, off-path branches included"),
        Binding("slash", "search", "Search", tooltip="Search messages from the cursor"),
        Binding("n", "search_next", "Next match", show=False, tooltip="Next search match"),
        Binding("N", "search_previous", "Previous match", show=False, tooltip="Previous search match"),
        Binding("f", "filter", "Filter", tooltip="Show only some roles / tools"),
        Binding("u", "next_user", "Next user", tooltip="Jump to the next user message"),
        Binding("U", "previous_user", "Previous user", show=False, tooltip="Jump to the previous user message"),
        Binding("c", "next_compaction", "Compaction", tooltip="Jump to the next compaction"),
        Binding("b", "next_biggest", "Biggest", tooltip="Jump to the next biggest message"),
        Binding("m", "show_message", "Message", show=False, tooltip="Show the selected message in full"),
        Binding("w", "show_context", "Where it goes", show=False, tooltip="Breakdown by tool and role, largest messages"),
        Binding("a", "detail_show_all", "Show all", show=False, tooltip="Show long blocks of the message in full"),
        Binding("r", "detail_raw", "Raw JSON", show=False, tooltip="Show the raw JSON line of the message"),
        Binding("d", "diagnostics", "Diagnostics", show=False, tooltip="List damaged lines and other problems"),
        Binding("z", "zoom", "Zoom message", show=False, tooltip="Show the selected message full screen (again to restore)"),
        Binding("p", "pruning", "Pruning", tooltip="Preview OpenClaw context pruning: soft trim / hard clear, settings live"),
        Binding("t", "app.change_theme", "Theme", show=False, tooltip="Change the colour theme"),
        Binding("question_mark", "help", "Help", tooltip="Keys and what the columns mean"),
        Binding("escape", "back", "Back", show=False, tooltip="Back to the session list"),
    ]

    def __init__(self, path: Path, options: InspectorOptions, *, can_go_back: bool = True) -> None:
        """`can_go_back` False: Escape does not return to the screen below (the demo opened over an empty browser)."""
        super().__init__()
        self.can_go_back = can_go_back
        self.path = Path(path)
        self.options = options
        self.session: Session | None = None
        self.model: TranscriptModel | None = None
        self.figures: SessionFigures | None = None
        self.estimator = "pi"
        self.show_off_path = False
        self.search_query = ""
        self._refreshing = False
        self._loading: Session | None = None
        self._window_options = None
        self._biggest: list[int] | None = None
        self._biggest_rank = -1
        self._detail_timer = None
        self._config_error: str | None = None
        self._full_figures_at = 0.0
        self._last_append_at = 0.0

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="header")
        yield NoticeBar(id="notice")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield TranscriptColumns(id="columns")
                yield Transcript(encoding=self.options.encoding, id="transcript")
                yield NewEntriesIndicator(id="new-entries")
                yield SearchBar(id="search")
            with Vertical(id="right"):
                yield ContextGauge(id="gauge")
                with TabbedContent(initial="tab-context", id="tabs"):
                    with TabPane("Where it goes", id="tab-context"):
                        yield ContextBreakdown(id="breakdown")
                    with TabPane("Message", id="tab-message"):
                        yield MessageDetail(encoding=self.options.encoding, id="detail")
        yield Footer()

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#transcript", Transcript)

    def on_mount(self) -> None:
        self.query_one("#header", SessionHeader).loading_text = f"opening {self.path} …"
        if not self.options.animations:
            self.query_one("#search", SearchBar).cursor_blink = False
        self.transcript.focus()
        self._open()
        self._progress_timer = self.set_interval(0.1, self._show_progress)
        if self.options.poll_interval:
            self.set_interval(self.options.poll_interval, self.check_for_updates)

    # -- opening --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="open", description="open")
    def _open(self) -> None:
        window_options, loaded = load_window_options(self.options)
        self._window_options = window_options
        self._config_error = loaded.error
        self._show_tail_first()
        session = Session(self.path)
        self._loading = session
        try:
            session.load()
        except SessionOpenError as exc:
            self.app.call_from_thread(self._open_failed, ErrorInfo.from_open_error(self.path, str(exc)))
            return
        except OSError as exc:
            self.app.call_from_thread(self._open_failed, ErrorInfo.from_open_error(self.path, f"{self.path}: {exc.strerror or exc}"))
            return
        if is_unsupported(session):
            details = [f"line {d.line}: {d.message}" if d.line else d.message for d in session.diagnostics[:6]]
            self.app.call_from_thread(self._open_failed, ErrorInfo.unsupported(self.path, details))
            return
        ctx = session.context()
        model = TranscriptModel(session, ctx)
        model.prepare(self.estimator)
        model.expired = expired_markers(session, ctx, window_options, self.options.clock)
        figures = compute_figures(session, ctx, window_options, self.estimator, self._live_text(session))
        freeze_long_lived()
        self.app.call_from_thread(self._opened, session, model, figures)

    def _show_tail_first(self) -> None:
        """On a big file, show its last entries at once (read from the end) while the whole file is indexed."""
        try:
            if os.path.getsize(self.path) < TAIL_FIRST_MIN_BYTES:
                return
            tail = tail_session(self.path, TAIL_FIRST_ENTRIES)
        except (OSError, ValueError):
            return
        if tail is None or not tail.entries:
            return
        model = TranscriptModel(tail, tail.context())
        model.prepare(self.estimator)
        self.app.call_from_thread(self._tail_ready, model)

    def _tail_ready(self, model: TranscriptModel) -> None:
        if self.session is not None:  # the full index won the race
            return
        self.transcript.set_model(model, cursor=len(model) - 1)
        self.query_one("#notice", NoticeBar).show(
            f"showing the last {len(model.session.entries):,} entries while the whole file is indexed", "info"
        )

    def _show_progress(self) -> None:
        session = self._loading
        if self.session is not None or session is None:
            return
        try:
            total = os.stat(self.path).st_size
        except OSError:
            return
        done = session.bytes_indexed
        pct = 100 * done / total if total else 100
        self.query_one("#header", SessionHeader).loading_text = f"indexing {self.path.name}: {pct:.0f}% of {total / 1e6:,.1f} MB · {len(session.entries):,} entries"

    def _open_failed(self, info: ErrorInfo) -> None:
        self.app.push_screen(ErrorScreen(info, covers=1))

    def _opened(self, session: Session, model: TranscriptModel, figures: SessionFigures) -> None:
        self.session = session
        self._loading = None
        self._progress_timer.stop()
        self._full_figures_at = time.monotonic()
        self.model = model
        self.transcript.set_model(model, cursor=len(model) - 1)
        notice = self.query_one("#notice", NoticeBar)
        if notice.severity == "info":
            notice.show("")
        self._apply_figures(figures)
        if self._config_error:
            self.notify(self._config_error, title="OpenClaw config ignored", severity="warning", markup=False)

    def _live_text(self, session: Session) -> str:
        if session.pending_bytes:
            return f"writer mid-line ({session.pending_bytes} bytes waiting)"
        return f"live · checked {self.options.clock.now().astimezone().strftime('%H:%M:%S')}" if self.options.poll_interval else ""

    def _apply_figures(self, figures: SessionFigures) -> None:
        self.figures = figures
        self.query_one("#header", SessionHeader).data = figures.header
        self.query_one("#gauge", ContextGauge).data = figures.gauge
        self.query_one("#breakdown", ContextBreakdown).show(figures.breakdown, self._unit(), figures.breakdown_note)
        self._update_columns()
        damaged = figures.damaged_lines
        notice = self.query_one("#notice", NoticeBar)
        if damaged:
            shown = ", ".join(str(n) for n in damaged[:12]) + (" …" if len(damaged) > 12 else "")
            notice.show(f"{len(damaged)} damaged line(s) skipped, as pi does: line {shown} · d: list diagnostics", "error")
        elif notice.severity == "error":
            notice.show("")

    def _unit(self) -> str:
        return "chars" if self.estimator == "prune" else "tok"

    def _update_columns(self) -> None:
        columns = self.query_one("#columns", TranscriptColumns)
        columns.estimator = self.estimator
        columns.row_count = self.model.row_count if self.model else 0
        title = "all entries" if self.show_off_path else "message"
        if self.model is not None and self.model.filtered:
            shown = sorted((self.model.filter_roles or set()) | (self.model.filter_tools or set()))
            title += f" · filter: {', '.join(shown)} ({len(self.model):,} of {self.model.row_count:,})"
        if self.search_query:
            title += f" · search: {self.search_query}"
        columns.title = title

    # -- transcript events -----------------------------------------------------------------------

    @on(Transcript.Highlighted)
    def _highlighted(self, event: Transcript.Highlighted) -> None:
        if self.model is not None and event.position >= len(self.model) - 1:
            self.query_one("#new-entries", NewEntriesIndicator).count = 0
        if self.query_one("#tabs", TabbedContent).active == "tab-message":
            if self._detail_timer is not None:
                self._detail_timer.stop()
            self._detail_timer = self.set_timer(DETAIL_DEBOUNCE, self._show_detail)

    @on(Transcript.Selected)
    def _selected(self, event: Transcript.Selected) -> None:
        self.action_show_message()

    @on(NewEntriesIndicator.Clicked)
    def _indicator_clicked(self) -> None:
        self.transcript.action_last()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-message":
            self._show_detail()

    def _show_detail(self) -> None:
        row = self.transcript.current_row
        if self.model is not None and row is not None:
            self.query_one("#detail", MessageDetail).show_row(self.model, row)

    @on(ContextBreakdown.JumpRequested)
    def _jump_to_context(self, event: ContextBreakdown.JumpRequested) -> None:
        model = self.model
        if model is None or event.context_index >= len(model.ctx.messages):
            return
        row = model.row_of_entry(model.ctx.messages[event.context_index].entry_index)
        self._move_to_row(row)

    def _move_to_row(self, row: int | None) -> None:
        model = self.model
        if model is None or row is None:
            return
        position = model.view_index(row)
        if position is None:
            self.notify("That message is hidden by the filter (f, then c to clear).", severity="warning")
            return
        self.transcript.move_to(position)
        self.transcript.focus()

    # -- actions ----------------------------------------------------------------------------------

    def action_next_estimator(self) -> None:
        self.set_estimator(ESTIMATORS[(ESTIMATORS.index(self.estimator) + 1) % len(ESTIMATORS)])

    def set_estimator(self, estimator: str) -> None:
        """Switch the transcript's size columns (and the breakdown where it applies) to `estimator`."""
        self.estimator = estimator
        self._biggest = None
        if self.model is None or self.session is None:
            self.transcript.estimator = estimator
            self._update_columns()
            return
        self._prepare_estimator(self.session, self.model, estimator)

    @work(thread=True, exclusive=True, group="breakdown", description="estimator")
    def _prepare_estimator(self, session: Session, model: TranscriptModel, estimator: str) -> None:
        from ..session_figures import breakdown_for

        model.prepare(estimator)
        data, note = breakdown_for(session, model.ctx, estimator)
        self.app.call_from_thread(self._estimator_ready, model, estimator, data, note)

    def _estimator_ready(self, model: TranscriptModel, estimator: str, data, note) -> None:
        if estimator != self.estimator:
            return
        self.transcript.estimator = estimator
        self._update_columns()
        self.query_one("#breakdown", ContextBreakdown).show(data, "chars" if estimator == "prune" else "tok", note)
        if estimator == "tiktoken" and model is self.model and model.message_count <= TIKTOKEN_ALL_BELOW:
            self.transcript.request_counts(list(range(model.message_count)))

    def action_toggle_off_path(self) -> None:
        if self.session is None or self.model is None:
            return
        self.show_off_path = not self.show_off_path
        row = self.transcript.current_row
        entry_index = self.model.entry(row).index if row is not None else None
        self._build_view(self.session, self.model, self.show_off_path, entry_index, self.estimator)

    @work(thread=True, exclusive=True, group="view", description="view")
    def _build_view(self, session: Session, old: TranscriptModel, off_path: bool, entry_index: int | None, estimator: str) -> None:
        model = TranscriptModel(session, old.ctx, show_off_path=off_path)
        model.set_filters(old.filter_roles, old.filter_tools)
        model.tiktoken.update(old.tiktoken)
        model.expired = old.expired
        model.prepare(estimator)
        target = model.row_of_entry(entry_index) if entry_index is not None else None
        self.app.call_from_thread(self._view_ready, model, target)

    def _view_ready(self, model: TranscriptModel, target: int | None) -> None:
        if model.show_off_path != self.show_off_path:
            return
        self.model = model
        self._biggest = None
        self.transcript.set_model(model, keep_cursor_row=target if target is not None else 0)
        self._update_columns()

    def action_search(self) -> None:
        self.query_one("#search", SearchBar).open()

    @on(SearchBar.SearchRequested)
    def _search_requested(self, event: SearchBar.SearchRequested) -> None:
        self.search_query = event.query
        self.transcript.set_search(event.query or None)
        self._update_columns()
        self.transcript.focus()
        self.query_one("#search", SearchBar).remove_class("-shown")
        if event.query:
            self._start_search(backwards=False)

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.transcript.focus()

    def action_search_next(self) -> None:
        self._start_search(backwards=False)

    def action_search_previous(self) -> None:
        self._start_search(backwards=True)

    def _start_search(self, backwards: bool) -> None:
        if not self.search_query or self.model is None:
            if not self.search_query:
                self.action_search()
            return
        self._search(self.model, self.transcript.cursor, self.search_query, backwards)

    @work(thread=True, exclusive=True, group="search", description="search")
    def _search(self, model: TranscriptModel, start: int, query: str, backwards: bool) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        found = find_match(model, start, query, backwards=backwards, cancelled=lambda: worker.is_cancelled)
        self.app.call_from_thread(self._search_done, model, query, found)

    def _search_done(self, model: TranscriptModel, query: str, found: int | None) -> None:
        if model is not self.model:
            return
        if found is None:
            self.notify(f"not found: {query}", severity="warning", markup=False)
        else:
            self.transcript.move_to(found)

    def action_filter(self) -> None:
        model = self.model
        if model is None:
            return

        def apply(result: tuple[list[str], list[str]] | None) -> None:
            if result is None or self.model is None:
                return
            roles, tools = result
            row = self.transcript.current_row
            self.model.set_filters(roles or None, tools or None)
            self._biggest = None
            self.transcript.invalidate()
            if row is not None:
                self.transcript.move_to(self.model.nearest_view_index(row))
            self._update_columns()

        self.app.push_screen(FilterScreen(model.roles(), model.tools(), model.filter_roles, model.filter_tools), apply)

    def _jump(self, predicate: Callable[[int], bool], backwards: bool, what: str) -> None:
        model = self.model
        if model is None:
            return
        found = model.find_next(self.transcript.cursor, predicate, backwards=backwards)
        if found is None:
            self.notify(f"no {what} {'before' if backwards else 'after'} this row", severity="warning", timeout=2)
        else:
            self.transcript.move_to(found)

    def action_next_user(self) -> None:
        if self.model is not None:
            self._jump(self.model.is_user, False, "user message")

    def action_previous_user(self) -> None:
        if self.model is not None:
            self._jump(self.model.is_user, True, "user message")

    def action_next_compaction(self) -> None:
        model = self.model
        if model is None:
            return
        found = model.find_next(self.transcript.cursor, model.is_compaction)
        if found is None:
            found = model.find_next(-1, model.is_compaction)
        if found is None:
            self.notify("no compaction in this view", severity="warning", timeout=2)
        else:
            self.transcript.move_to(found)

    def action_next_biggest(self) -> None:
        model = self.model
        if model is None:
            return
        estimator = self.estimator
        if self._biggest is None:
            self._biggest = model.biggest(estimator)
            self._biggest_rank = -1
        if not self._biggest:
            self.notify("no sizes known under this estimator yet", severity="warning", timeout=2)
            return
        self._biggest_rank = (self._biggest_rank + 1) % len(self._biggest)
        self.transcript.move_to(self._biggest[self._biggest_rank])
        self.notify(f"#{self._biggest_rank + 1} largest ({ESTIMATOR_LABELS[estimator]})", timeout=1.5)

    def action_show_message(self) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        if tabs.active != "tab-message":
            tabs.active = "tab-message"
        else:
            self._show_detail()

    def action_show_context(self) -> None:
        self.query_one("#tabs", TabbedContent).active = "tab-context"

    def action_detail_show_all(self) -> None:
        self.action_show_message()
        self.query_one("#detail", MessageDetail).action_show_all()

    def action_detail_raw(self) -> None:
        self.action_show_message()
        self.query_one("#detail", MessageDetail).action_toggle_raw()

    def action_diagnostics(self) -> None:
        if self.figures is None:
            return

        def go_to_line(line: int | None) -> None:
            model = self.model
            if line is None or model is None:
                return
            for row in range(model.row_count):
                if model.entry(row).line >= line:
                    self._move_to_row(row)
                    return

        self.app.push_screen(DiagnosticsScreen(self.figures.diagnostics), go_to_line)

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
            self.transcript.focus()
            return
        self.action_show_message()
        detail = self.query_one("#detail", MessageDetail)
        detail.focus()
        self.maximize(detail, container=False)

    def action_pruning(self) -> None:
        """Open the pruning preview (OpenClaw cache-TTL pruning) on this session, at the injected clock's time."""
        if self.session is None:
            return
        from .pruning import PruningScreen

        clock = self.options.clock
        config = self._window_options.config if self._window_options is not None else None
        self.app.push_screen(
            PruningScreen(
                self.session,
                config=config,
                context_window=self.options.context_window,
                encoding=self.options.encoding,
                now_ms=lambda: int(clock.now().timestamp() * 1000),
            )
        )

    def action_help(self) -> None:
        rows = []
        for binding in [*self.BINDINGS, *Transcript.BINDINGS]:
            assert isinstance(binding, Binding)
            rows.append((binding.key.replace("question_mark", "?").replace("slash", "/"), binding.description, binding.tooltip or ""))
        rows.append(("ctrl+p", "Command palette", "Every action by name, themes too"))
        rows.append(("q", "Quit", ""))
        self.app.push_screen(HelpScreen(rows, f"Session Inspector · {self.path.name}"))

    def action_back(self) -> None:
        if self.can_go_back and len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """Every action of this screen for the command palette: (title, help, callback)."""
        out: list[tuple[str, str, Callable[[], object]]] = []
        seen: set[str] = set()
        for binding in self.BINDINGS:
            assert isinstance(binding, Binding)
            if binding.action in seen:
                continue
            seen.add(binding.action)
            out.append((binding.description, f"{binding.tooltip} ({binding.key})", lambda a=binding.action: self.run_action(a)))
        for est in ESTIMATORS:
            out.append((f"Estimator: {ESTIMATOR_LABELS[est]}", "Show sizes under this estimator", lambda e=est: self.set_estimator(e)))
        out.append(("Jump to first row", "home / g", self.transcript.action_first))
        out.append(("Jump to last row (follow)", "end / G", self.transcript.action_last))
        return out
