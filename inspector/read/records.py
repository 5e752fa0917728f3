"""Stage 1 of the reader: one JSONL line -> a compact, picklable record (stateless; runs in worker processes).

A record keeps only what the index needs: `MessageRecord` for a `message` entry (metadata and estimates, the
content dropped), `OtherRecord` for any other object (kept whole: they are small), `ErrorRecord` for a line
`JSON.parse` rejects. Records are named tuples. Between processes they travel as plain tuples (`to_wire` / `from_wire`): a named
tuple pickles through a Python-level `__getnewargs__` and unpickles through a Python-level `__new__`, which made
a worker's `pickle.dumps` about 2.3x slower per record; a plain tuple is rewrapped in the parent with the C-level
`tuple.__new__` (`bench/entry_memory.py` measures it). `inspector.read.jsonl_reader.EntryReader` turns records
into `Entry` metadata, in file order. The estimates are a rule set's (`inspector.read.estimates.ReaderEstimates`,
passed in): roles its fused builders cover take them (one pass, equal to `message_record_reference`, the general
path every other message takes). The record types live in `record_types` (re-exported here).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import orjson

from inspector.js.jsjson import js_truthy
from inspector.model import entries as m
from inspector.read.estimates import ReaderEstimates
from inspector.read.record_types import ErrorRecord, MessageRecord, OtherRecord, Record, block_kinds, interned

__all__ = [
    "ErrorRecord",
    "MessageRecord",
    "OtherRecord",
    "Record",
    "decode_line",
    "extract_range",
    "extract_record",
    "from_wire",
    "message_record_reference",
    "to_wire",
]

_WS = frozenset(b" \t\r\n\x0b\x0c")


DEEP_NESTING_LIMIT = 10_000
"""Nesting this reader follows (Node's `JSON.parse` is iterative and has no limit; orjson stops at 1,024)."""
NESTED_TOO_DEEP = "nested more than 10,000 levels deep"
"""Start of the reason of a line too deep for this reader (pi would read it: not a "pi skips it too" case)."""

_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _js_int(text: str) -> int | float:
    """An integer literal as orjson gives it (an int up to 64 bits), else a double, as `JSON.parse` does."""
    if len(text) <= 20:
        value = int(text)
        if _I64_MIN <= value <= _U64_MAX:
            return value
    return float(text)  # beyond double range: inf, as JSON.parse gives Infinity


def _parse_like_node(text: str) -> Any:
    """The stdlib parser where orjson is stricter than `JSON.parse`: lone surrogates in escapes, numbers out of
    double range (Infinity), nesting deeper than 1,024. `NaN`/`Infinity` literals stay errors, as in Node."""
    old = sys.getrecursionlimit()
    try:
        if old < DEEP_NESTING_LIMIT + 500:
            sys.setrecursionlimit(DEEP_NESTING_LIMIT + 500)
        return json.loads(text, parse_constant=_no_constant, parse_int=_js_int)
    except RecursionError:
        raise ValueError(f"{NESTED_TOO_DEEP}: beyond this reader's limit (JSON.parse would read it)") from None
    finally:
        sys.setrecursionlimit(old)


def _fallback_worth_trying(exc: Exception) -> bool:
    message = str(exc)
    return any(key in message for key in ("surrogate", "infinity", "depth limit", "recursion"))


def decode_line(data: bytes) -> tuple[Any, str | None]:
    """Parse one line like Node's `JSON.parse(buffer.toString("utf8"))`.

    Returns `(value, note)`; `note` says when invalid UTF-8 was replaced. Raises `ValueError` with a
    readable reason when the line is not JSON. What orjson refuses but `JSON.parse` accepts (lone surrogates,
    `1e400` = Infinity, deep nesting) is read with the stdlib parser.
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
                if _fallback_worth_trying(exc2):
                    try:
                        return _parse_like_node(text), f"invalid UTF-8 at byte {ude.start} of the line, read as U+FFFD like Node does"
                    except ValueError:
                        pass
                raise ValueError(f"invalid UTF-8 at byte {ude.start} and not valid JSON ({exc2})") from None
        if b"\x00" in data:
            raise ValueError("NUL byte in line; not valid JSON") from None
        if _fallback_worth_trying(exc):
            try:
                return _parse_like_node(data.decode("utf-8")), None
            except ValueError as exc3:
                if str(exc3).startswith(NESTED_TOO_DEEP):
                    raise
        raise ValueError(f"not valid JSON: {exc}") from None




_BY_LENGTH: dict[int, type[ErrorRecord] | type[OtherRecord] | type[MessageRecord]] = {
    len(ErrorRecord._fields): ErrorRecord,
    len(OtherRecord._fields): OtherRecord,
    len(MessageRecord._fields): MessageRecord,
}
assert len(_BY_LENGTH) == 3, "record types must differ in length: the wire form is told apart by it"
_tuple_new = tuple.__new__
_loads = orjson.loads
_MESSAGE = m.MESSAGE


def to_wire(rec: Record) -> tuple[Any, ...]:
    """A record as the plain tuple of its fields, to send to another process (see the module docstring)."""
    return tuple(rec)


def from_wire(fields: tuple[Any, ...]) -> Record:
    """The record `to_wire` made `fields` from (its type is told by the number of fields)."""
    return _tuple_new(_BY_LENGTH[len(fields)], fields)


def message_record_reference(
    obj: dict[str, Any], version: int, note: str | None, estimate_all: Callable[[dict[str, Any]], tuple[int, ...]]
) -> MessageRecord:
    """The general path from a `message` entry to its record: every role, `hookMessage` migrated in v1/v2 files;
    `estimate_all` is the rule set's (`ReaderEstimates.estimate_all`).

    A rule set's fused builders (`ReaderEstimates.fused`: user, assistant and tool results, in one pass) must give
    exactly this; the tests compare them. The migration changes `obj`'s message in place (the estimates see the new
    role).
    """
    msg = obj.get("message")
    if type(msg) is not dict:
        return MessageRecord(obj.get("id"), obj.get("parentId"), None, None, None, (), None, None, None, None, None, (), None, 0, note)
    get = msg.get
    role = get("role")
    flags = 0
    if version < 3 and role == "hookMessage":
        role = "custom"
        msg["role"] = role
        flags |= m.FLAG_MIGRATED_ROLE
    content = get("content")
    tool_name = tool_call_id = provider = model = stop = usage = None
    call_ids: tuple[str, ...] = ()
    if type(content) is list:
        kinds = block_kinds(content)
    else:
        kinds = ("string",) if type(content) is str else ()
    if role == "assistant":
        provider = interned(get("provider"))
        model = interned(get("model"))
        stop = interned(get("stopReason"))
        raw_usage = get("usage")
        usage = m.pack_usage(raw_usage)
        flags |= m.usage_flags(raw_usage)
        if get("api") == "cli":
            flags |= m.FLAG_API_CLI
        if "toolCall" in kinds and type(content) is list:
            calls = [b for b in content if type(b) is dict and b.get("type") == "toolCall"]
            call_ids = tuple([str(b.get("id")) for b in calls])
            names = [name for b in calls if type(name := b.get("name")) is str]
            tool_name = interned(", ".join(names)) if names else None
    elif role == "toolResult":
        tool_name = interned(get("toolName"))
        tool_call_id = get("toolCallId")
        if type(tool_call_id) is not str:
            tool_call_id = None
    elif role == "bashExecution" and js_truthy(get("excludeFromContext")):
        flags |= m.FLAG_EXCLUDED_FROM_CONTEXT
    if "excludeFromContext" in msg or "appendMode" in obj:
        flags |= context_flags(obj, msg)
    ts = get("timestamp")
    if type(role) is str:
        role = interned(role)
    # MessageRecord's fields in order; tuple.__new__ skips the named tuple's Python-level __new__ (0.35 µs vs 1 µs).
    return _tuple_new(
        MessageRecord,
        (
            obj.get("id"), obj.get("parentId"), role, tool_name, tool_call_id, call_ids, provider, model, stop, usage,
            ts if type(ts) is int or type(ts) is float else None, kinds, estimate_all(msg), flags, note,
        ),
    )  # fmt: skip


def context_flags(obj: dict[str, Any], msg: dict[str, Any]) -> int:
    """The flags of a `message` entry `obj` (message `msg`) that OpenClaw 2026.9's context rebuild reads:
    `FLAG_EXCLUDE_TRUE` (`excludeFromContext === true`), `FLAG_SIDE_APPEND` (`appendMode === "side"`)."""
    flags = m.FLAG_EXCLUDE_TRUE if msg.get("excludeFromContext") is True else 0
    return flags | m.FLAG_SIDE_APPEND if obj.get("appendMode") == "side" else flags


def extract_record(data: bytes, version: int, est: ReaderEstimates) -> Record | None:
    """Parse one line and keep only what the index needs (see the module docstring), the estimates `est`'s. None for
    a blank line."""
    if not data or (data[0] in _WS and not data.strip()):
        return None
    note = None
    try:
        obj = _loads(data)  # decode_line's first step, inlined: almost every line is plain JSON
    except orjson.JSONDecodeError:
        try:
            obj, note = decode_line(data)
        except ValueError as exc:
            return ErrorRecord(str(exc))
    if type(obj) is not dict or obj.get("type") != _MESSAGE:
        return _tuple_new(OtherRecord, (obj, note))  # OtherRecord(obj, note) without its Python-level __new__
    msg = obj.get("message")
    if type(msg) is dict:
        role = msg.get("role")
        if type(role) is str:
            make = est.fused.get(role)
            if make is not None:
                if "excludeFromContext" in msg or "appendMode" in obj:  # rare: the flags added to the fused record
                    rec = make(obj, msg, note)
                    return rec._replace(flags=rec.flags | context_flags(obj, msg))
                return make(obj, msg, note)
    return message_record_reference(obj, version, note, est.estimate_all)


def extract_range(
    path: str, start: int, end: int, first_line: int, version: int, est: ReaderEstimates
) -> tuple[list[tuple[int, int, int, tuple[Any, ...]]], int, bytes]:
    """Records for the complete lines in bytes [start, end) of a file (a worker's share of a big file).

    Returns `(rows, lines_seen, tail)`: rows are `(line, offset, length, to_wire(record))`; `tail` is what follows
    the last newline before `end`.
    """
    from inspector.read.lines import LineScanner

    scanner = LineScanner(path)
    scanner.resume(start, first_line)
    out = []
    for line, offset, raw in scanner.scan_until(end):
        rec = extract_record(raw, version, est)
        if rec is not None:
            out.append((line, offset, len(raw), tuple(rec)))  # to_wire, inlined
    return out, scanner.next_line - first_line, scanner.pending
