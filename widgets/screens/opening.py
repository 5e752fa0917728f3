"""Opening a session for the inspector screen: thread workers that post what they find as messages.

`SessionOpener.start()` loads OpenClaw's config, shows the tail of a big file first (`TailReady`, read from the end
while the whole file is indexed), restores the index from the cache the CLI shares or indexes the file (and then
saves its snapshot there), and posts `Opened` (session, transcript model, figures) or `Failed` (an `ErrorInfo` for
the error screen). While a big file indexes, a second worker posts `Progress` every
0.1 s (a newer `Progress` replaces an older one still queued). The screen applies them in `@on` handlers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.screen import Screen

from inspector.base.clock import now_ms
from inspector.figures.marks import MarkKind, cache_expiry_marks
from inspector.figures.overview import SessionFigures, is_unsupported
from inspector.figures.session_figures import WindowOptions, load_window_options, session_figures
from inspector.host.discovery.stores import open_store_session, store_of
from inspector.host.openclaw_config import openclaw_config_path
from inspector.host.rules_choice import choose_rules
from inspector.read.formats.mirror import TRANSLATORS, ForeignMirror, sync_foreign
from inspector.read.store.connection import StoreError, connect
from inspector.read.store.mirror import Mirror, sync_mirror
from inspector.rules.ruleset import DEFAULT_RULES, RuleChoice
from inspector.session.index_cache import restore as restore_cached
from inspector.session.index_cache import save_indexed, stat_of
from inspector.session.session import Session, SessionOpenError
from inspector.session.tail import tail_session

from ..heap import freeze_long_lived
from ..options import InspectorOptions
from ..transcript.estimators import breakdown_estimator
from ..transcript.model import TranscriptModel
from ..warm import warm_lazy_imports
from .error import ErrorInfo, special_file_kind

TAIL_FIRST_MIN_BYTES = 32 * 1024 * 1024
TAIL_FIRST_ENTRIES = 1000
PROGRESS_EVERY = 0.1


def bytes_indexed(session: Session) -> int:
    """How far the indexer has read (`Session.bytes_indexed`)."""
    return session.bytes_indexed


class SessionOpener:
    """Opens `path` in thread workers and posts `Opened` / `Failed` / `TailReady` / `Progress` to `screen`."""

    class Opened(Message):
        """The session is indexed: its `session`, the transcript `model` (marks filled) and the `figures`."""

        def __init__(self, session: Session, model: TranscriptModel, figures: SessionFigures) -> None:
            super().__init__()
            self.session = session
            self.model = model
            self.figures = figures

    class Failed(Message):
        """The file cannot be shown as a session: `info` says why (for the error screen)."""

        def __init__(self, info: ErrorInfo) -> None:
            super().__init__()
            self.info = info

    class TailReady(Message):
        """The last entries of a big file, read from its end while the whole file is indexed."""

        def __init__(self, model: TranscriptModel) -> None:
            super().__init__()
            self.model = model

    class Progress(Message):
        """Indexing progress: `done` of `total` bytes, `entries` indexed so far."""

        def __init__(self, done: int, total: int, entries: int) -> None:
            super().__init__()
            self.done = done
            self.total = total
            self.entries = entries

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SessionOpener.Progress)

    def __init__(self, screen: Screen, path: Path, options: InspectorOptions, estimator: Callable[[], str]) -> None:
        """`estimator` is read when the index is done (the user may switch while a big file loads)."""
        self.screen = screen
        self.path = path
        self.options = options
        self.estimator = estimator
        self.window_options: WindowOptions | None = None
        self.config_error: str | None = None
        self.rule_choice: RuleChoice = RuleChoice(DEFAULT_RULES, "default")
        """Which release's rules the session follows, and why (made once the config is read)."""
        self.mirror: Mirror | None = None
        """When `path` names an OpenClaw SQLite store: the chosen session's JSONL mirror (what is opened and followed)."""
        self._store_conn: Any = None
        self._saving = threading.Lock()
        """Held while the index snapshot of a cold open is written: a live refresh waits for it (`sync_store`)."""
        self.foreign: ForeignMirror | None = None
        """When `path` is a Claude Code or Codex transcript: its pi-format mirror (what is opened and followed)."""

    def gateway_log_source(self) -> tuple[Path | None, str | None]:
        """Where the app reads OpenClaw's Gateway log of this session: `--gateway-log` (None: the config's
        `logging.file`, else the default place) and the key its events are matched by (a store session's own key;
        None: a session file's, from the `sessions.json` beside it)."""
        return self.options.gateway_log, (self.mirror.session_key if self.mirror is not None else None)

    def sync_store(self) -> str | None:
        """Bring a store session's mirror up to date before a refresh (live follow); a notice when the store rewrote
        the session (the refresh then re-reads the replaced mirror). `StoreError` when the store cannot be read."""
        with self._saving:  # the snapshot of the opened session is being written: change the session only after it
            pass
        if self.foreign is not None:
            self.foreign = sync_foreign(self.foreign.source, self.foreign.format, self.foreign)
            if self.foreign.change == "rewritten":
                return f"{self.foreign.source} was replaced or shortened: read again"
            return None
        mirror = self.mirror
        if mirror is None:
            return None
        if self._store_conn is None:
            self._store_conn = connect(mirror.store)
        self.mirror = sync_mirror(mirror.store, mirror.session_id, conn=self._store_conn)
        if self.mirror.change == "rewritten":
            return f"the store rewrote session {mirror.session_key or mirror.session_id} (a new generation): read again"
        return None

    def _open_store(self) -> bool:
        """When `path` names a store: sync the chosen session's mirror and open that instead; False (and `Failed`
        posted) when the store or the session cannot be read."""
        store = store_of(self.path)
        if store is None:
            return True
        try:
            self.mirror = open_store_session(store, self.options.session)
        except (StoreError, OSError) as exc:
            self.window_options = WindowOptions(override=self.options.context_window)
            self.screen.post_message(self.Failed(ErrorInfo.from_open_error(self.path, str(exc))))
            return False
        self.path = self.mirror.path
        return True

    def _open_foreign(self) -> bool:
        """When `path` is a Claude Code or Codex transcript: mirror it and open the mirror instead; False (and
        `Failed` posted) when it cannot be read."""
        from inspector.read.detect import detect_format

        fmt = detect_format(self.path).name
        if fmt not in TRANSLATORS:
            return True
        try:
            self.foreign = sync_foreign(self.path, fmt)
        except OSError as exc:
            self.window_options = WindowOptions(override=self.options.context_window)
            self.screen.post_message(self.Failed(ErrorInfo.from_open_error(self.path, f"{self.path}: {exc.strerror or exc}")))
            return False
        self.path = self.foreign.path
        return True

    @property
    def shown_path(self) -> Path:
        """The file the user opened (a Claude Code / Codex file's own path, not its mirror's)."""
        return self.foreign.source if self.foreign is not None else self.path

    def start(self) -> None:
        """Open the file (thread workers)."""
        self.screen.run_worker(self._open, thread=True, exclusive=True, group="open", description="open")

    def _open(self) -> None:
        o = self.options
        if not self._open_store() or (self.mirror is None and not self._open_foreign()):
            return
        special = special_file_kind(self.path)
        if special is not None:  # a FIFO or a device: never opened (it could block or never end)
            self.window_options = WindowOptions(override=o.context_window)
            self.screen.post_message(self.Failed(ErrorInfo.special(self.path, special)))
            return
        config_path = o.config_path if o.config_path is not None else openclaw_config_path(o.env, o.home)
        config_special = special_file_kind(config_path)
        if config_special is not None:  # the same for the config: a FIFO would hang the opening
            window_options, error = WindowOptions(config={}, override=o.context_window), f"{config_path}: {config_special}, not read"
        else:
            window_options, error = load_window_options(o.config_path, o.context_window, env=o.env, home=o.home)
        if self.foreign is not None and window_options.override is None:
            window_options.override = self.foreign.default_window()[0]
        if self.foreign is not None:
            window_options.agent = self.foreign.format  # its own compaction threshold, not OpenClaw's
        self.window_options, self.config_error = window_options, error
        self.rule_choice = choose_rules(o.rules, session_path=self.path, config=window_options.config, env=o.env, store=self.mirror)
        if self.foreign is not None and o.rules is None:
            self.rule_choice = RuleChoice(self.rule_choice.id, self.foreign.rules_reason(self.rule_choice.id), "session")
        self._show_tail_first()
        rules_id = self.rule_choice.id
        cached = restore_cached(self.path, rules_id)  # the index a headless command saved under these rules, if still valid
        session = cached or Session(self.path, rules_id)
        before = stat_of(self.path) if cached is None else None
        done = threading.Event()
        if cached is None:
            self.screen.run_worker(lambda: self._progress(session, done), thread=True, group="open-progress", description="progress")
        try:
            if cached is None:
                session.load()
        except SessionOpenError as exc:
            self.screen.post_message(self.Failed(ErrorInfo.from_open_error(self.path, str(exc))))
            return
        except OSError as exc:
            self.screen.post_message(self.Failed(ErrorInfo.from_open_error(self.path, f"{self.path}: {exc.strerror or exc}")))
            return
        finally:
            done.set()
        if is_unsupported(session):
            details = [f"line {d.line}: {d.message}" if d.line else d.message for d in session.diagnostics[:6]]
            self.screen.post_message(self.Failed(ErrorInfo.unsupported(self.path, details)))
            return
        estimator = self.estimator()
        ctx = session.context()
        model = TranscriptModel(session, ctx)
        model.prepare(estimator)
        model.set_marks(MarkKind.CACHE_EXPIRED, cache_expiry_marks(session, ctx, window_options.config, now_ms(o.clock)))
        figures = session_figures(session, ctx, window_options, breakdown_estimator(estimator)[0])
        freeze_long_lived()
        with self._saving:
            self.screen.post_message(self.Opened(session, model, figures))
            if cached is None:  # indexed here: the snapshot the CLI's commands (and the next open) restore
                save_indexed(session, before)
        warm_lazy_imports()

    def _progress(self, session: Session, done: threading.Event) -> None:
        """Post indexing progress until the index is done (nothing for a file indexed within 0.1 s)."""
        while not done.wait(PROGRESS_EVERY):
            try:
                total = os.stat(self.path).st_size
            except OSError:
                continue
            self.screen.post_message(self.Progress(bytes_indexed(session), total, len(session.entries)))

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
        model.prepare(self.estimator())
        self.screen.post_message(self.TailReady(model))
