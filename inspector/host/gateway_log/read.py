"""Read the Gateway's log files for one session: its events in time order, and what could not be read.

The files are opened read only (`inspector.base.safeio.open_regular`: never a FIFO or a device) and read line by
line in bounded pieces: a line over `MAX_LINE_BYTES` is skipped and reported, never held whole. Only lines that
name the session (its key or its id, as the log writes them) are decoded, so a log of many sessions costs little;
such a line that is not a JSON object is a diagnostic with its file and line number. Other sessions' lines are
never decoded nor reported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.base.safeio import open_regular
from inspector.base.textsafe import make_inert
from inspector.host.gateway_log.events import GatewayEvent, parse_record

MAX_LINE_BYTES = 1024 * 1024
READ_CHUNK = 1024 * 1024
MAX_DIAGNOSTICS = 100


@dataclass(frozen=True, slots=True)
class LogDiagnostic:
    """A line of a log file that could not be used (too long, not JSON), or a file that could not be read."""

    file: str
    line: int | None
    message: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {"file": self.file, "line": self.line, "message": self.message}


@dataclass(slots=True)
class GatewayLog:
    """What the Gateway's log says of one session: the files read, the events (time order), the diagnostics."""

    files: list[str] = field(default_factory=list)
    session_key: str | None = None
    session_id: str | None = None
    events: list[GatewayEvent] = field(default_factory=list)
    diagnostics: list[LogDiagnostic] = field(default_factory=list)

    @property
    def found(self) -> bool:
        """Whether any log file was read."""
        return bool(self.files)

    def of_kind(self, *kinds: str) -> list[GatewayEvent]:
        """The events of these kinds, in time order."""
        return [e for e in self.events if e.kind in kinds]

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "files": list(self.files),
            "session_key": self.session_key,
            "session_id": self.session_id,
            "events": [e.to_json() for e in self.events],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def _needles(*values: str | None) -> list[bytes]:
    out: list[bytes] = []
    for value in values:
        if value:
            for form in (value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1]):
                raw = form.encode("utf-8", "surrogatepass")
                if raw not in out:
                    out.append(raw)
    return out


def _lines(fd: int):
    """`(line number, bytes or None when too long)` of a file, each line read in bounded pieces."""
    number = 0
    pending = b""
    skipping = False
    with open(fd, "rb", buffering=0, closefd=True) as f:
        while True:
            chunk = f.read(READ_CHUNK)
            if not chunk:
                break
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    if not skipping:
                        pending += chunk[start:]
                        if len(pending) > MAX_LINE_BYTES:
                            pending, skipping = b"", True
                    break
                number += 1
                if skipping:
                    yield number, None
                else:
                    line = pending + chunk[start:end]
                    yield number, (line if len(line) <= MAX_LINE_BYTES else None)
                pending, skipping, start = b"", False, end + 1
    if skipping or pending:
        yield number + 1, None if skipping else pending


def read_gateway_log(files: list[Path], session_key: str | None, session_id: str | None = None) -> GatewayLog:
    """The events of the session `session_key` (or `session_id`: OpenClaw logs the id where a run has no key) in
    `files`, sorted by time (events without a readable time last, in file order)."""
    log = GatewayLog(files=[str(p) for p in files], session_key=session_key, session_id=session_id)
    needles = _needles(session_key, session_id)
    if not needles:
        return log
    wanted = {v for v in (session_key, session_id) if v}
    found: list[tuple[float, int, int, GatewayEvent]] = []
    for order, path in enumerate(files):
        name = make_inert(str(path), keep_newlines=False)

        def note(line: int | None, message: str, name: str = name) -> None:
            if len(log.diagnostics) < MAX_DIAGNOSTICS:
                log.diagnostics.append(LogDiagnostic(name, line, message))

        try:
            fd = open_regular(path)
        except OSError as exc:
            note(None, f"cannot read: {exc.strerror or exc}")
            continue
        try:
            for number, raw in _lines(fd):
                if raw is None:
                    note(number, f"line over {MAX_LINE_BYTES:,} bytes; skipped")
                    continue
                if not any(n in raw for n in needles):
                    continue
                try:
                    record = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    note(number, "not JSON; skipped")
                    continue
                if not isinstance(record, dict):
                    note(number, "not a JSON object; skipped")
                    continue
                event = parse_record(record, name, number)
                if event is None or not ({event.session_key, event.session_id} & wanted):
                    continue
                found.append((event.time_ms if event.time_ms is not None else float("inf"), order, number, event))
        except OSError as exc:
            note(None, f"read failed: {exc.strerror or exc}")
    found.sort(key=lambda item: item[:3])
    log.events = [item[3] for item in found]
    _complete_results(log.events)
    return log


def _complete_results(events: list[GatewayEvent]) -> None:
    """A compaction result's `tokens_before`: its attempt's (same diag id and attempt), else after - delta."""
    attempts = {(e.figures.get("diag_id"), e.figures.get("attempt")): e for e in events if e.kind == "compaction_attempt"}
    for e in events:
        if e.kind != "compaction_result" or e.figures.get("tokens_before") is not None:
            continue
        start = attempts.get((e.figures.get("diag_id"), e.figures.get("attempt")))
        before = start.figures.get("tokens_before") if start is not None else None
        after, delta = e.figures.get("tokens_after"), e.figures.get("delta_tokens")
        if before is None and isinstance(after, (int, float)) and isinstance(delta, (int, float)):
            before = after - delta
        e.figures["tokens_before"] = before
