"""An opened session file: the one object the CLI and the UI work with.

`open_session(path)` indexes the whole file (metadata and estimates for every entry, content left on
disk); `Session.refresh()` reads only what was appended since, re-indexing from scratch when the file was
truncated or replaced. Nothing here ever writes to the session file.

A Claude Code / Codex mirror's usage marks (`inspector.read.usage_marks`) give an entry read earlier its revised
usage: in the table, in the leaf's context (its row and the path's usage sum) and in the objects read on demand; a
refresh names the entries so revised (`RefreshResult.revised`).
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from inspector.base.safeio import NotRegularFileError, open_regular
from inspector.model import entries as m
from inspector.read import parallel
from inspector.read.column_runs import ColumnRun
from inspector.read.estimates import ReaderEstimates, reader_estimates
from inspector.read.formats.mirror_files import is_foreign_mirror
from inspector.read.jsonl_reader import BOM, EntryReader, agent_message_of, peek_version
from inspector.read.lines import FileIdentity, FileReplaced, LineScanner, read_range
from inspector.read.records import decode_line
from inspector.read.usage_marks import UsageMark, UsageMarks
from inspector.session import context as _SHARED_WALK
from inspector.session.context import tool_pairing_diagnostics
from inspector.session.tree import SessionTree
from inspector.session.usage_revision import apply_usage_marks, revise_context
from inspector.storage.entry_range import EntryRange
from inspector.storage.entry_table import EntryTable
from inspector.storage.heap import keep_big_allocations_mapped, release_free_heap


class SessionOpenError(Exception):
    """The file cannot be opened as a session at all; `kind` is `missing`, `permission`, `directory` or `os`."""

    def __init__(self, message: str, kind: str = "os") -> None:
        super().__init__(message)
        self.kind = kind


class EntryChangedOnDisk(ValueError):
    """An entry read on demand is no longer the line that was indexed: the file changed on disk meanwhile."""


@dataclass(slots=True)
class RefreshResult:
    """What `Session.refresh()` found: new entries, or a full re-index (`reset`) with a notice."""

    new_entries: Sequence[m.Entry] = ()
    """The entries read (`EntryRange`: each built when read)."""
    reset: bool = False
    notice: str | None = None
    revised: tuple[int, ...] = ()
    """Entries read before whose recorded usage changed (a mirror's usage marks): their rows are to be shown again."""


class Session:
    """A session file indexed in memory: header, entry metadata, tree, diagnostics."""

    format = "openclaw"
    provisional = False
    """True for a tail-only preview (`inspector.session.tail.tail_session`) shown while the full index is built."""

    def __init__(self, path: Path | str, rules_id: str | None = None) -> None:
        self.path = Path(path)
        self.rules_id = reader_estimates(rules_id).rules_id
        """The id of the rule set this session is read with: its estimates, its figures (`figures.rules_of`)."""
        self.segmented = is_foreign_mirror(self.path)
        """The file is a Claude Code / Codex file's mirror: a line may hold several entries (`read.lines.segments`)."""
        self._reset_state()

    @property
    def _rebuild(self) -> Any:
        """The session's rules' context rebuild (`ReaderEstimates.context_rebuild`; the shared walk by default)."""
        return self.estimates.context_rebuild or _SHARED_WALK

    @property
    def estimates(self) -> ReaderEstimates:
        """The per-message estimates the index holds: those of the session's rule set."""
        return reader_estimates(self.rules_id)

    @classmethod
    def provisional_from_tail(
        cls,
        path: Path | str,
        header: dict[str, Any] | None,
        version: int,
        entries: list[m.Entry],
        diagnostics: list[m.Diagnostic],
    ) -> Session:
        """A provisional session (`provisional = True`) holding only entries read from the end of the file
        (`inspector.session.tail.tail_session`): shown while the whole file is indexed, then replaced."""
        session = cls(path)
        session.provisional = True
        if header is not None:
            session.reader.header = header
            session.reader.version = version
        for entry in entries:
            session.tree.add(entry)
        session.diagnostics.extend(diagnostics)
        return session

    def _reset_state(self) -> None:
        self.diagnostics: list[m.Diagnostic] = []
        self.tree = SessionTree(EntryTable(self.estimates.layout))
        self.reader = EntryReader(self.diagnostics.append, entries=self.tree.entries, est=self.estimates)
        self._link_reader()
        self.scanner = LineScanner(self.path, segmented=self.segmented)
        self.pending_bytes = 0
        self._context_cache: dict[str | None, m.SessionContext] = {}
        self.token_counts: dict[str, dict[int, int]] = {}
        self.figure_state: dict[str, Any] = {}
        """Figures over every entry kept between calls (and in a snapshot), each extended by the entries added since
        (`inspector.figures.session_figures`); emptied with the rest when the file is read again from the start."""

    def _link_reader(self) -> None:
        """Point the reader at this session's diagnostics and tree (after a reset, or a restore by `inspector.storage.cache`)."""
        self.reader.report = self.diagnostics.append
        by_id, id_of = self.tree.by_id, self.tree.entries.id_of
        get = by_id.as_dict().get if not by_id.is_flat else by_id.get  # a dict stays one: its own `get` is faster

        def canonical_id(pid: str) -> str | None:
            idx = get(pid)
            return None if idx is None else id_of(idx)

        self.reader.id_of = canonical_id

    # -- loading --------------------------------------------------------------------------------

    def load(self) -> Session:
        """Index the whole file."""
        _check_openable(self.path)
        self._consume()
        if self.reader.header is None and not self.reader.invalid_header:
            # Nothing parsed at all (the first object would have been the header or flagged as missing it).
            empty = self.file_size == 0
            self.diagnostics.append(
                m.Diagnostic("empty", "file is empty: no session header" if empty else "no parseable line: no session header", "error")
            )
        return self

    def _consume(self) -> tuple[range, dict[int, bytes | None]]:
        """Index what the file holds past what was read; the indices of the entries added, and the usage revised of
        entries read before (by index)."""
        start = len(self.tree.entries)
        duplicates = len(self.tree.duplicates)
        size = os.stat(self.path).st_size
        fresh = self.scanner.consumed == 0 and not self.scanner.pending_len
        marks: list[UsageMark] = []
        if fresh and size >= parallel.PARALLEL_MIN_BYTES and parallel.worker_count() > 1:
            marks = self._load_parallel(size)
        else:
            self._consume_serial()
        marks += self.scanner.take_usage_marks()
        self._take_pending()
        revised = apply_usage_marks(self.tree, marks, start) if marks else {}
        new = range(start, len(self.tree.entries))
        if new or revised:
            self._update_contexts(new, len(self.tree.duplicates) != duplicates, revised)
        return new, revised

    def _update_contexts(self, new: range, new_duplicates: bool, revised: dict[int, bytes | None] | None = None) -> None:
        """Keep the leaf's context when the new entries just continue it; forget every other cached one.

        The continued context is a new object (its lists copied, ~1 ms for 300k rows): a context handed out
        earlier, possibly being read by another thread, never changes. The path before stays valid unless a new
        entry repeats an id (the later one wins: a parent may now be another entry) or is the missing parent of
        the path's root (the path now goes further). Entries whose usage was `revised` get it in the kept context.
        """
        old = self._context_cache.get(None)
        self._context_cache.clear()
        if old is None or new_duplicates:
            return
        if revised:
            old = revise_context(self.tree, old, revised)
            if not new:
                self._context_cache[None] = old
                return
        entries = self.tree.entries
        if old.path:
            root = old.path[0]
            root_parent = entries.parent_id_of(root)
            if root_parent and root_parent != entries.id_of(root) and root_parent in entries.ids_in(new.start, new.stop):
                return
        continued: m.SessionContext | None = None
        rebuild = self._rebuild
        if rebuild.continues_leaf(self.tree, old, new):
            ctx = dataclasses.replace(old, messages=list(old.messages), path=old.path[:], diagnostics=list(old.diagnostics))
            if all(rebuild.extend_context(self.tree, ctx, i) for i in new):
                continued = ctx
        if continued is None:
            continued = rebuild.follow_leaf(self.tree, old, new.start)  # a branch or a compaction: rebuilt on the known path
        if continued is not None:
            self._context_cache[None] = continued

    def _consume_serial(self) -> None:
        feed = self.reader.feed_index
        link = self.tree.link
        try:
            for line, offset, data in self.scanner.scan():
                index = feed(line, offset, data)
                if index is not None:
                    link(index)
        except PermissionError as exc:
            raise SessionOpenError(f"{self.path}: permission denied", "permission") from exc

    def _take_pending(self) -> None:
        """An unterminated last line: read it if it parses (a static file), else wait for its newline."""
        pending = self.scanner.take_pending()
        self.pending_bytes = 0
        if pending is None:
            return
        if self.segmented:  # a mirror's lines are written whole with their newline: the rest is still coming
            self.pending_bytes = len(pending.data)
            return
        try:
            index = self.reader.feed_index(pending.line, pending.offset, pending.data, terminated=False)
        except ValueError:
            self.pending_bytes = len(pending.data)  # a writer mid-line: normal for a live file
            return
        self.scanner.accept_pending()
        if index is not None:
            self.tree.link(index)

    def _load_parallel(self, size: int) -> list[UsageMark]:
        """Index a big file with worker processes parsing byte ranges; entries are assembled here in order. The
        usage marks met (a segmented file's), in file order."""
        with open(self.path, "rb") as f:
            first = f.readline()
            if first.startswith(BOM):
                self._consume_serial()
                return []
            version = peek_version(first)
            if first.endswith(b"\r\n"):
                self.reader.saw_crlf = True
                self.diagnostics.append(m.Diagnostic("crlf", "CRLF line endings (the \\r is whitespace to JSON.parse)", "info", 1, 0))
            bounds = parallel.split_points(f, size, parallel.worker_count() * parallel.CHUNKS_PER_WORKER)
        st = self.scanner.check_identity()
        results = parallel.parse_ranges(str(self.path), bounds, version, self.estimates, self.segmented)
        lines, tail, marks = self._assemble(results)
        release_free_heap()  # the last result's buffers: their pages back before the context and the figures are built
        self.scanner.resume(bounds[-1] - len(tail), lines + 1, tail, FileIdentity.of(st))
        return marks

    def _assemble(self, results: Iterable[parallel.RangeResult]) -> tuple[int, bytes, list[UsageMark]]:
        """Add the entries of range results (in file order) to the index; the lines seen, the last range's tail and
        the usage marks met (a segmented file's), in file order."""
        marks: list[UsageMark] = []
        accept = self.reader.accept_index
        link = self.tree.link
        base = 0
        tail = b""
        for parts, lines_seen, tail in results:  # noqa: B007 (the last range's tail is used after the loop)
            # The columns grow while worker results come and go: no holes left in the heap. Set once the workers
            # are forked (they read the file in big blocks: a mapping per block would cost them page faults).
            keep_big_allocations_mapped()
            for part in parts:
                if type(part) is list:
                    for line, offset, length, wire in part:
                        index = accept(base + line, offset, length, wire)  # the wire form: no named record rebuilt
                        if index is not None:
                            link(index)
                elif type(part) is UsageMarks:
                    marks += part.marks
                else:
                    self.tree.link_range(self.reader.accept_run(cast(ColumnRun, part), base))
            del parts
            base += lines_seen
        return base, tail, marks

    def index_ranges(self, results: Iterable[parallel.RangeResult], fd: int) -> Session:
        """Index the file from range results parsed elsewhere, in file order, every range ending at a newline (a store
        session's mirror, parsed as it is written: `inspector.session.store_index`); `fd`: the file they are the
        whole of, open. The session is then as `load()` leaves it."""
        lines, tail, marks = self._assemble(results)
        assert not tail, "every range ends with a complete line"
        assert not marks, "a store mirror holds no usage marks"
        release_free_heap()
        identity = FileIdentity.of(os.fstat(fd))
        self.scanner.resume(identity.size, lines + 1, b"", identity)
        if self.reader.header is None and not self.reader.invalid_header:
            self.diagnostics.append(m.Diagnostic("empty", "no parseable line: no session header", "error"))
        return self

    def refresh(self) -> RefreshResult:
        """Read what was appended since the last read; re-index if the file shrank or was replaced."""
        try:
            new, revised = self._consume()
        except FileReplaced as exc:
            self._reset_state()
            self.load()
            return RefreshResult(EntryRange(self.tree.entries), reset=True, notice=f"{exc}; re-indexed")
        except FileNotFoundError:
            return RefreshResult(notice=f"{self.path} disappeared")
        return RefreshResult(EntryRange(self.tree.entries, new.start, new.stop), revised=tuple(sorted(revised)))

    # -- queries --------------------------------------------------------------------------------

    @property
    def header(self) -> dict[str, Any] | None:
        return self.reader.header

    @property
    def version(self) -> int:
        return self.reader.version

    @property
    def valid(self) -> bool:
        """Whether pi would accept the file (first object a session header with a string id)."""
        return self.reader.header is not None and not self.reader.invalid_header

    @property
    def entries(self) -> EntryTable:
        """Every entry, in file order (packed: `entries[i]` builds the `Entry`)."""
        return self.tree.entries

    @property
    def file_size(self) -> int:
        """Bytes read so far: the indexed lines plus a pending partial line."""
        return self.scanner.consumed + self.scanner.pending_len

    @property
    def bytes_indexed(self) -> int:
        """Offset just past the last complete line indexed (progress of a load; `file_size` adds a partial line)."""
        return self.scanner.consumed

    def entry_by_id(self, entry_id: str) -> m.Entry | None:
        idx = self.tree.by_id.get(entry_id)
        return None if idx is None else self.tree.entries[idx]

    def context(self, leaf_id: str | None = None) -> m.SessionContext:
        """The context pi builds for `leaf_id` (default: the last entry). Raises KeyError for an unknown id."""
        cached = self._context_cache.get(leaf_id)
        if cached is not None:
            return cached
        leaf_index = None
        if leaf_id is not None:
            leaf_index = self.tree.by_id[leaf_id]
        ctx = self._rebuild.build_context(self.tree, leaf_index)
        self._context_cache[leaf_id] = ctx
        return ctx

    def path_usage(self, ctx: m.SessionContext) -> m.UsageSum:
        """Σ of the recorded usage of the entries on `ctx`'s path (computed once per context, extended with it)."""
        if ctx.path_usage is None:
            usage, rows_of, path = m.PathUsage(), self.tree.entries.usage_rows, ctx.path
            for start in range(0, len(path), m.PATH_USAGE_STEP):  # a step at a time: no list as long as the path
                piece = path[start : start + m.PATH_USAGE_STEP]
                usage = usage.plus_rows(rows_of(piece), len(piece))
            ctx.path_usage = usage
        return ctx.path_usage.total

    def all_diagnostics(self, ctx: m.SessionContext | None = None) -> list[m.Diagnostic]:
        """File diagnostics, tree diagnostics, then those of `ctx` (default: the leaf's context)."""
        ctx = ctx if ctx is not None else self.context()
        out = list(self.diagnostics)
        for eid, first, second in self.tree.duplicates:
            e = self.tree.entries[second]
            out.append(
                m.Diagnostic(
                    "duplicate_id",
                    f"id {eid!r} also used on line {self.tree.entries[first].line}; the later entry wins (as in pi)",
                    "warning",
                    e.line,
                    e.offset,
                )
            )
        for idx in self.tree.orphans():
            e = self.tree.entries[idx]
            out.append(
                m.Diagnostic("orphan", f"parentId {e.parent_id!r} names no entry: a root of its own", "warning", e.line, e.offset)
            )
        if self.pending_bytes:
            out.append(
                m.Diagnostic(
                    "partial_line",
                    f"last line has no newline yet ({self.pending_bytes} bytes): waiting for the writer",
                    "info",
                    self.scanner.next_line,
                    self.scanner.consumed,
                )
            )
        out.extend(ctx.diagnostics)
        out.extend(tool_pairing_diagnostics(self.tree, ctx))
        return out

    # -- content on demand ----------------------------------------------------------------------

    def raw_line(self, entry: m.Entry) -> bytes:
        """The entry's bytes as stored (without the newline)."""
        return read_range(self.path, entry.offset, entry.length)

    def load_entry_object(self, entry: m.Entry) -> dict[str, Any]:
        """The entry's full JSON object, re-read from disk (v1/v2 migrations applied in memory)."""
        try:
            obj, _ = decode_line(self.raw_line(entry))
        except ValueError:
            obj = None  # it was a JSON object when indexed
        if not isinstance(obj, dict):
            raise EntryChangedOnDisk(f"line {entry.line} changed on disk since it was indexed")
        if self.segmented and entry.type == m.MESSAGE and entry.role == "assistant":
            self._with_indexed_usage(entry, obj)
        if entry.type == m.COMPACTION and entry.data is not None:
            obj = entry.data  # carries the v1 firstKeptEntryIndex migration
        return obj

    def _with_indexed_usage(self, entry: m.Entry, obj: dict[str, Any]) -> None:
        """A mirror's assistant message with the usage the index holds (a usage mark may have revised the row's)."""
        msg = obj.get("message")
        entries = self.tree.entries
        if not isinstance(msg, dict) or not 0 <= entry.index < len(entries) or entries.id_of(entry.index) != entry.id:
            return
        packed = entries.usage_packed(entry.index)
        if packed is None:
            msg.pop("usage", None)
        elif m.pack_usage(msg.get("usage")) != packed:
            msg["usage"] = m.unpack_usage(packed)

    def load_message(self, entry: m.Entry) -> dict[str, Any] | None:
        """The AgentMessage this entry contributes to the context (summaries as pi's virtual messages)."""
        if entry.type == m.COMPACTION and entry.data is not None:
            return agent_message_of(entry, entry.data, self.version)
        return agent_message_of(entry, self.load_entry_object(entry), self.version)

    def context_messages(self, ctx: m.SessionContext | None = None) -> list[dict[str, Any]]:
        """All AgentMessages of a context, loaded from disk (use for small files or slices)."""
        ctx = ctx if ctx is not None else self.context()
        return [self.load_message(self.tree.entries[row.entry_index]) or {} for row in ctx.messages]


def _check_openable(path: Path) -> None:
    try:
        is_dir = stat.S_ISDIR(os.stat(path).st_mode)
    except FileNotFoundError:
        raise SessionOpenError(f"{path}: no such file", "missing") from None
    except PermissionError:
        raise SessionOpenError(f"{path}: permission denied", "permission") from None
    except OSError as exc:
        raise SessionOpenError(f"{path}: {exc.strerror or exc}") from None
    if is_dir:
        raise SessionOpenError(f"{path}: is a directory (use `session-inspector ls {path}`)", "directory")
    if not os.access(path, os.R_OK):
        raise SessionOpenError(f"{path}: permission denied", "permission")
    try:
        os.close(open_regular(path))  # a FIFO or a device would hang (or never end) a read
    except NotRegularFileError as exc:
        raise SessionOpenError(f"{exc}; a session must be a regular .jsonl file", "not-regular") from None
    except PermissionError:
        raise SessionOpenError(f"{path}: permission denied", "permission") from None
    except OSError as exc:
        raise SessionOpenError(f"{path}: {exc.strerror or exc}") from None


_preloaded: dict[tuple[str, str], Session] = {}


def preload(session: Session) -> None:
    """Keep a session indexed ahead (a store session's, indexed while its mirror was written): the next
    `open_session` of its path under its rules gets it, if the file is still the one it indexed."""
    _preloaded[(os.fspath(session.path), session.rules_id)] = session


def open_session(path: Path | str, rules_id: str | None = None) -> Session:
    """Open and index a session file under the rule set `rules_id` (None: the default). Raises `SessionOpenError`
    with a one-line reason."""
    if _preloaded:
        session = _preloaded.pop((os.fspath(path), reader_estimates(rules_id).rules_id), None)
        identity = session.scanner.identity if session is not None else None
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if session is not None and identity is not None and st is not None and FileIdentity.of(st) == identity:
            return session
    return Session(path, rules_id).load()
