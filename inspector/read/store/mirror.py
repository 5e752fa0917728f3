"""A JSONL mirror of one store session, so every reader of session files reads it unchanged.

The mirror is the session's events in `seq` order, one per line (exactly the bytes OpenClaw stored, a damaged event
replaced by a placeholder: `events`), in the cache directory (`mirror-<hex>.jsonl`, keyed by the store's device,
inode and real path and the session id), with a sidecar (`mirror-<hex>.json`: which line is which `seq`, the rewrite
generation, the problems found) and a lock file serialising the processes that sync it. `sync_mirror` reads what
the store holds past the mirror's last `seq` in one snapshot and appends it (a live session's reader then picks the
new lines up as appended lines); a changed generation, a changed count of the rows already mirrored, or a mirror
that is not as the sidecar says (another writer, a crash mid-append) rewrites the mirror whole, temp + rename (a
reader sees a replaced file and re-indexes). A mirror is never the user's data: `cache clear` removes it.

Where OpenClaw 2026.9.6's Gateway takes the session's next append parent from the index state's `leaf_event_id`
(`events.INDEX_LEAF_SQL`), the `source` names it (`index_leaf`) and, when no event has that id, a `store_leaf_absent`
diagnostic says the Gateway would append under a missing entry. The context is the events' all the same: the
session manager of an agent run builds it from the events, never from the index state.
"""

from __future__ import annotations

import bisect
import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from inspector.base.digests import blake2b
from inspector.base.safeio import exclusive_lock
from inspector.model import entries as m
from inspector.read.store.connection import StoreIdentity, connect
from inspector.read.store.events import EventsSnapshot, StoreProblem, read_events

MIRROR_VERSION = 1
MIRROR_PREFIX = "mirror-"


@dataclass(slots=True)
class Mirror:
    """A store session's mirror as last synced: where it is, which line is which `seq`, what changed."""

    store: Path
    identity: StoreIdentity
    session_id: str
    path: Path
    session_key: str | None = None
    generation: str | None = None
    leaf_event_id: str | None = None
    leaf_from_index: bool = False
    """The Gateway appends the next message under `leaf_event_id` (`EventsSnapshot.leaf_from_index`)."""
    leaf_found: bool | None = None
    schema_version: int | None = None
    app_version: str | None = None
    runs: list[list[int]] = field(default_factory=list)
    """`[first line, first seq, count]`: lines `first line ..` hold seqs `first seq ..`, one each."""
    problems: dict[int, StoreProblem] = field(default_factory=dict)
    events: int = 0
    last_seq: int | None = None
    size: int = 0
    change: str = "unchanged"
    """`created` (first sync), `appended`, `rewritten` (generation or rows changed) or `unchanged`."""
    added: int = 0

    def seq_of_line(self, line: int | None) -> int | None:
        """The `seq` of the event on mirror line `line` (1-based); None for a line the mirror does not have."""
        if line is None or not self.runs:
            return None
        i = bisect.bisect_right(self.runs, line, key=lambda run: run[0]) - 1
        if i < 0:
            return None
        first_line, first_seq, count = self.runs[i]
        return first_seq + (line - first_line) if line - first_line < count else None

    def source_json(self) -> dict[str, Any]:
        """`"source"` of a command's `--json` output on this session."""
        out: dict[str, Any] = {"kind": "sqlite", "store": str(self.store), "session_id": self.session_id, "session_key": self.session_key}
        if self.leaf_from_index:
            out["index_leaf"] = self.leaf_event_id
        return out

    def leaf_problem(self) -> StoreProblem | None:
        """`store_leaf_absent` when the Gateway appends under the index state's leaf and no event has its id."""
        if not self.leaf_from_index or self.leaf_event_id is None or self.leaf_found is not False:
            return None
        return StoreProblem(
            -1, "store_leaf_absent",
            f"session_transcript_index_state names leaf {self.leaf_event_id!r}, which no event of the session has; no event has "
            "an identity row, so the Gateway appends the next message under it all the same (an entry without its parent)",
            "warning", skipped=False,
        )

    def relabel(self, diagnostic: dict[str, Any]) -> dict[str, Any]:
        """A diagnostic's JSON with `seq` in place of the mirror's `line` and `offset`; the placeholder of a damaged
        event says what is wrong with it."""
        seq = self.seq_of_line(diagnostic.get("line"))
        out: dict[str, Any] = {}
        for key, value in diagnostic.items():
            if key == "line":
                out["seq"] = seq
            elif key != "offset":
                out[key] = value
        problem = self.problems.get(seq) if seq is not None else None
        if problem is not None and problem.skipped and diagnostic.get("kind") == "unparseable":
            out["kind"], out["message"], out["severity"] = problem.kind, problem.message, problem.severity
        return out

    def extra_diagnostics(self) -> list[dict[str, Any]]:
        """The problems of events that are in the mirror all the same (a wrong recorded size), as diagnostics."""
        out = [
            {"kind": p.kind, "severity": p.severity, "seq": p.seq, "message": p.message}
            for p in sorted(self.problems.values(), key=lambda p: p.seq)
            if not p.skipped
        ]
        leaf = self.leaf_problem()
        if leaf is not None:
            out.append({"kind": leaf.kind, "severity": leaf.severity, "seq": None, "message": leaf.message})
        return out

    def line_of_seq(self, seq: int) -> int | None:
        """The mirror line holding event `seq` (None: not mirrored)."""
        for first_line, first_seq, count in self.runs:
            if first_seq <= seq < first_seq + count:
                return first_line + (seq - first_seq)
        return None

    def diagnostics(self, diagnostics: list[m.Diagnostic]) -> list[m.Diagnostic]:
        """A session's diagnostics as this store session shows them: a damaged event's placeholder says what is
        wrong with the event, and the problems of events kept all the same are added (at their mirror line)."""
        out = []
        for d in diagnostics:
            seq = self.seq_of_line(d.line)
            problem = self.problems.get(seq) if seq is not None else None
            if problem is not None and problem.skipped and d.kind == "unparseable":
                d = m.Diagnostic(problem.kind, problem.message, problem.severity, d.line, d.offset)
            out.append(d)
        for p in sorted(self.problems.values(), key=lambda p: p.seq):
            if not p.skipped:
                out.append(m.Diagnostic(p.kind, p.message, p.severity, self.line_of_seq(p.seq)))
        leaf = self.leaf_problem()
        if leaf is not None:
            out.append(m.Diagnostic(leaf.kind, leaf.message, leaf.severity))
        return out

    def label(self, line: int | None) -> str:
        """`seq N` for a mirror line (what a diagnostic's place is called on this session)."""
        seq = self.seq_of_line(line)
        return "" if seq is None else f"seq {seq}"

    def _meta(self) -> dict[str, Any]:
        return {
            "version": MIRROR_VERSION, "store": self.identity.to_json(), "session_id": self.session_id,
            "session_key": self.session_key, "generation": self.generation, "leaf_event_id": self.leaf_event_id,
            "leaf_from_index": self.leaf_from_index, "leaf_found": self.leaf_found,
            "schema_version": self.schema_version, "app_version": self.app_version, "runs": self.runs,
            "problems": [p.to_json() for p in self.problems.values()], "events": self.events, "last_seq": self.last_seq,
            "size": self.size,
        }


def mirror_dir() -> str:
    """The cache directory (`inspector.storage.cache`); when it is unusable, a private directory under the system's
    temporary directory (0700, the user's own)."""
    from inspector.storage.cache.cache_dir import CacheUnavailable, checked_dir

    try:
        return checked_dir(create=True)
    except CacheUnavailable:
        pass
    import tempfile  # here: with shutil and random, ~1.5 MB resident in every command that reads a session
    path = os.path.join(tempfile.gettempdir(), f"session-inspector-mirrors-{os.getuid()}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise OSError(f"{path}: not a private directory of this user; cannot keep a store mirror")
    return path


def mirror_name(identity: StoreIdentity, session_id: str) -> str:
    """`mirror-<32 hex>`: the mirror's files are this name with `.jsonl`, `.json` and `.lock`."""
    key = f"{identity.dev}\0{identity.ino}\0{identity.path}\0{session_id}".encode("utf-8", "surrogatepass")
    return MIRROR_PREFIX + blake2b(key, digest_size=16).hexdigest()



def _load(meta_path: str, mirror: Mirror) -> bool:
    """Fill `mirror` from its sidecar; False when there is none, it is of another store or session, or the mirror
    file is not the size it says."""
    try:
        with open(meta_path, "rb") as f:
            meta = orjson.loads(f.read())
        if meta.get("version") != MIRROR_VERSION or meta.get("store") != mirror.identity.to_json():
            return False
        if meta.get("session_id") != mirror.session_id or os.stat(mirror.path).st_size != meta["size"]:
            return False
        mirror.generation, mirror.leaf_event_id = meta["generation"], meta["leaf_event_id"]
        mirror.leaf_from_index, mirror.leaf_found = bool(meta.get("leaf_from_index")), meta.get("leaf_found")
        mirror.session_key, mirror.schema_version, mirror.app_version = meta["session_key"], meta["schema_version"], meta["app_version"]
        mirror.runs, mirror.events, mirror.last_seq, mirror.size = meta["runs"], meta["events"], meta["last_seq"], meta["size"]
        mirror.problems = {p.seq: p for p in map(StoreProblem.from_json, meta["problems"])}
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


@contextmanager
def _replacing(path: str, buffering: int = -1) -> Iterator[tuple[BinaryIO, str]]:
    """A temporary file beside `path` and its path, renamed over `path` when the block ends (removed if the block
    raises): a reader of the old file sees a replaced file, never a half-written one."""
    directory, name = os.path.split(path)
    import tempfile  # here: with shutil and random, ~1.5 MB resident in every command that reads a session
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb", buffering=buffering) as f:
            yield f, tmp
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


Rewrite = Callable[[sqlite3.Connection, "Path | str", str, BinaryIO, str, str], EventsSnapshot]
"""How a mirror is written whole: `(connection, store, session id, the temporary file, its path, the mirror's
path)` -> the snapshot read (`read_events` with `out`, by default; `inspector.session.store_index` also indexes the
events as they are written)."""


def _rewrite(db: sqlite3.Connection, store: Path | str, session_id: str, path: str, rewrite: Rewrite | None = None) -> EventsSnapshot:
    """Every event of the session written to a temporary file renamed over `path` (a reader of the old mirror sees
    a replaced file)."""
    with _replacing(path, buffering=1 << 20) as (f, tmp):
        if rewrite is not None:
            return rewrite(db, store, session_id, f, tmp, path)
        return read_events(db, store, session_id, None, out=f)


def _replace(path: str, data: bytes) -> None:
    with _replacing(path) as (f, _):
        f.write(data)


def _extend_runs(runs: list[list[int]], first_line: int, seqs: list[int]) -> None:
    if not seqs:
        return
    if seqs[-1] - seqs[0] == len(seqs) - 1:  # contiguous (seqs are unique and ascending): one run
        pieces: list[list[int]] = [[first_line, seqs[0], len(seqs)]]
    else:
        pieces = []
        line = first_line
        for seq in seqs:
            if pieces and pieces[-1][1] + pieces[-1][2] == seq:
                pieces[-1][2] += 1
            else:
                pieces.append([line, seq, 1])
            line += 1
    last = runs[-1] if runs else None
    head = pieces[0]
    if last is not None and last[0] + last[2] == head[0] and last[1] + last[2] == head[1]:
        last[2] += head[2]
        pieces = pieces[1:]
    runs.extend(pieces)


def _take(mirror: Mirror, snap: EventsSnapshot) -> None:
    mirror.generation, mirror.leaf_event_id = snap.generation, snap.leaf_event_id
    mirror.leaf_from_index, mirror.leaf_found = snap.leaf_from_index, snap.leaf_found
    mirror.schema_version, mirror.app_version = snap.schema_version, snap.app_version
    if snap.session_key is not None:
        mirror.session_key = snap.session_key


def sync_mirror(store: Path | str, session_id: str, conn: sqlite3.Connection | None = None, rewrite: Rewrite | None = None) -> Mirror:
    """Bring the mirror of `session_id` in `store` up to date (created, appended or rewritten); returns it.

    `conn`: an open read-only connection to the store (`connect`) to reuse, e.g. by a poll. `rewrite`: how the
    mirror is written when it is written whole (`Rewrite`). Raises `StoreError` (`StoreBusy` for a locked store)
    and `OSError` (no directory to keep the mirror in)."""
    identity = StoreIdentity.of(store)
    directory = mirror_dir()
    name = mirror_name(identity, session_id)
    base = os.path.join(directory, name)
    mirror = Mirror(Path(store), identity, session_id, Path(base + ".jsonl"))
    own = conn is None
    db = connect(store) if conn is None else conn
    try:
        with exclusive_lock(base + ".lock"):
            known = _load(base + ".json", mirror)
            snap = None
            if known:
                with open(mirror.path, "ab") as f:  # new events appended as read (a failed read leaves a size the sidecar denies)
                    snap = read_events(db, store, session_id, mirror.last_seq, out=f, expect=(mirror.generation, mirror.events))
                if snap.stale:
                    snap = None  # rewritten, or rows gone below the mirror's end: all of it again
                elif snap.seqs:
                    mirror.change, mirror.size = "appended", mirror.size + snap.written
            if snap is None:
                existed = os.path.exists(base + ".json")
                snap = _rewrite(db, store, session_id, str(mirror.path), rewrite)
                mirror.change = "rewritten" if existed else "created"
                mirror.runs, mirror.problems, mirror.events, mirror.size = [], {}, 0, snap.written
            _take(mirror, snap)
            _extend_runs(mirror.runs, mirror.events + 1, snap.seqs)
            mirror.problems.update((p.seq, p) for p in snap.problems)
            mirror.events += len(snap.seqs)
            mirror.added = len(snap.seqs)
            if snap.seqs:
                mirror.last_seq = snap.seqs[-1]
            if mirror.change != "unchanged":
                _replace(base + ".json", orjson.dumps(mirror._meta()))
    finally:
        if own:
            db.close()
    return mirror
