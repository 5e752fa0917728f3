"""The session browser: sessions found in a directory (or OpenClaw's and pi's default places), live.

Discovery runs in a thread worker and posts `Discovered`: the list is shown at once, figures `…`. Another thread
worker then reads each file's figures, the rows on screen first (also after a scroll or a sort), in two passes: the
glance (`inspector.host.listing`: header and tail, what `ls --json` prints; milliseconds per file), then the full
summary (`inspector.figures.file_summary`, the figures of `ls --json --figures`: an index of the file). Each pass posts its
results in batches (`Glanced`, `Summarized`) and only those rows are redrawn. A directory watcher (watchfiles, or a test's
`ManualWatcher`) triggers a new discovery whenever a file appears, changes or disappears. When the watcher fails
(watchfiles cannot decode a file name that is not UTF-8, cannot watch an unreadable subdirectory, runs out of
inotify watches...) the browser says so and rescans on a timer instead: nothing outside the open file may end
the app. When started without a directory and nothing is found, the browser hands over to the bundled demo session.

The sessions of OpenClaw's SQLite stores (2026.7+) are rows too (`store_rows`): their figures are the store's own
(events, the key's context-token counter and compaction count, label or display name), never read from a file;
Enter opens the session through its mirror (`InspectorScreen` on the store with `--session` its id).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from inspector.figures.file_summary import SessionSummary, summarize_session
from inspector.host.discovery import Discovery, SessionFile, discover_sessions, pi_agent_dir
from inspector.host.discovery.names import ms_to_datetime
from inspector.host.discovery.stores import StoreListing
from inspector.host.listing import GlanceReader, SessionGlance, glance_session
from inspector.host.listing.file_memo import FileMemo
from inspector.host.openclaw_config import openclaw_state_dir

from ..commands import PaletteCommand, binding_commands, help_rows
from ..inert import one_line
from ..options import InspectorOptions
from .fill import FigureFill, Glanced, Summarized, end_pool, worker_pool
from .table import COLUMNS, FIGURE_COLUMNS, BrowserRow, SessionTable
from .watch import DirectoryWatcher, WatchfilesWatcher

RESCAN_EVERY = 5.0
"""Seconds between rescans once the directory watcher has failed."""
RESORT_EVERY = 0.5
"""While figures arrive, a sort on a figure column is redone at most this often."""


class TitleBar(Widget):
    """One line of plain text; `set` redraws it only when the text changed (no layout pass, unlike `Static`)."""

    DEFAULT_CSS = "TitleBar { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""

    def set(self, text: str) -> None:
        """Show `text` (inert: drawn as a plain `Text`)."""
        if text != self.text:
            self.text = text
            self.refresh()

    def render(self) -> Text:
        return Text(self.text, no_wrap=True, overflow="ellipsis")


class Discovered(Message):
    """A discovery finished: the files and warnings `found`."""

    def __init__(self, found: Discovery) -> None:
        super().__init__()
        self.found = found


STORE_ROW_MARK = "#session="
"""A store session's row key: `<store path>#session=<session id>` (no file has it: never glanced nor summarized)."""


def store_rows(stores: list[StoreListing]) -> dict[str, tuple[SessionFile, SessionSummary]]:
    """One row per session of each store, keyed `<store>#session=<id>`, with the store's figures as its summary."""
    from datetime import UTC, datetime

    out: dict[str, tuple[SessionFile, SessionSummary]] = {}
    for listing in stores:
        for s in listing.sessions:
            path = Path(f"{listing.path}{STORE_ROW_MARK}{s.session_id}")
            updated = ms_to_datetime(s.updated_at)
            row = SessionFile(
                path=path, kind="archive" if s.archived_at is not None else "live", source="openclaw", size=0,
                mtime=updated or datetime.fromtimestamp(0, tz=UTC), session_id=s.session_id, session_key=s.session_key,
                updated_at=updated, agent_id=s.agent_id, archive_reason="archived" if s.archived_at is not None else None,
                archived_at=ms_to_datetime(s.archived_at), format="sqlite",
            )
            summary = SessionSummary(messages=s.events, context_tokens=s.tokens.get("context"), compactions=s.compaction_count, name=s.name)
            out[str(path)] = (row, summary)
    return out


class BrowserScreen(Screen):
    """A sortable, filterable, live table of session files; Enter opens one."""

    DEFAULT_CSS = """
    BrowserScreen {
        & #browser-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
        & #browser-filter { border: tall $border-blurred; }
        & #browser-filter:focus { border: tall $accent; }
        & #browser-warnings { height: auto; max-height: 4; color: $text-warning; padding: 0 1; }
    }
    """

    BINDINGS = [
        Binding("enter", "open", "Open", tooltip="Open the highlighted session", id="browser.open"),
        Binding("slash", "focus_filter", "Filter", tooltip="Filter as you type", id="browser.filter"),
        Binding("s", "next_sort", "Sort", tooltip="Sort by the next column", id="browser.sort"),
        Binding("S", "reverse_sort", "Reverse", tooltip="Reverse the sort order", id="browser.reverse_sort"),
        Binding("ctrl+r", "rescan", "Rescan", show=False, tooltip="Look for sessions again", id="browser.rescan"),
        Binding("t", "app.change_theme", "Theme", show=False, tooltip="Change the colour theme", id="browser.theme"),
        Binding("question_mark", "help", "Help", tooltip="Keys", id="browser.help"),
        Binding("escape", "clear_filter", "Clear filter", show=False, tooltip="Clear the filter", id="browser.clear_filter"),
    ]

    glance_reader: GlanceReader = staticmethod(glance_session)
    """One file's glance (a persistent cache can stand in front of it)."""
    summary_reader: Callable[[Path], SessionSummary] = staticmethod(summarize_session)
    """One file's full summary (a module-level function: it runs in a worker process)."""
    use_processes = True
    """Read figures in worker processes (False: in the fill thread)."""

    def __init__(self, root: Path | None, options: InspectorOptions, on_empty: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.root = root
        self.options = options
        self.on_empty = on_empty
        self.files: list[SessionFile] = []
        self.warnings: list[str] = []
        self.glances: FileMemo[SessionGlance] = FileMemo(self.glance_reader)
        self.summaries: FileMemo[SessionSummary] = FileMemo(self.summary_reader)
        self._resort_due = False
        self._by_path: dict[str, SessionFile] = {}
        self._rows: dict[str, BrowserRow] = {}
        self._summarized: set[str] = set()
        self._store_rows: dict[str, tuple[SessionFile, SessionSummary]] = {}
        self._pools: tuple[ProcessPoolExecutor, ProcessPoolExecutor] | None = None
        self.sort_column = "updated"
        self.reverse = True
        self.watcher: DirectoryWatcher | None = None
        self.watch_error: str | None = None
        self.discoveries = 0

    def compose(self) -> ComposeResult:
        yield TitleBar(id="browser-title")
        yield Input(placeholder="filter: agent, session, path, kind… (/ to focus, Esc to clear)", id="browser-filter")
        yield SessionTable(id="sessions")
        yield Static("", id="browser-warnings")
        yield Footer()

    def on_mount(self) -> None:
        if not self.options.animations:
            self.query_one("#browser-filter", Input).cursor_blink = False
        self.query_one(SessionTable).focus()
        self._update_title()
        self.rescan()
        self._watch()

    # -- discovery --------------------------------------------------------------------------------

    def watch_paths(self) -> list[Path]:
        """What the watcher observes: the root, or OpenClaw's agents dir and pi's sessions dir."""
        if self.root is not None:
            return [self.root]
        env, home = self.options.env, self.options.home
        return [openclaw_state_dir(env, home) / "agents", pi_agent_dir(env, home) / "sessions"]

    def rescan(self) -> None:
        """Run discovery again (thread worker)."""
        self._discover()

    @work(thread=True, exclusive=True, group="discover", description="discover")
    def _discover(self) -> None:
        if self.root is not None:
            found = discover_sessions(self.root, home=self.options.home, env=self.options.env, formats=False)
        else:
            found = discover_sessions(home=self.options.home, env=self.options.env, formats=False)
        self.post_message(Discovered(found))

    @on(Discovered)
    def _discovered(self, message: Discovered) -> None:
        found = message.found
        self.discoveries += 1
        self._store_rows = store_rows(found.stores)
        self.files = found.sessions + [row for row, _ in self._store_rows.values()]
        self._by_path = {str(f.path): f for f in self.files}
        self._rows = {}
        self._summarized = {key for key in self._by_path if key in self._store_rows or self.summaries.peek(Path(key)) is not None}
        self.warnings = found.warnings
        if not self.files and self.root is None and self.on_empty is not None:
            callback, self.on_empty = self.on_empty, None
            callback()
            return
        self._redraw()
        self._show_warnings()
        self._fill([f.path for f in self.files if str(f.path) not in self._store_rows])

    def _visible_paths(self) -> list[Path]:
        """The files on screen (asked from the fill thread; none once the screen is gone)."""
        try:
            table = self.query_one(SessionTable)
        except NoMatches:
            return []
        return [r.file.path for r in table.visible_rows()]

    @work(thread=True, exclusive=True, group="figures", description="figures")
    def _fill(self, paths: list[Path]) -> None:
        """Glance at and summarize every file, the rows on screen first (`fill.FigureFill`)."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        fill = FigureFill(self, paths, self._visible_paths, self.glances, self.summaries, self._worker_pools())
        fill.run(lambda: worker.is_cancelled)

    def _worker_pools(self) -> tuple[Executor, Executor] | None:
        """The worker processes figures are read in (started once: glances, summaries); None: read them here."""
        if self._pools is None and self.use_processes:
            try:
                self._pools = (worker_pool(), worker_pool())
            except (OSError, ValueError):  # no processes here (a sandbox, a resource limit): read in the fill thread
                self.use_processes = False
        return self._pools

    @on(Glanced)
    @on(Summarized)
    def _figures_arrived(self, message: Glanced | Summarized) -> None:
        table = self.query_one(SessionTable)
        rows = {key: self._row(self._by_path[key]) for key in map(str, message.paths) if key in self._by_path}
        table.update_rows(rows)
        if isinstance(message, Summarized):
            self._summarized.update(rows)
        if self.sort_column in FIGURE_COLUMNS and not self._resort_due:
            self._resort_due = True
            self.set_timer(RESORT_EVERY, self._resort)
        self._update_title()

    def _resort(self) -> None:
        self._resort_due = False
        self._redraw()

    def _show_warnings(self) -> None:
        shown = ([f"live updates: {self.watch_error}"] if self.watch_error else []) + self.warnings
        self.query_one("#browser-warnings", Static).update(Text("\n".join(one_line(w, 200) for w in shown[:4])))

    @work(exclusive=True, group="watch", description="watch")
    async def _watch(self) -> None:
        factory = self.options.watcher_factory or (lambda paths: WatchfilesWatcher(paths))
        try:
            self.watcher = factory(self.watch_paths())
            async for _changes in self.watcher.changes():
                self.rescan()
        except Exception as exc:
            self._watch_failed(exc)

    def _watch_failed(self, exc: BaseException) -> None:
        """The watcher stopped: say why and rescan every `RESCAN_EVERY` seconds instead."""
        first = exc
        while isinstance(first, BaseExceptionGroup) and first.exceptions:
            first = first.exceptions[0]
        self.watch_error = f"watching stopped ({type(first).__name__}: {first}); rescanning every {RESCAN_EVERY:g} s"
        if self.is_attached:
            self._show_warnings()
            self.set_interval(RESCAN_EVERY, self.rescan)

    def on_unmount(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        for pool in self._pools or ():
            end_pool(pool)

    # -- drawing ----------------------------------------------------------------------------------

    def _row(self, file: SessionFile) -> BrowserRow:
        stored = self._store_rows.get(str(file.path))
        if stored is not None:
            row = BrowserRow(file, stored[1])
            self._rows[str(file.path)] = row
            return row
        row = BrowserRow(file, self.summaries.peek(file.path), self.glances.peek(file.path))
        self._rows[str(file.path)] = row
        return row

    def rows(self) -> list[BrowserRow]:
        """Every discovered file with the figures read so far (not re-checked against the file: the fill does)."""
        return [self._rows.get(key) or self._row(f) for key, f in self._by_path.items()]

    def _redraw(self) -> None:
        table = self.query_one(SessionTable)
        text_filter = self.query_one("#browser-filter", Input).value
        table.show(self.rows(), self.options.clock.now(), self.sort_column, self.reverse, text_filter)
        self._update_title()

    def _update_title(self) -> None:
        where = str(self.root) if self.root is not None else "OpenClaw and pi default places"
        table = self.query_one(SessionTable)
        shown = len(table.rows_shown)
        count = f"{shown} of {len(self.files)}" if shown != len(self.files) else f"{len(self.files)}"
        status = "scanning…" if self.discoveries == 0 else f"{count} session file(s)"
        done = len(self._summarized)
        if self.discoveries and done < len(self.files):
            status += f" · reading figures, {done} of {len(self.files)} done"
        self.query_one("#browser-title", TitleBar).set(one_line(f"Sessions · {status} in {where}", 300))

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self) -> None:
        self._redraw()

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self) -> None:
        self.query_one(SessionTable).focus()

    @on(SessionTable.HeaderSelected)
    def _header_selected(self, event: SessionTable.HeaderSelected) -> None:
        key = event.column_key
        if key == self.sort_column:
            self.reverse = not self.reverse
        else:
            self.sort_column, self.reverse = str(key), key in ("updated", "size", "messages", "context", "compactions")
        self._redraw()

    @on(SessionTable.RowSelected)
    def _row_selected(self, event: SessionTable.RowSelected) -> None:
        self.action_open()

    # -- actions ----------------------------------------------------------------------------------

    def action_open(self) -> None:
        path = self.query_one(SessionTable).current_path
        if path is None:
            return
        from ..screens.inspector import InspectorScreen

        stored = self._store_rows.get(str(path))
        if stored is not None:  # a store session: the store, and the session by its id
            from dataclasses import replace

            store = str(path)[: str(path).rindex(STORE_ROW_MARK)]
            self.app.push_screen(InspectorScreen(Path(store), replace(self.options, session=stored[0].session_id)))
            return
        self.app.push_screen(InspectorScreen(Path(path), self.options))

    def action_focus_filter(self) -> None:
        self.query_one("#browser-filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#browser-filter", Input).value = ""
        self.query_one(SessionTable).focus()

    def action_next_sort(self) -> None:
        keys = [k for k, _ in COLUMNS]
        self.sort_column = keys[(keys.index(self.sort_column) + 1) % len(keys)]
        self._redraw()

    def action_reverse_sort(self) -> None:
        self.reverse = not self.reverse
        self._redraw()

    def action_rescan(self) -> None:
        self.rescan()

    def action_help(self) -> None:
        from ..screens.help import HelpScreen

        self.app.push_screen(HelpScreen(help_rows(self, self.BINDINGS), "Session browser"))

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of this screen for the command palette: (title, help, callback)."""
        out = binding_commands(self, self.BINDINGS)
        for key, label in COLUMNS:
            out.append((f"Sort by {label}", "Sort the table by this column", lambda k=key: self._sort_by(k)))
        return out

    def _sort_by(self, key: str) -> None:
        self.sort_column = key
        self._redraw()
