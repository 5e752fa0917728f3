"""The files beside a Claude Code / Codex mirror, so another process reuses it (`inspector.read.formats.mirror`).

A mirror `mirror-<32 hex>.jsonl` has a sidecar `.json` (how far the file was translated, the file's size, mtime and
digests of its first bytes and of the bytes before that point, the mirror's size, the row that may still be
written again, the figures the translation recorded), a `.state` (the translator's state: only read when new lines
are to be translated) and a `.lock` serialising the processes that sync it. A sidecar is trusted only when the
mirror is the size it says, the file is at least as long as what was translated, and both digests still match:
else the file is translated again whole. `is_foreign_mirror` tells a reader that a file is such a mirror (its lines
may hold several entries: `inspector.read.lines.SEGMENT_SEPARATOR`).
"""

from __future__ import annotations

import os
import re
from typing import Any

import orjson

from inspector.base.digests import blake2b

MIRROR_VERSION = 4
DIGEST_BYTES = 4096
"""How many bytes of the file each digest covers: its first ones, and the last ones translated."""
INT_KEYED = frozenset({"compactions"})
"""Translator dictionaries keyed by line (JSON keys are strings)."""
_MIRROR_NAME = re.compile(r"mirror-[0-9a-f]{32}\.jsonl")



def replace_file(path: str, data: bytes | list[bytes]) -> None:
    """Write `data` to a temporary file beside `path` and rename it over `path` (a reader sees the old file or the
    new one, never half of one)."""
    directory, name = os.path.split(path)
    import tempfile  # here: with shutil and random, ~1.5 MB resident in every command that reads a session
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                f.writelines(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def digests(fd: int, offset: int) -> tuple[str, str]:
    """Digests of the file's first bytes and of the bytes before `offset` (`DIGEST_BYTES` each, fewer when short)."""
    head = os.pread(fd, min(DIGEST_BYTES, offset), 0)
    start = max(0, offset - DIGEST_BYTES)
    tail = os.pread(fd, offset - start, start)
    return blake2b(head, digest_size=16).hexdigest(), blake2b(tail, digest_size=16).hexdigest()


def is_foreign_mirror(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is the mirror of a Claude Code / Codex file (its sidecar names the format; a store session's
    mirror has none): read with a segmented scanner. No I/O for any other file name."""
    path = os.fspath(path)
    if not _MIRROR_NAME.fullmatch(os.path.basename(path)):
        return False
    meta = read_json(path[: -len(".jsonl")] + ".json")
    return isinstance(meta, dict) and isinstance(meta.get("format"), str)


def read_json(path: str) -> Any:
    """The JSON value of the file at `path` (None when it is missing or not JSON)."""
    try:
        with open(path, "rb") as f:
            return orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):
        return None


def translator_state(translator: Any) -> bytes:
    """A translator's state as JSON (its attributes; sets as lists, in no order: sorting a long session's ids cost a
    followed line most of its time; `revisions` are never pending between syncs)."""
    state = {k: (list(v) if isinstance(v, set) else v) for k, v in vars(translator).items() if k != "revisions"}
    return orjson.dumps(state, option=orjson.OPT_NON_STR_KEYS)


def restore_translator(cls: type, state: dict[str, Any]) -> Any:
    """A translator of class `cls` in the state `translator_state` saved."""
    out = cls()
    for key, value in state.items():
        current = getattr(out, key, None)
        if isinstance(current, set):
            value = set(value)
        elif key in INT_KEYED and isinstance(value, dict):
            value = {int(k): v for k, v in value.items()}
        setattr(out, key, value)
    return out
