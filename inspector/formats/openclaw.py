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
"""

from __future__ import annotations

from typing import Any, Callable

import orjson

from .. import model as m
from ..timeutil import iso_to_ms
from ..tokens import estimate_all

HUGE_LINE_BYTES = 16 * 1024 * 1024
BOM = b"\xef\xbb\xbf"


def decode_line(data: bytes) -> tuple[Any, str | None]:
    """Parse one line like Node's `JSON.parse(buffer.toString("utf8"))`.

    Returns `(value, note)`; `note` says when invalid UTF-8 was replaced. Raises `ValueError` with a
    readable reason when the line is not JSON.
    """
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as ude:
            text = data.decode("utf-8", "replace")
            try:
                return orjson.loads(text), f"invalid UTF-8 at byte {ude.start} of the line, read as U+FFFD like Node does"
            except orjson.JSONDecodeError as exc2:
                raise ValueError(f"invalid UTF-8 at byte {ude.start} and not valid JSON ({exc2})") from None
        if b"\x00" in data:
            raise ValueError("NUL byte in line; not valid JSON") from None
        raise ValueError(f"not valid JSON: {exc}") from None


def synthetic_v1_id(line: int) -> str:
    """The id given to a v1 entry (v1 files store none; pi would assign random ones in memory)."""
    return f"v1-L{line}"


def agent_message_of(entry: m.Entry, obj: dict[str, Any], version: int) -> dict[str, Any] | None:
    """The AgentMessage an entry contributes to the context (pi's `appendMessage` mapping), or None."""
    t = entry.type
    if t == m.MESSAGE:
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return None
        if version < 3 and msg.get("role") == "hookMessage":
            msg = dict(msg)
            msg["role"] = "custom"
        return msg
    if t == m.CUSTOM_MESSAGE:
        return {
            "role": "custom",
            "customType": obj.get("customType"),
            "content": obj.get("content"),
            "display": obj.get("display"),
            "details": obj.get("details"),
            "timestamp": iso_to_ms(obj.get("timestamp")),
        }
    if t == m.BRANCH_SUMMARY:
        summary = obj.get("summary")
        if not summary:
            return None
        return {
            "role": "branchSummary",
            "summary": summary,
            "fromId": obj.get("fromId"),
            "timestamp": iso_to_ms(obj.get("timestamp")),
        }
    if t == m.COMPACTION:
        return {
            "role": "compactionSummary",
            "summary": obj.get("summary"),
            "tokensBefore": obj.get("tokensBefore"),
            "timestamp": iso_to_ms(obj.get("timestamp")),
        }
    return None


# -- stage 1: one line -> a compact, picklable record (stateless; runs in worker processes) ----------------------

REC_MESSAGE = 0
REC_OTHER = 1
REC_ERROR = 2
_WS = frozenset(b" \t\r\n\x0b\x0c")
_INTERNED: dict[str, str] = {}
_KINDS: dict[tuple, tuple] = {}


def _intern(value: Any) -> str | None:
    """One shared object per distinct short string (roles, models, tool names): saves memory per entry."""
    if type(value) is not str:
        return None
    return _INTERNED.setdefault(value, value) if len(value) < 200 else value


def extract_record(data: bytes, version: int) -> tuple | None:
    """Parse one line and keep only what the index needs. None for a blank line.

    Records: `(REC_ERROR, reason)`, `(REC_OTHER, obj, note)` for every object that is not a `message`
    entry (kept whole: they are small), `(REC_MESSAGE, meta..., note)` for message entries (content dropped).
    """
    if not data or (data[0] in _WS and not data.strip()):
        return None
    try:
        obj, note = decode_line(data)
    except ValueError as exc:
        return (REC_ERROR, str(exc))
    if type(obj) is not dict or obj.get("type") != m.MESSAGE:
        return (REC_OTHER, obj, note)
    msg = obj.get("message")
    if type(msg) is not dict:
        return (REC_MESSAGE, obj.get("id"), obj.get("parentId"), None, None, None, (), None, None, None, None, None, (), None, False, False, note)
    role = msg.get("role")
    migrated = False
    if version < 3 and role == "hookMessage":
        role = "custom"
        msg["role"] = role
        migrated = True
    content = msg.get("content")
    tool_name = tool_call_id = provider = model = stop = usage = None
    call_ids: tuple = ()
    kinds: tuple = ()
    if type(content) is list:
        kinds = tuple([b.get("type", "?") if type(b) is dict else "?" for b in content])
        try:
            kinds = _KINDS.setdefault(kinds, kinds)  # a few distinct shapes, shared by every entry
        except TypeError:  # a block "type" that is not hashable
            kinds = tuple(k if type(k) is str else "?" for k in kinds)
    elif type(content) is str:
        kinds = ("string",)
    excluded = False
    if role == "assistant":
        provider = _intern(msg.get("provider"))
        model = _intern(msg.get("model"))
        stop = _intern(msg.get("stopReason"))
        usage = m.pack_usage(msg.get("usage"))
        if "toolCall" in kinds:
            calls = [b for b in content if type(b) is dict and b.get("type") == "toolCall"]
            call_ids = tuple(str(b.get("id")) for b in calls)
            names = [b.get("name") for b in calls if type(b.get("name")) is str]
            tool_name = _intern(", ".join(names)) if names else None
    elif role == "toolResult":
        tool_name = _intern(msg.get("toolName"))
        tool_call_id = msg.get("toolCallId")
    elif role == "bashExecution":
        excluded = bool(msg.get("excludeFromContext"))
    ts = msg.get("timestamp")
    return (
        REC_MESSAGE,
        obj.get("id"),
        obj.get("parentId"),
        _intern(role) if type(role) is str else role,
        tool_name if type(tool_name) is str else None,
        tool_call_id if type(tool_call_id) is str else None,
        call_ids,
        provider if type(provider) is str else None,
        model if type(model) is str else None,
        stop if type(stop) is str else None,
        usage,
        ts if type(ts) in (int, float) else None,
        kinds,
        estimate_all(msg),
        excluded,
        migrated,
        note,
    )


def extract_range(path: str, start: int, end: int, first_line: int, version: int) -> tuple[list, int, bytes]:
    """Records for the complete lines in bytes [start, end) of a file (a worker's share of a big file).

    Returns `(rows, lines_seen, tail)`: rows are `(line, offset, length, record)`.
    """
    from ..index import LineScanner

    scanner = LineScanner(path)
    scanner.consumed = start
    scanner.next_line = first_line
    out = []
    for line, offset, raw in scanner.scan_until(end):
        rec = extract_record(raw, version)
        if rec is not None:
            out.append((line, offset, len(raw), rec))
    return out, scanner.next_line - first_line, scanner.pending


# -- stage 2: records -> entries, in file order (pi's loader state: header, version, v1 ids) ---------------------


class EntryReader:
    """Turns records (in file order) into `Entry` metadata and diagnostics, keeping pi's loader state.

    Feed lines with `feed(line, offset, data)`, or pre-extracted records with `accept_record`; it can be
    called again with lines appended later.
    """

    def __init__(self, report: Callable[[m.Diagnostic], None]) -> None:
        self.report = report
        self.header: dict[str, Any] | None = None
        self.header_line: int | None = None
        self.invalid_header = False
        self.version = m.CURRENT_SESSION_VERSION
        self.entries: list[m.Entry] = []
        self.parsed_count = 0  # objects JSON.parse accepted, header included (pi's entries[] index)
        self._v1_ids_by_ordinal: dict[int, str] = {}
        self._v1_prev_id: str | None = None
        self.saw_crlf = False
        self.id_of: Callable[[str], str | None] = lambda pid: None

    def feed(self, line: int, offset: int, data: bytes, terminated: bool = True) -> m.Entry | None:
        """One raw line. A line that does not parse and has no newline yet raises ValueError (still being written)."""
        if line == 1 and data.startswith(BOM):
            self.report(m.Diagnostic("bom", "file starts with a UTF-8 BOM (ignored, as pi's trim() does)", "info", 1, 0))
            data = data[3:]
            offset += 3
        if data[-1:] == b"\r" and not self.saw_crlf:
            self.saw_crlf = True
            self.report(m.Diagnostic("crlf", "CRLF line endings (the \\r is whitespace to JSON.parse)", "info", line, offset))
        rec = extract_record(data, self.version)
        if rec is None:
            return None
        if rec[0] == REC_ERROR and not terminated:
            raise ValueError(rec[1])
        return self.accept_record(line, offset, len(data), rec)

    def accept_record(self, line: int, offset: int, length: int, rec: tuple) -> m.Entry | None:
        kind = rec[0]
        if kind == REC_ERROR:
            self.report(m.Diagnostic("unparseable", f"{rec[1]}; skipped (pi skips it too)", "error", line, offset))
            return None
        note = rec[-1]
        if note:
            self.report(m.Diagnostic("invalid_utf8", note, "warning", line, offset))
        if length > HUGE_LINE_BYTES:
            self.report(m.Diagnostic("huge_line", f"line is {length:,} bytes; parsed, content not kept in memory", "warning", line, offset))
        ordinal = self.parsed_count
        self.parsed_count += 1
        if kind == REC_OTHER:
            obj = rec[1]
            if type(obj) is not dict:
                self.report(m.Diagnostic("not_object", f"line is JSON but not an object ({type(obj).__name__}); ignored", "error", line, offset))
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
        return self._message_entry(rec, line, offset, length, ordinal)

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

    def _message_entry(self, rec: tuple, line: int, offset: int, length: int, ordinal: int) -> m.Entry:
        (_, raw_id, raw_parent, role, tool_name, tool_call_id, call_ids, provider, model, stop, usage, ts, kinds, est, excluded, migrated, _) = rec
        eid, parent = self._ids(raw_id, raw_parent, line, offset, ordinal)
        if role is None and not kinds:
            self.report(m.Diagnostic("bad_message", "message entry without a 'message' object; not in context", "error", line, offset))
        elif type(role) is not str:
            self.report(m.Diagnostic("bad_role", f"message has no string 'role' ({role!r})", "error", line, offset))
            role = "<missing>"
        flags = (m.FLAG_MIGRATED_ROLE if migrated else 0) | (m.FLAG_EXCLUDED_FROM_CONTEXT if excluded else 0)
        entry = m.Entry(
            len(self.entries),
            m.pack_nums(line, offset, length, est, ts, flags),
            m.MESSAGE,
            eid,
            parent,
            None,
            None,
            role,
            tool_name,
            tool_call_id,
            call_ids,
            provider,
            model,
            stop,
            usage,
            kinds,
        )
        self.entries.append(entry)
        return entry

    def _other_entry(self, obj: dict[str, Any], line: int, offset: int, length: int, ordinal: int) -> m.Entry:
        etype = obj.get("type")
        if not isinstance(etype, str):
            self.report(m.Diagnostic("bad_type", f"entry has no string 'type' ({etype!r}); kept as opaque", "error", line, offset))
            etype = "<missing>" if etype is None else repr(etype)
        elif etype not in m.KNOWN_ENTRY_TYPES:
            self.report(m.Diagnostic("unknown_type", f"unknown entry type {etype!r}; kept as opaque", "info", line, offset))
        eid, parent = self._ids(obj.get("id"), obj.get("parentId"), line, offset, ordinal)
        ts = obj.get("timestamp")
        data = {k: v for k, v in obj.items() if k != "content"} if etype == m.CUSTOM_MESSAGE else obj
        entry = m.Entry(len(self.entries), b"", etype, eid, parent, ts if isinstance(ts, str) else None, data)
        if etype == m.COMPACTION and self.version < 2:
            self._migrate_v1_compaction(entry, obj)
        msg = agent_message_of(entry, obj, self.version)
        if msg is not None:
            entry.role = msg["role"]
            entry.nums = m.pack_nums(line, offset, length, estimate_all(msg), msg.get("timestamp"))
        else:
            entry.nums = m.pack_nums(line, offset, length, None, None)
        self.entries.append(entry)
        return entry

    def _migrate_v1_compaction(self, entry: m.Entry, obj: dict[str, Any]) -> None:
        idx = obj.get("firstKeptEntryIndex")
        if isinstance(idx, (int, float)) and not isinstance(idx, bool):
            target = self._v1_ids_by_ordinal.get(int(idx)) if float(idx).is_integer() else None
            data = {k: v for k, v in obj.items() if k != "firstKeptEntryIndex"}
            if target is not None:
                data["firstKeptEntryId"] = target
            entry.data = data
