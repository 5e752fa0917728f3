"""Reader for OpenClaw / pi-coding-agent session JSONL (v1, v2, v3), as pi's `loadEntriesFromFile` reads it.

Rules reproduced (spec §1.2, §1.6; pi 0.66.1 `session-manager.ts`):
- split on `\\n`, skip blank lines, skip lines `JSON.parse` rejects (each one is reported here);
- the first parsed object must be a `session` header with a string `id`, otherwise pi treats the file as
  invalid (we still show what is there, with an error diagnostic);
- later `session` lines are ignored;
- v1 files get ids and a linear `parentId` chain, and `firstKeptEntryIndex` (an index into the parsed
  objects, header = 0) becomes `firstKeptEntryId`; v2 `hookMessage` roles become `custom`. Both happen in
  memory only: this reader never writes.

Node decodes the file as UTF-8 with U+FFFD for invalid bytes, and `String.trim()` drops a leading BOM;
both are reproduced and reported.

Two stages: `inspector.read.records` turns each line into a compact record (stateless, also in worker
processes); `EntryReader` here turns records, in file order, into `Entry` metadata with pi's loader state
(header, version, v1 ids).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any, cast

import orjson

from inspector.js.jsjson import json_kind
from inspector.model import entries as m
from inspector.read.agent_message import agent_message_of, other_entry_parts
from inspector.read.column_runs import HUGE_LINE_BYTES, ColumnRun
from inspector.read.estimates import ReaderEstimates, reader_estimates
from inspector.read.records import (
    NESTED_TOO_DEEP,
    ErrorRecord,
    MessageRecord,
    OtherRecord,
    Record,
    decode_line,
    extract_range,
    extract_record,
    from_wire,
)
from inspector.storage import nums_layout as nl
from inspector.storage.entry_table import EntryTable

__all__ = [
    "BOM",
    "HUGE_LINE_BYTES",
    "EntryReader",
    "agent_message_of",
    "decode_line",  # re-exported from .records, its home
    "extract_range",  # re-exported from .records
    "extract_record",  # re-exported from .records
    "peek_version",
    "synthetic_v1_id",
]

_MESSAGE = m.MESSAGE
_MESSAGE_FIELDS = len(MessageRecord._fields)
BOM = b"\xef\xbb\xbf"


def peek_version(first_line: bytes) -> int:
    """The format version a file's first line announces: the header's `version` (1 when it has none), or the
    current version when the line is not a session header (the file is then read as v3, like pi)."""
    try:
        obj = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return m.CURRENT_SESSION_VERSION
    if isinstance(obj, dict) and obj.get("type") == m.SESSION and isinstance(obj.get("id"), str):
        v = obj.get("version")
        return v if type(v) is int else 1
    return m.CURRENT_SESSION_VERSION


def synthetic_v1_id(line: int) -> str:
    """The id given to a v1 entry (v1 files store none; pi would assign random ones in memory)."""
    return f"v1-L{line}"


# -- stage 2: records -> entries, in file order (pi's loader state: header, version, v1 ids) ---------------------


class EntryReader:
    """Turns records (in file order) into `Entry` metadata and diagnostics, keeping pi's loader state.

    Feed lines with `feed(line, offset, data)`, or pre-extracted records with `accept_record`; it can be
    called again with lines appended later. The estimates are `est`'s (a rule set's; None: the default rule set's),
    and `entries` must be packed with its layout.
    """

    def __init__(
        self,
        report: Callable[[m.Diagnostic], None],
        version: int = m.CURRENT_SESSION_VERSION,
        entries: EntryTable | None = None,
        est: ReaderEstimates | None = None,
    ) -> None:
        self.report = report
        self.header: dict[str, Any] | None = None
        self.header_line: int | None = None
        self.invalid_header = False
        self.version = version
        est = reader_estimates() if est is None else est
        self.rules_id = est.rules_id
        """The rule set whose estimates this reader computes (`est`; kept by id: a snapshot stores no functions)."""
        self.entries = EntryTable(est.layout) if entries is None else entries
        if self.entries.layout != est.layout:
            raise ValueError(f"a reader of {est.rules_id} fills tables of {est.layout!r}, not {self.entries.layout!r}")
        self._shape_codes = self.entries.shape_codes
        self.parsed_count = 0  # objects JSON.parse accepted, header included (pi's entries[] index)
        self._v1_ids_by_ordinal: dict[int, str] = {}
        self._v1_prev_id: str | None = None
        self.saw_crlf = False
        self.id_of: Callable[[str], str | None] = lambda pid: None

    @property
    def est(self) -> ReaderEstimates:
        """The estimates this reader computes (its rule set's)."""
        return reader_estimates(self.rules_id)

    def start_after_header(self, header: dict[str, Any] | None = None) -> None:
        """Read lines that come after the header without having read it (a tail read from the end of a file):
        the first record is not expected to be a header. `header` is the file's, when known."""
        self.parsed_count = max(self.parsed_count, 1)
        if header is not None:
            self.header = header

    def feed_index(self, line: int, offset: int, data: bytes, terminated: bool = True) -> int | None:
        """One raw line; the index of the entry it added (None: none). A line that does not parse and has no newline
        yet raises ValueError (still being written)."""
        if line == 1 and data.startswith(BOM):
            self.report(m.Diagnostic("bom", "file starts with a UTF-8 BOM (ignored, as pi's trim() does)", "info", 1, 0))
            data = data[3:]
            offset += 3
        if data[-1:] == b"\r" and not self.saw_crlf:
            self.saw_crlf = True
            self.report(m.Diagnostic("crlf", "CRLF line endings (the \\r is whitespace to JSON.parse)", "info", line, offset))
        rec = extract_record(data, self.version, self.est)
        if rec is None:
            return None
        if type(rec) is ErrorRecord and not terminated:
            raise ValueError(rec.reason)
        return self.accept_index(line, offset, len(data), rec)

    def feed(self, line: int, offset: int, data: bytes, terminated: bool = True) -> m.Entry | None:
        """`feed_index`, with the entry it added (None: none)."""
        index = self.feed_index(line, offset, data, terminated)
        return None if index is None else self.entries[index]

    def accept_record(self, line: int, offset: int, length: int, rec: Record | tuple[Any, ...]) -> m.Entry | None:
        """`accept_index`, with the entry it added (None: none)."""
        index = self.accept_index(line, offset, length, rec)
        return None if index is None else self.entries[index]

    def accept_index(self, line: int, offset: int, length: int, rec: Record | tuple[Any, ...]) -> int | None:
        """One record (from `extract_record`, here or in a worker process, also in its wire form: `to_wire`) at
        its place in the file; the index of the entry it added to `entries` (None: none)."""
        if len(rec) == _MESSAGE_FIELDS and self.parsed_count:  # the hot path: a message after the header
            note = rec[-1]
            if note:
                self.report(m.Diagnostic("invalid_utf8", note, "warning", line, offset))
            if length > HUGE_LINE_BYTES:
                self.report(m.Diagnostic("huge_line", f"line is {length:,} bytes; parsed, content not kept in memory", "warning", line, offset))
            ordinal = self.parsed_count
            self.parsed_count = ordinal + 1
            return self._message_entry(rec, line, offset, length, ordinal)
        record: Record = from_wire(rec) if type(rec) is tuple else cast(Record, rec)
        if isinstance(record, ErrorRecord):
            pi_too = "" if record.reason.startswith(NESTED_TOO_DEEP) else " (pi skips it too)"
            self.report(m.Diagnostic("unparseable", f"{record.reason}; skipped{pi_too}", "error", line, offset))
            return None
        note = record.note
        if note:
            self.report(m.Diagnostic("invalid_utf8", note, "warning", line, offset))
        if length > HUGE_LINE_BYTES:
            self.report(m.Diagnostic("huge_line", f"line is {length:,} bytes; parsed, content not kept in memory", "warning", line, offset))
        ordinal = self.parsed_count
        self.parsed_count += 1
        if isinstance(record, OtherRecord):
            obj = record.obj
            if type(obj) is not dict:
                self.report(m.Diagnostic("not_object", f"line is JSON but not an object ({json_kind(obj)}); ignored", "error", line, offset))
                return None
            etype = obj.get("type")
            if ordinal == 0:
                if self._accept_header(obj, line, offset):
                    return None
            if etype == m.SESSION:
                self.report(m.Diagnostic("extra_header", "another session header; ignored like pi does", "info", line, offset))
                return None
            return self._other_entry(obj, line, offset, length, ordinal)
        if ordinal == 0:
            self._missing_header(line, offset)
        return self._message_entry(record, line, offset, length, ordinal)

    def accept_run(self, run: ColumnRun, lines_before: int) -> range:
        """A worker's run of packed lines (`column_runs.ColumnRun`), whose line numbers count after `lines_before`;
        the indices of the entries it added. A record was accepted before it (the header, or its absence)."""
        if not self.parsed_count:
            raise ValueError("a column run before the first record")
        table = self.entries
        start = len(table)
        nums = nl.shift_lines(run.nums, lines_before)
        parents = run.parent_ids
        if parents and parents[0]:
            parents[0] = self.id_of(parents[0]) or parents[0]  # an earlier range's entry: share its id string
        codes = run.codes
        if run.shapes:
            local = [table.shape_code(shape) for shape in run.shapes]  # type: ignore[arg-type]
            codes = array("I", map(local.__getitem__, codes))
        table.extend_columns(nums, run.ids, parents, codes, run.call_text, run.call_ends, run.usage_slots, run.usage_buffer, run.extras)
        self.parsed_count += len(run)
        return range(start, len(table))

    def _accept_header(self, obj: dict[str, Any], line: int, offset: int) -> bool:
        if obj.get("type") == m.SESSION and isinstance(obj.get("id"), str):
            self.header = obj
            self.header_line = line
            version = obj.get("version")
            self.version = version if type(version) is int else 1
            if self.version < m.CURRENT_SESSION_VERSION:
                self.report(
                    m.Diagnostic(
                        "migrated",
                        f"version {self.version} file: migrated to v3 in memory only (pi would rewrite the file)",
                        "info",
                        line,
                        offset,
                    )
                )
            return True
        self._missing_header(line, offset)
        return False

    def _missing_header(self, line: int, offset: int) -> None:
        self.invalid_header = True
        self.report(
            m.Diagnostic(
                "missing_header",
                'first line is not a {"type":"session","id":...} header: pi treats this file as invalid',
                "error",
                line,
                offset,
            )
        )

    def _ids(self, raw_id: Any, raw_parent: Any, line: int, offset: int, ordinal: int) -> tuple[str | None, str | None]:
        eid: str | None
        if self.version < 2:
            eid = synthetic_v1_id(line)
            parent = self._v1_prev_id
            self._v1_prev_id = eid
            self._v1_ids_by_ordinal[ordinal] = eid
            return eid, parent
        eid, parent = raw_id, raw_parent
        if type(eid) is not str:
            self.report(m.Diagnostic("bad_id", f"'id' is {type(eid).__name__}, not a string", "error", line, offset))
            eid = None if eid is None else str(eid)
        if parent is not None and type(parent) is not str:
            self.report(m.Diagnostic("bad_parent", f"'parentId' is {type(parent).__name__}, not a string or null", "error", line, offset))
            parent = str(parent)
        if parent:
            parent = self.id_of(parent) or parent  # share the parent's id string (memory)
        return eid, parent

    def _message_entry(self, rec: MessageRecord | tuple[Any, ...], line: int, offset: int, length: int, ordinal: int) -> int:
        (eid, parent, role, tool_name, tool_call_id, call_ids, provider, model, stop, usage, ts, kinds, est, flags, _) = rec
        if self.version >= 2 and type(eid) is str and (parent is None or type(parent) is str):
            if parent:
                parent = self.id_of(parent) or parent  # share the parent's id string (memory)
        else:
            eid, parent = self._ids(eid, parent, line, offset, ordinal)
        if type(role) is not str:
            if role is None and not kinds:
                self.report(m.Diagnostic("bad_message", "message entry without a 'message' object; not in context", "error", line, offset))
            else:
                self.report(m.Diagnostic("bad_role", f"message has no string 'role' ({role!r})", "error", line, offset))
                role = "<missing>"
        calls = call_ids or tool_call_id  # the tool call ids, else the id of the call it answers (None: neither)
        nums = self.est.layout.pack_row(line, offset, length, est, ts, flags)
        shape = (_MESSAGE, role, tool_name, provider, model, stop, kinds)
        code = self._shape_codes.get(shape)
        if code is None:
            code = self.entries.shape_code(shape)
        return self.entries.add_row(nums, eid, parent, code, calls, usage)

    def _other_entry(self, obj: dict[str, Any], line: int, offset: int, length: int, ordinal: int) -> int:
        etype = obj.get("type")
        if not isinstance(etype, str):
            self.report(m.Diagnostic("bad_type", f"entry has no string 'type' ({etype!r}); kept as opaque", "error", line, offset))
            etype = "<missing>" if etype is None else repr(etype)
        elif etype not in m.KNOWN_ENTRY_TYPES and etype not in self.est.extra_entry_types:
            self.report(m.Diagnostic("unknown_type", f"unknown entry type {etype!r}; kept as opaque", "info", line, offset))
        eid, parent = self._ids(obj.get("id"), obj.get("parentId"), line, offset, ordinal)
        timestamp, data, role, nums = other_entry_parts(etype, obj, line, offset, length, self.version, self.est)
        entry = m.Entry(len(self.entries), nums, self.est.layout, etype, eid, parent, timestamp, data, role)
        if etype == m.COMPACTION and self.version < 2:
            self._migrate_v1_compaction(entry, obj)
        return self.entries.append(entry)

    def _migrate_v1_compaction(self, entry: m.Entry, obj: dict[str, Any]) -> None:
        idx = obj.get("firstKeptEntryIndex")
        if isinstance(idx, (int, float)) and not isinstance(idx, bool):
            target = self._v1_ids_by_ordinal.get(int(idx)) if float(idx).is_integer() else None
            data = {k: v for k, v in obj.items() if k != "firstKeptEntryIndex"}
            if target is not None:
                data["firstKeptEntryId"] = target
            entry.data = data
