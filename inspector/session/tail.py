"""The last entries of a session file, read from the end: something to show at once on a 1 GB file.

`read_tail` reads backwards until it has `count` complete lines, so its cost depends on `count`, not on the
file size. Line numbers are unknown at that point (they need the whole file): entries carry `line = 0`
until the full index (`open_session`) replaces them. A mirror's usage marks (`inspector.read.usage_marks`) revise the
entries of the tail they name.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from inspector.model import entries as m
from inspector.read.formats.mirror_files import is_foreign_mirror
from inspector.read.jsonl_reader import EntryReader, peek_version
from inspector.read.lines import segments
from inspector.read.records import extract_record
from inspector.read.usage_marks import is_usage_mark, read_usage_mark
from inspector.session.session import Session

BLOCK = 1024 * 1024


@dataclass(slots=True)
class TailView:
    """The last entries of a file (metadata and estimates), without line numbers."""

    path: Path
    size: int
    entries: list[m.Entry]
    reached_start: bool
    diagnostics: list[m.Diagnostic] = field(default_factory=list)


def _last_lines(f, size: int, count: int) -> tuple[int, list[bytes], bool]:
    """(offset of the first returned line, the last `count` complete lines, reached the file start)."""
    end = size
    buf = b""
    pos = size
    while pos > 0:
        step = min(BLOCK, pos)
        pos -= step
        f.seek(pos)
        buf = f.read(step) + buf
        if buf.count(b"\n") > count + 1:
            break
    # Drop an unterminated last line (a writer mid-line).
    last_nl = buf.rfind(b"\n")
    body = buf[: last_nl] if last_nl >= 0 else b""
    end = pos + len(body)
    lines = body.split(b"\n") if body else []
    reached_start = pos == 0
    if not reached_start and lines:
        lines = lines[1:]  # a fragment of a line that starts before `pos`
    lines = lines[-count:] if count else []
    first_offset = end - sum(len(x) + 1 for x in lines) + 1 if lines else end
    return first_offset, lines, reached_start


def read_tail(path: Path | str, count: int = 1000, version: int = m.CURRENT_SESSION_VERSION) -> TailView:
    """The last `count` lines of `path` as entries with estimates (content not kept)."""
    path = Path(path)
    size = os.stat(path).st_size
    with open(path, "rb") as f:
        offset, lines, reached_start = _last_lines(f, size, count)
    diags: list[m.Diagnostic] = []
    reader = EntryReader(diags.append, version)
    if not (reached_start and offset == 0):
        reader.start_after_header()  # the header lies before the tail: do not expect it here
    entries: list[m.Entry] = []
    segmented = is_foreign_mirror(path)
    revised: dict[str, bytes | None] = {}
    for data in lines:
        for at, part in segments(offset, data) if segmented else ((offset, data),):
            if segmented and is_usage_mark(part):
                mark = read_usage_mark(part)
                if mark is not None:
                    revised[mark[0]] = mark[1]
                continue
            rec = extract_record(part, version, reader.est)
            if rec is not None:
                e = reader.accept_record(0, at, len(part), rec)
                if e is not None:
                    entries.append(e)
        offset += len(data) + 1
    if revised:
        entries = [
            dataclasses.replace(e, usage_packed=revised[e.id]) if e.id in revised and e.type == m.MESSAGE and e.role == "assistant" else e
            for e in entries
        ]
    return TailView(path, size, entries, reached_start, diags)


def tail_session(path: Path | str, count: int = 1000) -> Session | None:
    """A provisional `Session` holding only the last `count` entries (`provisional = True`), to show at once
    while the whole file is indexed. Their line numbers are 0; the context is the path within the tail.

    None for v1 files, whose entries have no ids to build a tree from.
    """
    path = Path(path)
    with open(path, "rb") as f:
        first = f.readline(1 << 20)
    version = peek_version(first)
    if version < 2:
        return None
    view = read_tail(path, count, version)
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        header = None
    if not (isinstance(header, dict) and header.get("type") == m.SESSION):
        header = None
    return Session.provisional_from_tail(path, header, version, view.entries, view.diagnostics)
