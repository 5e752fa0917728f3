"""The inspector of one session: header, transcript, gauge, breakdown, detail; live follow; search and jumps.

All engine work (indexing, refresh, context, figures, search) runs in thread workers that post their results
as messages (`SessionOpener`, `LiveFollower` and the screen's own `EstimatorReady`, `ViewReady`, `SearchDone`);
`@on` handlers (`on_*` ones in the mixins) apply them on the UI thread. The screen owns the `Session`; widgets get
a `TranscriptModel` and the engine's typed figures (`inspector.figures.overview.SessionFigures`).

Its parts by feature are mixins kept beside their feature: search, filter and jumps (`transcript.inspector_views`),
the side panel (`side_panel`), the compaction forecast and run (`compaction.inspector_views`), the diagnosis
views (`diagnosis.inspector_views`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, TabbedContent, TabPane
from textual.worker import get_current_worker

from inspector.base.clock import now_ms
from inspector.figures.overview import SessionFigures
from inspector.figures.session_figures import WindowOptions
from inspector.session.session import Session

from ..breakdown import ContextBreakdown
from ..commands import PaletteCommand, binding_commands, help_rows
from ..compaction.inspector_views import CompactionViews
from ..detail.detail import MessageDetail
from ..diagnosis.inspector_views import DiagnosisViews
from ..gauge import ContextGauge
from ..inert import make_inert
from ..notice_bar import NoticeBar
from ..options import InspectorOptions
from ..session_header import HeaderData, SessionHeader, foreign_title, store_title
from ..transcript.columns import TranscriptColumns
from ..transcript.estimator_prep import EstimatorReady, prepared_estimator
from ..transcript.estimators import ESTIMATOR_UNITS, ESTIMATORS, breakdown_estimator, estimator_label
from ..transcript.inspector_views import TranscriptViews
from ..transcript.model import TranscriptModel
from ..transcript.navigation import TranscriptNavigator
from ..transcript.new_entries import NewEntriesIndicator
from ..transcript.search_bar import SearchBar
from ..transcript.transcript import Transcript
from .diagnostics import DiagnosticsScreen
from .error import ErrorScreen
from .help import HelpScreen
from .live_follow import FollowView, LiveFollower
from .opening import SessionOpener
from .side_panel import SidePanelViews

TIKTOKEN_ALL_BELOW = 20_000
NARROW_BELOW = 110
"""Below this many columns the side panel (gauge, breakdown, message) goes under the transcript, shown on demand."""
DETAIL_DEBOUNCE = 0.06
TOP_N = 10


class ViewReady(Message):
    """A rebuilt transcript model (off-path toggled), with the row to keep the cursor on."""

    def __init__(self, model: TranscriptModel, target: int | None) -> None:
        super().__init__()
        self.model = model
        self.target = target


class InspectorScreen(DiagnosisViews, TranscriptViews, SidePanelViews, CompactionViews, Screen):
    """One session file, live (search, filter and jumps: `TranscriptViews`; the side panel: `SidePanelViews`;
    compaction: `CompactionViews`; diagnosis: `DiagnosisViews`)."""

    BINDINGS = [
        Binding("e", "next_estimator", "Estimator", tooltip="Cycle pi chars/4 → OpenClaw pruning chars → tiktoken → recorded usage", id="estimator.next"),
        Binding("o", "toggle_off_path", "Off-path", tooltip="Show every entry in file order, off-path branches included", id="transcript.off_path"),
        Binding("slash", "search", "Search", tooltip="Search messages from the cursor", id="search.open"),
        Binding("n", "search_next", "Next match", show=False, tooltip="Next search match", id="search.next"),
        Binding("N", "search_previous", "Previous match", show=False, tooltip="Previous search match", id="search.previous"),
        Binding("f", "filter", "Filter", tooltip="Show only some roles / tools", id="filter.open"),
        Binding("u", "next_user", "Next user", tooltip="Jump to the next user message", id="jump.next_user"),
        Binding("U", "previous_user", "Previous user", show=False, tooltip="Jump to the previous user message", id="jump.previous_user"),
        Binding("c", "next_compaction", "Compaction", tooltip="Jump to the next compaction", id="jump.next_compaction"),
        Binding("C", "compaction_forecast", "Forecast", show=False, tooltip="Compaction forecast: the plan drawn on the transcript, triggers, live settings", id="compaction.forecast"),
        Binding("b", "next_biggest", "Biggest", tooltip="Jump to the next biggest message", id="jump.next_biggest"),
        Binding("m", "show_message", "Message", show=False, tooltip="Show the selected message in full", id="message.show"),
        Binding("w", "show_context", "Where it goes", show=False, tooltip="Breakdown by tool and role; the largest messages take the keyboard (↑↓, Enter jumps)", id="breakdown.show"),
        Binding("a", "detail_show_all", "Show all", show=False, tooltip="Show long blocks of the message in full", id="message.show_all"),
        Binding("r", "detail_raw", "Raw JSON", show=False, tooltip="Show the raw JSON line of the message", id="message.raw"),
        Binding("d", "diagnostics", "Diagnostics", show=False, tooltip="List damaged lines and other problems", id="diagnostics.open"),
        Binding("z", "zoom", "Zoom message", show=False, tooltip="Show the selected message full screen (again to restore)", id="message.zoom"),
        Binding("p", "pruning", "Pruning", tooltip="Preview OpenClaw context pruning: soft trim / hard clear, settings live", id="pruning.preview"),
        Binding("X", "compact", "Compact…", show=False, tooltip="Compact this session (rules by default): confirm, watch the stages, undo", id="compaction.run"),
        Binding("l", "timeline", "Timeline", tooltip="Tokens over calls: jumps and their cause, thresholds, not in the transcript, cost, cache", id="timeline.open"),
        Binding("R", "timeline('repeats')", "Repeats", show=False, tooltip="What keeps repeating (re-reads, commands, errors, retries); Enter: each occurrence", id="timeline.repeats"),
        Binding("s", "toggle_side", "Side panel", tooltip="Show or hide the side panel (under the transcript below 110 columns)", id="side_panel.toggle"),
        Binding("t", "app.change_theme", "Theme", show=False, tooltip="Change the colour theme", id="inspector.theme"),
        Binding("question_mark", "help", "Help", tooltip="Keys and what the columns mean", id="inspector.help"),
        Binding("escape", "back", "Back", show=False, tooltip="Back to the session list", id="inspector.back"),
    ]

    def __init__(self, path: Path, options: InspectorOptions, *, can_go_back: bool = True, demo: str | None = None) -> None:
        """`can_go_back` False: Escape does not return to the screen below (the demo opened over an empty browser).
        `demo`: this is the bundled demo session, and why it was opened (said in the header and the notice bar)."""
        super().__init__()
        self.can_go_back = can_go_back
        self.demo = demo
        self.path = Path(path)
        self.options = options
        self.session: Session | None = None
        self.model: TranscriptModel | None = None
        self.figures: SessionFigures | None = None
        self.estimator = "pi"
        self.show_off_path = False
        self.search_query = ""
        self._detail_timer = None
        self.navigator = TranscriptNavigator(lambda: self.transcript, self.notify)
        self.opener = SessionOpener(self, self.path, options, lambda: self.estimator)
        self.follower = LiveFollower(self, lambda: self.window_options, options.clock, self._live_text, sync=self.opener.sync_store)
        self.init_diagnosis()

    @property
    def window_options(self) -> WindowOptions:
        """OpenClaw's config and the `--context-window` override (loaded by the opener)."""
        return self.opener.window_options or WindowOptions(override=self.options.context_window)

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
        self._fit_width(self.app.size.width)
        self.query_one("#header", SessionHeader).loading_text = f"opening {self.path} …"
        if not self.options.animations:
            self.query_one("#search", SearchBar).cursor_blink = False
        self.transcript.focus()
        self.opener.start()
        if self.options.poll_interval:
            self.set_interval(self.options.poll_interval, self.check_for_updates)

    # -- opening (messages from `SessionOpener`) --------------------------------------------------

    @on(SessionOpener.TailReady)
    def _tail_ready(self, message: SessionOpener.TailReady) -> None:
        if self.session is not None:  # the full index won the race
            return
        model = message.model
        self.transcript.set_model(model, cursor=len(model) - 1)
        self.query_one("#notice", NoticeBar).show(
            f"showing the last {len(model.session.entries):,} entries while the whole file is indexed", "info"
        )

    @on(SessionOpener.Progress)
    def _progress(self, message: SessionOpener.Progress) -> None:
        if self.session is not None:
            return
        pct = 100 * message.done / message.total if message.total else 100
        self.query_one("#header", SessionHeader).loading_text = (
            f"indexing {self.path.name}: {pct:.0f}% of {message.total / 1e6:,.1f} MB · {message.entries:,} entries"
        )

    @on(SessionOpener.Failed)
    def _open_failed(self, message: SessionOpener.Failed) -> None:
        self.app.push_screen(ErrorScreen(message.info, covers=1))

    @on(SessionOpener.Opened)
    def _opened(self, message: SessionOpener.Opened) -> None:
        self.session = message.session
        self.follower.opened()
        self.model = message.model
        self.transcript.set_model(message.model, cursor=len(message.model) - 1)
        notice = self.query_one("#notice", NoticeBar)
        if notice.severity == "info":
            notice.show("")
        self._apply_figures(message.figures)
        if self.demo:
            notice.show(self.demo, "info")
        if self.opener.config_error:
            self.notify(make_inert(self.opener.config_error), title="OpenClaw config ignored", severity="warning", markup=False)

    def _live_text(self, session: Session) -> str:
        if session.pending_bytes:
            return f"writer mid-line ({session.pending_bytes} bytes waiting)"
        return f"live · checked {self.options.clock.now().astimezone().strftime('%H:%M:%S')}" if self.options.poll_interval else ""

    def _apply_figures(self, figures: SessionFigures) -> None:
        self.figures = figures
        live = self._live_text(self.session) if self.session is not None else ""
        header = self.query_one("#header", SessionHeader)
        header.data = HeaderData(
            figures.overview,
            live,
            header.data.fill if header.data else None,
            badge="DEMO" if self.demo is not None else "",
            rules=self.opener.rule_choice,
            store=store_title(self.opener.mirror), foreign=foreign_title(self.opener.foreign),
        )
        self.request_diagnosis(figures)
        self.query_one("#gauge", ContextGauge).data = figures.overview
        _name, note = breakdown_estimator(self.estimator)
        self.query_one("#breakdown", ContextBreakdown).show(figures.breakdown, self._unit(), note)
        self._update_columns()
        damaged = figures.damaged_lines
        notice = self.query_one("#notice", NoticeBar)
        mirror = self.opener.mirror
        if damaged and mirror is not None:  # a store session: damaged events, by seq
            shown = ", ".join(str(mirror.seq_of_line(n)) for n in damaged[:12]) + (" …" if len(damaged) > 12 else "")
            notice.show(f"{len(damaged)} damaged event(s) skipped: seq {shown} · d: list diagnostics", "error")
        elif damaged:
            shown = ", ".join(str(n) for n in damaged[:12]) + (" …" if len(damaged) > 12 else "")
            notice.show(f"{len(damaged)} damaged line(s) skipped, as pi does: line {shown} · d: list diagnostics", "error")
        elif notice.severity == "error":
            notice.show("")

    # -- live follow (messages from `LiveFollower`) ------------------------------------------------

    def check_for_updates(self) -> None:
        """Read what was appended to the file (also called by the poll timer)."""
        if self.session is None or self.model is None:
            return
        self.follower.poll(FollowView(self.session, self.model, self.estimator, self.figures))

    @on(LiveFollower.Failed)
    def _refresh_failed(self, message: LiveFollower.Failed) -> None:
        self.follower.applied(message)
        self.query_one("#notice", NoticeBar).show(message.reason, "error")

    @on(LiveFollower.Idle)
    def _refresh_idle(self, message: LiveFollower.Idle) -> None:
        self.follower.applied(message)
        if self.session is not None and self.model is not None:
            self.follower.maybe_full_figures(self.session, self.model.ctx, self.estimator)
        if message.notice:
            self.query_one("#notice", NoticeBar).show(message.notice, "error")
        header = self.query_one("#header", SessionHeader)
        if header.data is not None and header.data.live != message.live:
            header.data = replace(header.data, live=message.live)

    @on(LiveFollower.Refreshed)
    def _refreshed(self, message: LiveFollower.Refreshed) -> None:
        self.follower.applied(message)
        model, reset, notice = message.model, message.reset, message.notice
        transcript = self.transcript
        old = self.model
        following = transcript.at_bottom
        old_len = len(old) if old is not None else 0
        self.model = model
        self.navigator.rows_changed()
        if reset:
            transcript.set_model(model, cursor=len(model) - 1 if following else min(transcript.cursor, len(model) - 1))
            self.query_one("#notice", NoticeBar).show(notice or "file changed on disk; re-indexed", "info")
            self.notify(make_inert(notice or "re-indexed"), title="Session file replaced", markup=False)
        elif old is not None and (old.extends(model.ctx) or (old.show_off_path and model.show_off_path)):
            transcript.extend_model(model)
        else:
            transcript.set_model(model, keep_cursor_row=transcript.current_row)
        added = len(model) - old_len
        indicator = self.query_one("#new-entries", NewEntriesIndicator)
        if following:
            transcript.action_last()
            indicator.count = 0
        elif added > 0 and not reset:
            indicator.count += added
        self._apply_figures(message.figures)
        self.forecast_follow()

    @on(LiveFollower.FiguresReady)
    def _full_figures_ready(self, message: LiveFollower.FiguresReady) -> None:
        if self.model is not None and self.model.ctx is message.ctx:
            self._apply_figures(message.figures)

    def _unit(self) -> str:
        return ESTIMATOR_UNITS[self.estimator]

    def _update_columns(self) -> None:
        columns = self.query_one("#columns", TranscriptColumns)
        columns.estimator_label = estimator_label(self.estimator, self.session)
        columns.estimator = self.estimator
        columns.row_count = self.model.index_max if self.model else 0
        columns.off_path = self.show_off_path
        columns.title = "all entries" if self.show_off_path else "message"
        status = []
        if self.model is not None and self.model.filtered:
            shown = sorted((self.model.filter_roles or set()) | (self.model.filter_tools or set()))
            status.append(f"filter: {', '.join(shown)} ({len(self.model):,} of {self.model.row_count:,} rows)")
        if self.search_query:
            status.append(f"search: {self.search_query}")
        columns.status = " · ".join(status)

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
        self.navigator.rows_changed()
        if self.model is None or self.session is None:
            self.transcript.estimator = estimator
            self._update_columns()
            return
        self._prepare_estimator(self.session, self.model, estimator)

    @work(thread=True, exclusive=True, group="breakdown", description="estimator")
    def _prepare_estimator(self, session: Session, model: TranscriptModel, estimator: str) -> None:
        ready = prepared_estimator(session, model, estimator, TOP_N, get_current_worker().cancelled_event.is_set)
        if ready is not None:  # else cancelled: a newer switch, or the screen left
            self.post_message(ready)

    @on(EstimatorReady)
    def _estimator_ready(self, message: EstimatorReady) -> None:
        model, estimator = message.model, message.estimator
        if estimator != self.estimator:
            return
        self.transcript.estimator = estimator
        self._update_columns()
        self.query_one("#breakdown", ContextBreakdown).show(message.breakdown, self._unit(), message.note)
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
        model.marks = old.marks
        model.prepare(estimator)
        target = model.row_of_entry(entry_index) if entry_index is not None else None
        self.post_message(ViewReady(model, target))

    @on(ViewReady)
    def _view_ready(self, message: ViewReady) -> None:
        model, target = message.model, message.target
        if model.show_off_path != self.show_off_path:
            return
        self.model = model
        self.navigator.rows_changed()
        self.transcript.set_model(model, keep_cursor_row=target if target is not None else 0)
        self._update_columns()

    # -- width: the side panel beside the transcript, or under it on demand ---------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._fit_width(event.size.width)

    def _fit_width(self, width: int) -> None:
        narrow = width < NARROW_BELOW
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            self.query_one(Footer).compact = narrow

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

        mirror = self.opener.mirror  # a store session: its diagnostics name the event's seq, not the mirror's line
        diagnostics = list(self.figures.diagnostics)
        if mirror is not None:
            self.app.push_screen(DiagnosticsScreen(mirror.diagnostics(diagnostics), seq_of=mirror.seq_of_line), go_to_line)
        else:
            self.app.push_screen(DiagnosticsScreen(diagnostics), go_to_line)

    def action_pruning(self) -> None:
        """Open the pruning preview (OpenClaw cache-TTL pruning) on this session, at the injected clock's time."""
        if self.session is None or self.not_for_foreign("OpenClaw's context pruning"):
            return
        from ..pruning.screen import PruningScreen
        from ..pruning.state import remembered_state

        clock = self.options.clock
        self.app.push_screen(
            PruningScreen(
                self.session,
                config=self.window_options.config,
                context_window=self.options.context_window,
                encoding=self.options.encoding,
                now_ms=lambda: now_ms(clock),
                state=remembered_state(self.app, self.path),
                rules=self.opener.rule_choice.rules,
            )
        )

    def action_help(self) -> None:
        rows = help_rows(self, self.BINDINGS, Transcript.BINDINGS)
        rows.append(("ctrl+p", "Command palette", "Every action by name, themes too"))
        rows.extend(help_rows(self, self.app.BINDINGS))
        self.app.push_screen(HelpScreen(rows, f"Session Inspector · {self.path.name}"))

    def action_back(self) -> None:
        if self.forecast_open():
            self.close_forecast()
            return
        if self.maximized is None and self.focused is not self.transcript and self.focused is not None:
            self.transcript.focus()  # out of the side panel first
            return
        if self.has_class("-narrow") and self.has_class("-side"):
            self.remove_class("-side")
            return
        if self.can_go_back and len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of this screen for the command palette: (title, help, callback)."""
        out = binding_commands(self, self.BINDINGS)
        for est in ESTIMATORS:
            label = estimator_label(est, self.session)
            out.append((f"Estimator: {label}", "Show sizes under this estimator", lambda e=est: self.set_estimator(e)))
        out.append(("Jump to first row", "home / g", self.transcript.action_first))
        out.append(("Jump to last row (follow)", "end / G", self.transcript.action_last))
        return out
