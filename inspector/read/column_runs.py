"""A worker's share of a big file as packed columns: what the parent adds to its entry table in a few bulk steps.

The parallel index (`inspector.read.parallel.parse_ranges`) has worker processes parse byte ranges. Sending one record
per line back costs the parent about as much as parsing did (unpickling a 15-field tuple, then building the entry
from it, per line). Here a worker packs runs of plain message lines directly into the columns of
`inspector.storage.entry_table.EntryTable` (`ColumnRun`), and keeps as rows, in their wire form, only the lines the
parent's reader must see one by one (`EntryReader.accept_index`):

- the first records of the range, up to and including the first one that is not an `ErrorRecord` (the parent
  must have counted a parsed object before any run: the first of the file is the header or its absence);
- lines with something to report (invalid UTF-8, a huge line, an id or parent id that is not a string, a message
  with no string role, a type that is unknown or not a string, another session header, not an object), and every
  line of a v1 file (ids are made up in the reader's order).

Entries of the other known types (compaction, custom, model change, label...) are packed like messages, with
their `data` as the table's compact `extras` cells.

A segmented file's usage marks (`inspector.read.usage_marks`) met in the range come last, as one `UsageMarks` part.

A run's line numbers count from 1 within the range (the parent adds the lines of the ranges before it).
The parent's reader shares id strings between entries (a parent id is its parent's id string) to save memory; a
worker does the same within its range. Tool call ids travel encoded, as the table keeps them (`call_text`; a
result's id as a back cell into its run's last assistant cell when it is one of its calls: `call_cells.back_cell`).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from inspector.model import entries as m
from inspector.read.agent_message import other_entry_parts
from inspector.read.estimates import ReaderEstimates
from inspector.read.record_types import ErrorRecord, MessageRecord, OtherRecord
from inspector.read.records import extract_record
from inspector.read.usage_marks import UsageMarks
from inspector.storage import nums_layout as nl
from inspector.storage.block_text import BlockText
from inspector.storage.call_cells import CALL_IDS, ODD_CELL, RESULT_ID, back_reference, call_cell
from inspector.storage.extra_cells import pack_extra
from inspector.storage.packed_extras import PackedExtras

HUGE_LINE_BYTES = 16 * 1024 * 1024
"""A line longer than this is reported (`huge_line`): its content is never kept in memory."""
_MESSAGE_FIELDS = len(MessageRecord._fields)
_NARROW_SIZE = nl.NARROW_SIZE
_USAGE_SIZE = m.USAGE_SIZE
_MESSAGE = m.MESSAGE

Row = tuple[int, int, int, tuple[Any, ...]]
"""`(line within the range, offset, length, record in wire form)`: a line for `EntryReader.accept_index`."""


@dataclass(slots=True)
class ColumnRun:
    """Consecutive plain message lines of one range, as `EntryTable` columns (see the module docstring).

    `nums` rows (either layout of `inspector.storage.nums_layout`) carry the line number within the range; `codes` index `shapes`, this run's own list of shapes;
    `usage_slots` index rows of `usage_buffer` (-1: no usage). Entries of the other known types (compaction,
    custom, model change...) are packed too, their `data` and `timestamp` as `extras` cells.
    """

    nums: bytearray = field(default_factory=bytearray)
    ids: list[str] = field(default_factory=list)
    parent_ids: list[str | None] = field(default_factory=list)
    codes: array = field(default_factory=lambda: array("I"))
    shapes: list[tuple[Any, ...]] = field(default_factory=list)
    call_text: bytearray | BlockText = field(default_factory=bytearray)
    call_ends: array = field(default_factory=lambda: array("I"))
    """The run's `calls` cells, encoded (`call_cells.call_cell`, never its odd kind) end to end, and where each
    ends in `call_text`."""
    usage_slots: array = field(default_factory=lambda: array("i"))
    usage_buffer: bytearray | BlockText = field(default_factory=bytearray)
    extras: PackedExtras = field(default_factory=PackedExtras.growing)
    """The `extras` cells of the run's entries of other types, by position in the run, packed (one buffer: the parent
    unpickles one object for them all, and keeps them so: `PackedExtras.extend_run`)."""

    def __len__(self) -> int:
        return len(self.ids)


RangeParts = list[ColumnRun | list[Row] | UsageMarks]
"""A range's lines in order: runs of packed message lines and lists of rows for the reader; then its usage marks."""


class _RunBuilder:
    """Packs message records into `ColumnRun`s, and the other lines into row lists, in file order."""

    def __init__(self, est: ReaderEstimates) -> None:
        self.est = est
        self.message_nums = est.layout.pack_row
        self.parts: RangeParts = []
        self.run: ColumnRun | None = None
        self.shape_codes: dict[tuple[Any, ...], int] = {}
        self.known_ids: dict[str, str] = {}
        self.cells: list[bytes] = []  # the open run's calls cells, laid end to end when it closes (`close_run`)
        self.last_calls: tuple[int, tuple[str, ...]] | None = None
        """The open run's last assistant cell of call ids: its position in the run and its ids (a result after it names
        its call there: `call_cells.back_cell`)."""

    def row(self, row: Row) -> None:
        self.close_run()
        if not self.parts or type(self.parts[-1]) is not list:
            self.parts.append([])
        rows = self.parts[-1]
        assert type(rows) is list
        rows.append(row)

    def message(self, rec: tuple[Any, ...], line: int, offset: int, length: int) -> bool:
        """Pack a plain message (`plain_message`); False when its calls cell has no encoding (send it as a row).

        `_add`, inlined: this runs for nearly every line of a big file."""
        (eid, parent, role, tool_name, tool_call_id, call_ids, provider, model, stop, usage, ts, kinds, est, flags, _) = rec
        run = self.run
        if run is None:
            run = self._run()
        if call_ids:  # as the reader's `_message_entry` takes them: the call ids, else the id of the call answered
            if len(call_ids) == 1 and "\x00" not in call_ids[0]:  # `call_cell` of the usual one call, inline
                calls = CALL_IDS + call_ids[0].encode("utf-8", "surrogatepass")
            else:
                calls = call_cell(call_ids)
                if calls == ODD_CELL:
                    return False
            self.last_calls = (len(run.ids), call_ids)
        elif tool_call_id is not None:
            last = self.last_calls
            calls = (last is not None and back_reference(last[1], len(run.ids) - last[0], tool_call_id)) or (
                RESULT_ID + tool_call_id.encode("utf-8", "surrogatepass")  # `call_cell` of a string, inline
            )
        else:
            calls = b""
        known = self.known_ids
        if parent:
            parent = known.get(parent, parent)  # the parent's own id string (memory)
        known[eid] = eid
        nums = self.message_nums(line, offset, length, est, ts, flags)
        rows = run.nums
        if len(nums) == _NARROW_SIZE and type(rows) is bytearray:
            rows += nums
        else:
            run.nums = nl.add_row(rows, nums)
        run.ids.append(eid)
        run.parent_ids.append(parent)
        shape = (_MESSAGE, role, tool_name, provider, model, stop, kinds)
        code = self.shape_codes.get(shape)
        if code is None:
            code = self.shape_codes[shape] = len(run.shapes)
            run.shapes.append(shape)
        run.codes.append(code)
        self.cells.append(calls)
        if usage is None:
            run.usage_slots.append(-1)
        else:
            buffer = run.usage_buffer
            run.usage_slots.append(len(buffer) // _USAGE_SIZE)
            buffer.extend(usage)
        return True

    def other(self, obj: dict[str, Any], line: int, offset: int, length: int, version: int) -> None:
        """An entry of another known type (see `plain_other`), as `EntryReader._other_entry` makes it."""
        run = self._run()
        etype = obj["type"]
        eid = obj["id"]
        parent = obj.get("parentId")
        if parent:
            parent = self.known_ids.get(parent, parent)
        self.known_ids[eid] = eid
        timestamp, data, role, nums = other_entry_parts(etype, obj, line, offset, length, version, self.est)
        run.extras.add(len(run.ids), pack_extra(timestamp, data, parsed=True))
        self._add(run, nl.narrowed(nums), eid, parent, (etype, role, None, None, None, None, ()), b"", None)

    def _run(self) -> ColumnRun:
        run = self.run
        if run is None:
            run = self.run = ColumnRun()
            self.parts.append(run)
            self.shape_codes = {}
            self.last_calls = None
        return run

    def close_run(self) -> None:
        """End the open run, if any: its calls cells laid end to end (`call_text`, `call_ends`, in C passes)."""
        run, cells = self.run, self.cells
        if run is None:
            return
        text = b"".join(cells)
        ends = accumulate(map(len, cells))
        run.call_ends = array("I", ends) if len(text) < 2**32 else array("q", ends)
        # Compressed here, in parallel: the parent keeps the blocks as they come (`inspector.storage.block_text`).
        run.call_text = BlockText.of(text)
        run.usage_buffer = BlockText.of(run.usage_buffer)
        run.extras.text = BlockText.of(run.extras.text)
        self.run, self.cells = None, []

    def _add(self, run: ColumnRun, nums: bytes, eid: str, parent: str | None, shape: tuple[Any, ...], calls: bytes, usage: bytes | None) -> None:
        rows = run.nums
        if len(nums) == _NARROW_SIZE and type(rows) is bytearray:
            rows += nums
        else:
            run.nums = nl.add_row(rows, nums)
        run.ids.append(eid)
        run.parent_ids.append(parent)
        code = self.shape_codes.get(shape)
        if code is None:
            code = self.shape_codes[shape] = len(run.shapes)
            run.shapes.append(shape)
        run.codes.append(code)
        self.cells.append(calls)
        if usage is None:
            run.usage_slots.append(-1)
        else:
            run.usage_slots.append(len(run.usage_buffer) // m.USAGE_SIZE)
            run.usage_buffer.extend(usage)


def plain_other(obj: Any, note: str | None, length: int) -> bool:
    """A parsed line of a known entry type other than `message` that the reader would take without a diagnostic
    and without its own state (string id, string or null parent; v2+ files)."""
    if type(obj) is not dict or note is not None or length > HUGE_LINE_BYTES:
        return False
    etype = obj.get("type")
    parent = obj.get("parentId")
    return etype in _PACKED_OTHER_TYPES and type(obj.get("id")) is str and (parent is None or type(parent) is str)


_PACKED_OTHER_TYPES = m.KNOWN_ENTRY_TYPES - {m.MESSAGE}


def plain_message(rec: tuple[Any, ...], length: int) -> bool:
    """A message record the reader would take without a diagnostic and without its own state (v2+ ids)."""
    return (
        len(rec) == _MESSAGE_FIELDS
        and rec[-1] is None
        and length <= HUGE_LINE_BYTES
        and type(rec[0]) is str
        and (rec[1] is None or type(rec[1]) is str)
        and type(rec[2]) is str
    )


def extract_range_runs(
    path: str, start: int, end: int, first_line: int, version: int, est: ReaderEstimates, segmented: bool = False
) -> tuple[RangeParts, int, bytes]:
    """The complete lines in bytes [start, end) of a file as `ColumnRun`s and rows (see the module docstring); a
    `segmented` file's lines split into their entries (`inspector.read.lines.SEGMENT_SEPARATOR`).

    Returns `(parts, lines_seen, tail)`; `tail` is what follows the last newline before `end`.
    """
    from inspector.read.lines import LineScanner

    scanner = LineScanner(path, segmented=segmented)
    scanner.resume(start, first_line)
    builder = _RunBuilder(est)
    counted = False  # a record the reader counts as parsed was sent as a row
    packable = version >= 2
    message = builder.message
    for line, offset, raw in scanner.scan_until(end):
        rec = extract_record(raw, version, est)
        if rec is None:
            continue
        length = len(raw)
        fields: tuple[Any, ...] = rec
        if (
            counted and packable and len(fields) == _MESSAGE_FIELDS  # `plain_message`, inlined (the record needs no copy)
            and fields[-1] is None and length <= HUGE_LINE_BYTES and type(fields[0]) is str
            and (fields[1] is None or type(fields[1]) is str) and type(fields[2]) is str and message(fields, line, offset, length)
        ):
            continue
        if counted and packable and type(rec) is OtherRecord and plain_other(rec.obj, rec.note, length):
            builder.other(rec.obj, line, offset, length, version)
        else:
            builder.row((line, offset, length, tuple(rec)))  # the wire form (`to_wire`)
            counted = counted or type(rec) is not ErrorRecord
    builder.close_run()
    if scanner.usage_marks:
        builder.parts.append(UsageMarks(scanner.take_usage_marks()))
    return builder.parts, scanner.next_line - first_line, scanner.pending
