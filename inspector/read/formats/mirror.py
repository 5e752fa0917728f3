"""The pi-format mirror of a Claude Code or Codex transcript, kept in step with the file (`sync_foreign`).

The mirror (`mirror-<32 hex>.jsonl` in the cache directory, keyed by the format and the file's device, inode and
real path) holds one line for each line of the file, so every line number the engine shows is the file's (a line
pi writes as several entries holds them all, apart by `SEGMENT_SEPARATOR`: a segmented reader, `is_foreign_mirror`,
takes each with the line's number): a blank line stays blank, a line that is not JSON (or a JSON value that is not an object) is copied as it is, every other
line is its translation (`claude_code`, `codex`). The file is never written. A sync translates only complete lines
(a last line without its newline waits for it, unless it is already whole JSON when the file is read whole).

Every process shares the mirror (`mirror_files`: a sidecar, the translator's state, a lock): a file unchanged since
the last sync (its size, mtime and digests) is not read again; a file that grew is translated from where the last
sync stopped, with the translator's saved state, and the mirror appended (the reader picks the new lines up as a
live session's). A translator may write an earlier row again (the usage of an API message goes on its last line's
row, `claude_code`; a Codex `token_count` on the response it measures, `codex`): a row of the same sync is written
as revised; a row already in the mirror is never touched: the new line carries a usage mark naming the row's entry
and its usage (`inspector.read.usage_marks`), which every reader applies. So the mirror only ever grows while the
file does (a reader, or a snapshot of the index, never holds bytes that changed), and a mirror made in one sync has
no mark. A file that shrank or was replaced is translated again whole into a new mirror. A mirror is never the
user's data: `cache clear` removes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.base.digests import blake2b
from inspector.base.safeio import exclusive_lock
from inspector.read.formats.claude_code import ClaudeCodeTranslator
from inspector.read.formats.codex import CodexTranslator
from inspector.read.formats.mirror_files import (
    MIRROR_VERSION,
    digests,
    read_json,
    replace_file,
    restore_translator,
    translator_state,
)
from inspector.read.formats.pi_lines import dumps
from inspector.read.lines import SEGMENT_SEPARATOR
from inspector.read.usage_marks import usage_mark

MIRROR_PREFIX = "mirror-"
TRANSLATORS: dict[str, type[ClaudeCodeTranslator] | type[CodexTranslator]] = {
    ClaudeCodeTranslator.format: ClaudeCodeTranslator,
    CodexTranslator.format: CodexTranslator,
}
"""The formats read through a mirror, by `inspector.read.detect` name."""
FORMAT_TITLES = {"claude-code": "Claude Code", "codex": "Codex"}
"""How a format is named to a user."""
_CHUNK = 4 * 1024 * 1024
WINDOW_FROM_FILE = "session file (model_context_window)"
"""`context_window.source` of a window the file records."""
CLAUDE_CODE_WINDOW = 200_000
CLAUDE_CODE_WINDOW_SOURCE = "Claude Code's default window (200,000; 1M only when the session enabled it)"
"""Claude Code records no window: its models run with 200k unless the 1M context was turned on (spec §4: the
auto-compact threshold is computed from it; a real `preTokens` of 167,094 fits 200k)."""


@dataclass(slots=True)
class ForeignMirror:
    """A Claude Code / Codex file's mirror as last synced: where it is, how far the file was read, what changed."""

    source: Path
    format: str
    path: Path
    translator: Any = None
    """The translator in its state after the last line translated (None until lines are to be translated)."""
    identity: tuple[int, int] = (0, 0)
    offset: int = 0
    """Bytes of the file translated (complete lines, and a whole unterminated last line read at a full sync)."""
    unterminated: bool = False
    """The last line translated had no newline yet (its newline, when it comes, is not a new line)."""
    lines: int = 0
    change: str = "unchanged"
    """`created` (first sync), `appended`, `rewritten` (the file shrank or was replaced) or `unchanged`."""
    added: int = 0
    revised: int = 0
    """Rows of earlier syncs whose usage this sync revised (usage marks on the new lines)."""
    problems: list[str] = field(default_factory=list)
    window: int | None = None
    """The context window the file records (Codex's `model_context_window`), None when it records none."""
    compactions: dict[int, dict[str, Any]] = field(default_factory=dict)
    """By line: `trigger` and `tokens_before` as the file records them (the translator's)."""
    size: int = 0
    """The mirror's size in bytes."""
    file_size: int = 0
    mtime_ns: int = 0
    digests: tuple[str, str] = ("", "")
    serial: int = 0
    """Counts the syncs that changed the mirror (a process holding an older one reloads the translator)."""
    generation: int = 0
    """Counts the times the mirror was made anew (the file shrank or was rewritten)."""
    translated: int = 0
    """Lines translated by this sync (0 when the mirror was reused as it was)."""

    @property
    def title(self) -> str:
        """`Claude Code` or `Codex`."""
        return FORMAT_TITLES.get(self.format, self.format)

    def default_window(self) -> tuple[int | None, str]:
        """The window when none is given (`--context-window`), and its source: the one the file records, else
        Claude Code's default; (None, "") for a Codex file that records none (the model catalog's then)."""
        if self.window is not None:
            return self.window, WINDOW_FROM_FILE
        if self.format == "claude-code":
            return CLAUDE_CODE_WINDOW, CLAUDE_CODE_WINDOW_SOURCE
        return None, ""

    def rules_reason(self, rules_id: str) -> str:
        """Why a session of this format is read with `rules_id` (the default rules: only their estimators apply)."""
        return f"a {self.title} session: {rules_id}'s estimators (chars/4) only; OpenClaw's pruning and compaction do not apply"

    def source_json(self) -> dict[str, Any]:
        """`"source"` of a command's `--json` output on this file."""
        return {"kind": self.format, "file": str(self.source)}

    def _meta(self) -> bytes:
        return orjson.dumps({
            "version": MIRROR_VERSION, "format": self.format, "source": os.path.realpath(self.source), "identity": list(self.identity),
            "offset": self.offset, "unterminated": self.unterminated, "lines": self.lines, "window": self.window,
            "compactions": {str(k): v for k, v in self.compactions.items()}, "size": self.size,
            "file_size": self.file_size, "mtime_ns": self.mtime_ns,
            "digests": list(self.digests), "serial": self.serial, "generation": self.generation, "problems": self.problems,
        })


def mirror_path(source: Path, fmt: str, identity: tuple[int, int]) -> Path:
    """Where the mirror of `source` lives (the cache directory, or the private fallback the store mirrors use)."""
    from inspector.read.store.mirror import mirror_dir

    key = f"{fmt}\0{identity[0]}\0{identity[1]}\0{os.path.realpath(source)}".encode("utf-8", "surrogatepass")
    return Path(mirror_dir()) / f"{MIRROR_PREFIX}{blake2b(key, digest_size=16).hexdigest()}.jsonl"


def translate_line(translator: Any, raw: bytes) -> bytes:
    """One line of the file (no newline) as its mirror line."""
    stripped = raw.strip()
    if not stripped:
        translator.line += 1
        return raw
    try:
        obj = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        translator.line += 1
        return raw
    out = translator.translate(obj)
    if isinstance(out, list):
        return SEGMENT_SEPARATOR.join(map(dumps, out))
    return raw if out is None else dumps(out)


def _translate(mirror: ForeignMirror, data: bytes, *, whole: bool) -> list[bytes]:
    """The mirror rows for `data` (the file's bytes from `mirror.offset`), advancing the mirror's state: a row the
    translator writes again is revised in place when it is one of them, else the line that revised it carries a usage
    mark (`inspector.read.usage_marks`)."""
    if mirror.unterminated and data.startswith(b"\n"):
        data = data[1:]
        mirror.offset += 1
        mirror.unterminated = False
    end = data.rfind(b"\n") + 1
    body, rest = data[:end], data[end:]
    translator = mirror.translator
    first = mirror.lines + 1
    raws = body.split(b"\n")[:-1]
    consumed = end
    if rest and whole:
        try:
            orjson.loads(rest)
        except orjson.JSONDecodeError:
            rest = b""
        if rest:
            raws.append(rest)
            consumed += len(rest)
            mirror.unterminated = True
    out: list[bytes] = []
    marks: dict[int, list[bytes]] = {}
    revisions = translator.revisions
    for raw in raws:
        out.append(translate_line(translator, raw))
        if revisions:
            for line, row in revisions.items():
                if line >= first:
                    out[line - first] = dumps(row)
                else:
                    marks.setdefault(len(out) - 1, []).append(usage_mark(row["id"], row["message"].get("usage")))
            revisions.clear()
    for k, segments in marks.items():
        out[k] = SEGMENT_SEPARATOR.join([out[k], *segments])
    mirror.offset += consumed
    mirror.lines += len(out)
    mirror.added = mirror.translated = len(out)
    mirror.revised = sum(map(len, marks.values()))
    return out


def _read_from(source: Path, offset: int) -> tuple[bytes, os.stat_result]:
    with open(source, "rb") as f:
        st = os.fstat(f.fileno())
        f.seek(offset)
        chunks = []
        while chunk := f.read(_CHUNK):
            chunks.append(chunk)
    return b"".join(chunks), st


def _finish(mirror: ForeignMirror, fd: int, st: os.stat_result) -> None:
    mirror.window = mirror.translator.window
    mirror.compactions = dict(mirror.translator.compactions)
    mirror.file_size, mirror.mtime_ns = st.st_size, st.st_mtime_ns
    mirror.digests = digests(fd, mirror.offset)
    mirror.serial += 1


def _save(mirror: ForeignMirror, base: str) -> None:
    replace_file(base + ".state", orjson.dumps({"serial": mirror.serial}) + b"\n" + translator_state(mirror.translator))
    replace_file(base + ".json", mirror._meta())


def _load(base: str, fresh: ForeignMirror, fd: int, st: os.stat_result) -> ForeignMirror | None:
    """The mirror as its sidecar describes it, when the sidecar can be trusted (see `mirror_files`)."""
    meta = read_json(base + ".json")
    try:
        if not isinstance(meta, dict) or meta.get("version") != MIRROR_VERSION or meta["format"] != fresh.format:
            return None
        if meta["source"] != os.path.realpath(fresh.source) or tuple(meta["identity"]) != fresh.identity:
            return None
        if os.stat(fresh.path).st_size != meta["size"] or st.st_size < meta["offset"]:
            return None
        if tuple(meta["digests"]) != digests(fd, meta["offset"]):
            return None
        return ForeignMirror(
            source=fresh.source, format=fresh.format, path=fresh.path, identity=fresh.identity, offset=meta["offset"],
            unterminated=meta["unterminated"], lines=meta["lines"], window=meta["window"],
            compactions={int(k): v for k, v in meta["compactions"].items()}, size=meta["size"], file_size=meta["file_size"],
            mtime_ns=meta["mtime_ns"], digests=(meta["digests"][0], meta["digests"][1]), serial=meta["serial"],
            generation=meta["generation"], problems=list(meta["problems"]),
        )
    except (OSError, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def _load_translator(mirror: ForeignMirror, base: str, previous: ForeignMirror | None) -> bool:
    if previous is not None and previous.translator is not None and previous.serial == mirror.serial and previous.path == mirror.path:
        mirror.translator = previous.translator
        return True
    try:
        with open(base + ".state", "rb") as f:
            stamp, _, state = f.read().partition(b"\n")
        if orjson.loads(stamp).get("serial") != mirror.serial:
            return False
        mirror.translator = restore_translator(TRANSLATORS[mirror.format], orjson.loads(state))
        return True
    except (OSError, ValueError, TypeError, AttributeError):
        return False


def _append(mirror: ForeignMirror, base: str) -> None:
    """Translate what the file holds past `mirror.offset` and append it to the mirror."""
    with open(mirror.source, "rb") as f:
        st = os.fstat(f.fileno())
        f.seek(mirror.offset)
        data = f.read()
        rows = _translate(mirror, data, whole=False)
        if not rows:  # only the start of a line without its newline yet
            mirror.change, mirror.added = "unchanged", 0
            return
        tail = b"".join(r + b"\n" for r in rows)
        with open(mirror.path, "ab") as m:
            m.write(tail)
        mirror.change = "appended"
        mirror.size += len(tail)
        _finish(mirror, f.fileno(), st)
    _save(mirror, base)


def _create(fresh: ForeignMirror, base: str, change: str) -> ForeignMirror:
    fresh.translator = TRANSLATORS[fresh.format]()
    with open(fresh.source, "rb") as f:
        st = os.fstat(f.fileno())
        data = f.read()
        rows = _translate(fresh, data, whole=True)
        out = b"".join(r + b"\n" for r in rows)
        replace_file(str(fresh.path), out)
        fresh.size = len(out)
        fresh.change = change
        _finish(fresh, f.fileno(), st)
    _save(fresh, base)
    return fresh


def sync_foreign(source: Path | str, fmt: str, mirror: ForeignMirror | None = None) -> ForeignMirror:
    """Bring the mirror of `source` (a `claude-code` or `codex` file) up to date and return it: `mirror` is this
    process's last sync (None: the first; the mirror another process left is reused all the same). Raises `OSError`
    when the file or the mirror cannot be read or written."""
    source = Path(source)
    st = os.stat(source)
    identity = (st.st_dev, st.st_ino)
    path = mirror_path(source, fmt, identity)
    base = str(path)[: -len(".jsonl")]
    fresh = ForeignMirror(source=source, format=fmt, path=path, identity=identity)
    with exclusive_lock(base + ".lock"):
        fd = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            known = _load(base, fresh, fd, st)
        finally:
            os.close(fd)
        same = mirror is not None and mirror.path == path and known is not None and mirror.generation == known.generation
        if known is not None and st.st_size == known.offset and st.st_mtime_ns == known.mtime_ns:
            known.translator = mirror.translator if same and mirror is not None and mirror.serial == known.serial else None
            known.change = "unchanged" if mirror is None or (same and mirror.serial == known.serial) else "appended" if same else "rewritten"
            return known
        if known is not None and st.st_size > known.offset and _load_translator(known, base, mirror if same else None):
            _append(known, base)
            if mirror is not None and not same:
                known.change = "rewritten"
            return known
        old = read_json(base + ".json")
        old = old if isinstance(old, dict) else {}
        generation, serial = old.get("generation"), old.get("serial")
        fresh.generation = generation + 1 if type(generation) is int else 0
        fresh.serial = serial if type(serial) is int else 0
        return _create(fresh, base, "created" if mirror is None and not old else "rewritten")
