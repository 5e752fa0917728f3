"""A session file's listing figures from its head and its tail: no index, a few blocks read per file.

`glance_session(path)` reads the header (first line) and walks the active path backwards from the last entry
(pi's leaf on load) only as far as it must: to the last assistant message with valid usage, which gives pi's
`estimateContextTokens` (that usage plus chars/4 of the later context messages) and the model in force. Files up to
`SCAN_BYTES` are read whole, without parsing every line: then the line count is exact, and the session name and the
compaction count are decided by parsing only the lines that can hold them (the lines that contain
`session_info` / `"compaction"`: pi writes entry types verbatim); a compaction met before any usage sends the
walk on to its `firstKeptEntryId` (the kept messages are in the context), and a small file's path the walk cannot
finish is decided by the full index. Anything the bytes read cannot decide is listed in
`unknown` (an `estimated` line count is extrapolated from the bytes read); what is given is what `stats --json`
says for the same file, never an approximation.

A persistent cache can stand in front of it later: the listing asks one function per file (`GlanceReader`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.host.listing.byte_window import FileWindow, NotRegularFile
from inspector.host.listing.walk import Walk, name_decision
from inspector.model import entries as m
from inspector.read.detect import CLAUDE_CODE, CODEX, UNKNOWN, classify_lines, detect_format
from inspector.read.estimates import reader_estimates
from inspector.read.formats.mirror_files import is_foreign_mirror
from inspector.read.jsonl_reader import BOM, peek_version, synthetic_v1_id
from inspector.read.records import OtherRecord, extract_record
from inspector.rules.ruleset import rule_set

SCAN_BYTES = 64 * 1024
"""Files up to this size are read whole (exact line count, session name, compactions); bigger ones head + tail."""
WALK_BYTES = 8 * 1024 * 1024
"""The backwards walk gives up (figures `unknown`) after reading this much of the tail."""

FIGURES = ("leaf_id", "context_tokens", "model", "session_name", "compactions", "lines")


@dataclass(frozen=True, slots=True)
class SessionGlance:
    """What a listing shows about one file without indexing it.

    `header`: the header fields `stats --json` prints (None: no valid header). `leaf_id`, `last_activity`: the
    last entry's id and `timestamp` (pi's leaf on load). `model`: `{provider, modelId}` in force at the leaf.
    `context_tokens`: pi's `estimateContextTokens` of the leaf's context. `session_name`, `compactions`: as
    `stats --json`. `lines`: physical lines (`wc -l`, plus an unterminated last line); `estimated` names it when
    it is extrapolated. `unknown`: figures the bytes read could not decide (their value is None). `format`: the
    file's family (`detect_format`). `error`: why the file could not be read at all.
    """

    format: str | None = None
    header: dict[str, Any] | None = None
    leaf_id: str | None = None
    last_activity: str | None = None
    model: dict[str, Any] | None = None
    context_tokens: int | None = None
    session_name: str | None = None
    compactions: int | None = None
    lines: int | None = None
    bytes_read: int = 0
    estimated: tuple[str, ...] = ()
    unknown: tuple[str, ...] = field(default=())
    error: str | None = None

    def known(self, figure: str) -> bool:
        """Whether `figure` was decided (its value is the file's, None included)."""
        return figure not in self.unknown and self.error is None

    def to_json(self) -> dict[str, Any]:
        """The `glance` object of `ls --json` (`format` is the row's own field)."""
        return {
            "header": self.header,
            "leaf_id": self.leaf_id,
            "last_activity": self.last_activity,
            "model": self.model,
            "context_tokens": self.context_tokens,
            "session_name": self.session_name,
            "compactions": self.compactions,
            "lines": self.lines,
            "estimated": list(self.estimated),
            "unknown": list(self.unknown),
            "bytes_read": self.bytes_read,
            "error": self.error,
        }


GlanceReader = Callable[[Path], SessionGlance]
"""One file's glance: `glance_session`, or a cache lookup in front of it."""


def glance_files(paths: list[Path], reader: GlanceReader | None = None) -> dict[Path, SessionGlance]:
    """The glance of every path, in order (`reader` defaults to `glance_session`)."""
    read = reader or glance_session
    return {path: read(path) for path in paths}


def _header_of(first: bytes) -> tuple[dict[str, Any] | None, int]:
    """The header object (or None) and the version the file is read as."""
    if first.startswith(BOM):
        first = first[len(BOM):]
    version = peek_version(first)
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None, version
    if isinstance(obj, dict) and obj.get("type") == m.SESSION and isinstance(obj.get("id"), str):
        return obj, version
    return None, version


def _format_of(window: FileWindow) -> str:
    """`detect_format`'s answer from the head already read (its 256 KB second look only when the head cannot tell)."""
    head = window.head
    lines = head.split(b"\n")
    complete = len(head) >= window.size
    if not complete and len(lines) > 1:
        lines = lines[:-1]
    name = classify_lines(lines).name
    if name == UNKNOWN and not complete:
        name = detect_format(window.path).name
    return name


def _lines_with(data: bytes, needle: bytes, *, last_first: bool = False) -> list[bytes]:
    """The lines of `data` that contain `needle` (each once), in file order or last first."""
    found: list[bytes] = []
    pos = data.rfind(needle) if last_first else data.find(needle)
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        found.append(data[start:end])
        pos = data.rfind(needle, 0, max(0, start - 1)) if last_first else data.find(needle, end)
    return found


def _count_compactions(data: bytes, version: int) -> int:
    """Compaction entries in a whole file, parsing only the lines that mention one (a line that does not parse is
    no entry, terminated or not)."""
    count = 0
    est = reader_estimates()
    for line in _lines_with(data, b'"compaction"'):
        rec = extract_record(line, version, est)
        if type(rec) is OtherRecord and type(rec.obj) is dict and rec.obj.get("type") == m.COMPACTION:
            count += 1
    return count


def _scan_name(data: bytes, version: int) -> str | None:
    """The session name of a whole file: the latest `session_info` that sets or clears it."""
    est = reader_estimates()
    for line in _lines_with(data, b"session_info", last_first=True):
        rec = extract_record(line, version, est)
        if type(rec) is OtherRecord and type(rec.obj) is dict and rec.obj.get("type") == m.SESSION_INFO:
            decided, name = name_decision(rec.obj)
            if decided:
                return name
    return None


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def glance_session(path: Path) -> SessionGlance:
    """The listing figures of `path` from its head and tail (see the module docstring); never raises for a bad file."""
    try:
        window = FileWindow(path)
    except NotRegularFile as exc:
        return SessionGlance(format=UNKNOWN, error=str(exc))
    except OSError as exc:
        return SessionGlance(format=UNKNOWN, error=f"{path}: {exc.strerror or exc}")
    try:
        with window:
            return _glance(window)
    except OSError as exc:
        return SessionGlance(format=UNKNOWN, error=f"{path}: {exc.strerror or exc}")


def _foreign_glance(window: FileWindow, fmt: str) -> SessionGlance:
    """A Claude Code / Codex file's figures: its mirror's (`inspector.read.formats.mirror`), read whole."""
    import dataclasses

    from inspector.read.formats.mirror import sync_foreign

    try:
        mirror = sync_foreign(window.path, fmt)
    except OSError as exc:
        return SessionGlance(format=fmt, bytes_read=window.bytes_read, error=f"{window.path}: cannot mirror it: {exc.strerror or exc}")
    glance = glance_session(mirror.path)
    return dataclasses.replace(glance, format=fmt, bytes_read=mirror.offset, header=None)


def _glance(window: FileWindow) -> SessionGlance:
    fmt = _format_of(window)
    if fmt in (CLAUDE_CODE, CODEX):  # another tool's transcript: the figures of its pi-format mirror (same lines)
        return _foreign_glance(window, fmt)
    first = window.first_line()
    header, version = _header_of(first)
    whole = window.read_all() if window.size <= SCAN_BYTES else None
    walk = Walk(version, header, segmented=is_foreign_mirror(window.path))
    for line in window.lines_from_end():
        data = line.data
        if line.offset == 0:
            if header is None:
                walk.accept(0, data[len(BOM):] if data.startswith(BOM) else data, line.terminated)
            walk.at_file_start()
            break
        walk.accept(line.offset, data, line.terminated)
        if walk.done or window.bytes_read > WALK_BYTES + SCAN_BYTES:
            break
    unknown: list[str] = []
    estimated: list[str] = []
    if whole is not None and not (walk.tokens_known and walk.model_known):
        _from_index(walk, window.path)  # a small file whose path the walk could not finish (a compaction first)
    if whole is not None:
        lines = _count_lines(whole)
        compactions: int | None = _count_compactions(whole, version)
        if not walk.name_known:
            walk.name_known, walk.name = True, _scan_name(whole, version)
    else:
        lines = _estimate_lines(window)
        estimated.append("lines")
        compactions = None
        unknown.append("compactions")
    if not walk.tokens_known:
        unknown.append("context_tokens")
    if not walk.model_known:
        unknown.append("model")
    if not walk.name_known:
        unknown.append("session_name")
    if walk.linear and whole is None and walk.leaf is not None:
        unknown.append("leaf_id")
    leaf = walk.leaf
    return SessionGlance(
        format=fmt,
        header=m.header_json(header),
        leaf_id=_leaf_id(walk, whole),
        last_activity=_timestamp(walk.leaf_line) if leaf is not None else None,
        model=walk.model if walk.model_known else None,
        context_tokens=walk.tokens if walk.tokens_known else None,
        session_name=walk.name if walk.name_known else None,
        compactions=compactions,
        lines=lines,
        bytes_read=window.bytes_read,
        estimated=tuple(estimated),
        unknown=tuple(f for f in FIGURES if f in unknown),
    )


def _from_index(walk: Walk, path: Path) -> None:
    """Decide the path's figures with the full index (only for files small enough to be read whole)."""
    from inspector.session.session import SessionOpenError, open_session

    try:
        session = open_session(path)
    except (SessionOpenError, OSError):
        return
    ctx = session.context()
    walk.tokens = int(rule_set(session.rules_id).context_usage.context_now(session, ctx)["tokens"])
    walk.model, walk.tokens_known, walk.model_known = ctx.model, True, True


def _leaf_id(walk: Walk, whole: bytes | None) -> str | None:
    """The leaf's id; a v1 file's synthetic one needs the leaf's line number (known when the file was read whole)."""
    if walk.leaf is None or not walk.linear:
        return walk.leaf.id if walk.leaf is not None else None
    return synthetic_v1_id(whole.count(b"\n", 0, walk.leaf_offset) + 1) if whole is not None else None


def _timestamp(line: bytes) -> str | None:
    """The entry's own `timestamp` (the index keeps only the message's for message entries)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    ts = obj.get("timestamp") if type(obj) is dict else None
    return ts if isinstance(ts, str) else None


def _estimate_lines(window: FileWindow) -> int:
    """Lines of a file not read whole: its size over the mean line length of the bytes read from its end."""
    tail = window.tail
    newlines = tail.count(b"\n")
    if newlines == 0:
        return 1
    return max(newlines, round(window.size * newlines / len(tail)))
