"""The pi-format mirror of a Claude Code or Codex transcript, kept in step with the file (`sync_foreign`).

The mirror (`mirror-<32 hex>.jsonl` in the cache directory, keyed by the format and the file's device, inode and
real path) holds one line for each line of the file, so every line number the engine shows is the file's: a blank
line stays blank, a line that is not JSON (or a JSON value that is not an object) is copied as it is, every other
line is its translation (`claude_code`, `codex`). The file is never written. A sync translates only complete lines
(a last line without its newline waits for it, unless it is already whole JSON when the file is read whole);
a file that grew is translated from where the last sync stopped and the mirror appended (the reader picks the new
lines up as a live session's); a file that shrank or was replaced is translated again whole into a new mirror
(temp + rename: a reader sees a replaced file and re-indexes). A mirror is never the user's data: `cache clear`
removes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

import orjson

from inspector.read.formats.claude_code import ClaudeCodeTranslator
from inspector.read.formats.codex import CodexTranslator
from inspector.read.formats.pi_lines import dumps

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
    identity: tuple[int, int] = (0, 0)
    offset: int = 0
    """Bytes of the file translated (complete lines, and a whole unterminated last line read at a full sync)."""
    unterminated: bool = False
    """The last line translated had no newline yet (its newline, when it comes, is not a new line)."""
    lines: int = 0
    change: str = "unchanged"
    """`created` (first sync), `appended`, `rewritten` (the file shrank or was replaced) or `unchanged`."""
    added: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        """`Claude Code` or `Codex`."""
        return FORMAT_TITLES.get(self.format, self.format)

    @property
    def window(self) -> int | None:
        """The context window the file records (Codex's `model_context_window`), None when it records none."""
        return getattr(self.translator, "window", None)

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
    return raw if out is None else dumps(out)


def _translate(mirror: ForeignMirror, data: bytes, *, whole: bool) -> bytes:
    """The mirror lines for `data` (the file's bytes from `mirror.offset`), advancing the mirror's state."""
    if mirror.unterminated and data.startswith(b"\n"):
        data = data[1:]
        mirror.offset += 1
        mirror.unterminated = False
    end = data.rfind(b"\n") + 1
    body, rest = data[:end], data[end:]
    out = [translate_line(mirror.translator, raw) for raw in body.split(b"\n")[:-1]]
    consumed = end
    if rest and whole:
        try:
            orjson.loads(rest)
        except orjson.JSONDecodeError:
            rest = b""
        if rest:
            out.append(translate_line(mirror.translator, rest))
            consumed += len(rest)
            mirror.unterminated = True
    mirror.offset += consumed
    mirror.lines += len(out)
    mirror.added = len(out)
    return b"".join(line + b"\n" for line in out)


def _read_from(source: Path, offset: int) -> tuple[bytes, os.stat_result]:
    with open(source, "rb") as f:
        st = os.fstat(f.fileno())
        f.seek(offset)
        chunks = []
        while chunk := f.read(_CHUNK):
            chunks.append(chunk)
    return b"".join(chunks), st


def sync_foreign(source: Path | str, fmt: str, mirror: ForeignMirror | None = None) -> ForeignMirror:
    """Bring the mirror of `source` (a `claude-code` or `codex` file) up to date: `mirror` is the last sync's
    (None: the first). Raises `OSError` when the file or the mirror cannot be read or written."""
    source = Path(source)
    st = os.stat(source)
    identity = (st.st_dev, st.st_ino)
    if mirror is not None and mirror.identity == identity and st.st_size >= mirror.offset and mirror.format == fmt:
        if st.st_size == mirror.offset:
            mirror.change, mirror.added = "unchanged", 0
            return mirror
        data, _ = _read_from(source, mirror.offset)
        lines = _translate(mirror, data, whole=False)
        if lines:
            with open(mirror.path, "ab") as f:
                f.write(lines)
        mirror.change = "appended" if lines else "unchanged"
        return mirror
    fresh = ForeignMirror(source=source, format=fmt, path=mirror_path(source, fmt, identity), translator=TRANSLATORS[fmt](), identity=identity)
    data, st = _read_from(source, 0)
    fresh.identity = (st.st_dev, st.st_ino)
    lines = _translate(fresh, data, whole=True)
    tmp = fresh.path.with_name(f".{fresh.path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(lines)
        os.replace(tmp, fresh.path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fresh.change = "created" if mirror is None else "rewritten"
    return fresh
