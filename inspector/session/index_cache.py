"""Open a session through the index cache, and save the sessions opened so once the work is done.

`open_cached(path)` restores the session from its snapshot when the file is unchanged (nothing of the session
is read but its first and last 4 KB), restores and then reads only the appended bytes (`Session.refresh`) when
it only grew, and otherwise indexes it as `open_session` does. The app restores with `restore` and, after a cold
index of its own, writes the snapshot with `save_indexed`. `save_opened()` writes a snapshot of every
session opened that way whose state is new (indexed, extended by more than `RESAVE_MIN_BYTES` or a 64th of
the file, or restored and given more tiktoken counts), keyed as the file was read. Failures of the cache itself are never errors: the file is simply indexed again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from inspector.read.estimates import reader_estimates
from inspector.read.parallel import PARALLEL_MIN_BYTES
from inspector.session import snapshot
from inspector.session.session import Session, open_session
from inspector.storage.cache._hash import blake2b
from inspector.storage.cache.cache_dir import (
    CacheUnavailable,
    checked_dir,
    discard,
    entry_name,
    read_entry,
    touch,
    write_entry,
)
from inspector.storage.cache.code_version import code_version
from inspector.storage.cache.filekey import GROWN, STALE, FileKey, FileStat, compare, make_key, resolved

KIND = "index"
RESAVE_MIN_BYTES = 1 << 20
RESAVE_FRACTION = 64
"""After an extension the snapshot is written again only when more than max(1 MiB, 1/64 of what it held) was
read: writing costs about half a cold index of the file, reading a few appended lines again costs nothing."""
COLD, RESTORED, EXTENDED = "cold", "restored", "extended"
"""How `open_cached` opened a session: indexed from scratch, restored unchanged, restored and extended."""


@dataclass(slots=True)
class _Opened:
    session: Session
    before: FileStat | None
    dirty: bool
    counts: int
    how: str


_opened: dict[int, _Opened] = {}
"""Sessions opened through the cache and not saved yet, by `id()` (held until `save_opened`)."""


def index_entry_name(path: str | os.PathLike[str], rules_id: str | None = None) -> str:
    """The snapshot's file name for a session path and the rule set whose estimates it holds (None: the default
    rule set; one per resolved path and rule set: switching rules never restores another rule set's estimates)."""
    rules_id = reader_estimates(rules_id).rules_id
    material = f"{rules_id}\0{resolved(path)}".encode("utf-8", "surrogateescape")
    return entry_name(KIND, blake2b(material, digest_size=16).hexdigest())


def _stat(path: Path) -> FileStat | None:
    try:
        return FileStat.of(os.stat(path))
    except OSError:
        return None


def _token_count(session: Session) -> int:
    counts = getattr(session, "token_counts", None) or {}
    return sum(len(v) for v in counts.values())


def _extendable(session: Session, key: FileKey, size: int) -> bool:
    """Whether reading the appended bytes gives what a cold read would (else: rebuild)."""
    if any(d.kind == "empty" for d in session.diagnostics):
        return False  # `load` adds it for a file with no header yet; a cold read of the grown file may not
    if size - key.end > max(PARALLEL_MIN_BYTES, key.end):
        return False  # mostly new bytes: the parallel cold index is faster than extending serially
    if getattr(session.scanner, "_skip_newline", False):
        # An unterminated last line was taken as complete: only a newline may follow it.
        with open(session.path, "rb") as f:
            f.seek(session.scanner.consumed)
            return f.read(1) == b"\n"
    return True


def _restore(path: Path, *, mapped: bool, rules_id: str | None = None) -> tuple[Session, bool | None] | None:
    """`(session, resave)` from the cache, or None (nothing usable: the caller indexes the file). `resave` is
    None for an unchanged file, else whether enough was read since the snapshot to write it again. `mapped`: the
    snapshot may be a memory map (`store.read_entry`), for a process that ends soon after."""
    try:
        directory = checked_dir(create=False)
    except CacheUnavailable:
        return None
    name = index_entry_name(path, rules_id)
    got = read_entry(directory, name, mapped=mapped)
    if got is None:
        return None
    header, payload = got
    if header.get("kind") != KIND or header.get("code") != code_version():
        return None  # another version's: replaced when this one is saved
    try:
        key = FileKey.from_json(header["file"])
    except (KeyError, TypeError, ValueError):
        discard(directory, name)
        return None
    verdict = compare(key, path)
    if verdict == STALE:
        return None
    try:
        session = snapshot.load(payload, path)
        if session.file_size != key.end:
            raise ValueError("snapshot does not end where its key says")
    except Exception:  # a damaged or foreign snapshot: any error means "not usable"
        discard(directory, name)
        return None
    touch(directory, name)
    if verdict != GROWN:
        return session, None
    size = _stat(path)
    if size is None or not _extendable(session, key, size.size):
        return None
    result = session.refresh()
    if result.notice is not None and not result.reset:
        return None  # the file disappeared meanwhile: let the cold open report it
    return session, result.reset or session.file_size - key.end > max(RESAVE_MIN_BYTES, key.end // RESAVE_FRACTION)


def open_cached(path: Path | str, *, enabled: bool = True, rules_id: str | None = None) -> Session:
    """Open and index a session file under the rule set `rules_id` (None: the default), through the cache when
    `enabled`. Raises `SessionOpenError` as `open_session`.

    For a headless command: a restored session may read its snapshot through a memory map (`store.read_entry`)."""
    path = Path(path)
    if not enabled:
        return open_session(path, rules_id)
    before = _stat(path)
    restored = None
    if before is not None:
        try:
            restored = _restore(path, mapped=True, rules_id=rules_id)
        except Exception:  # the cache must never be why a file cannot be opened
            restored = None
    if restored is None:
        session, how, dirty = open_session(path, rules_id), COLD, True
    else:
        session, resave = restored
        how, dirty = (RESTORED, False) if resave is None else (EXTENDED, resave)
    _opened[id(session)] = _Opened(session, before, dirty, _token_count(session), how)
    return session


def restore(path: Path | str, rules_id: str | None = None) -> Session | None:
    """The session from its snapshot when the file is unchanged or only grew (extended), else None; never raises.

    For a long-lived opener (the UI): nothing is registered for `save_opened`.
    """
    try:
        restored = _restore(Path(path), mapped=False, rules_id=rules_id)
    except Exception:  # the cache must never be why a file cannot be opened
        return None
    return None if restored is None else restored[0]


def how_opened(session: Session) -> str | None:
    """`cold`, `restored` or `extended` for a session `open_cached` opened and not saved yet (else None)."""
    opened = _opened.get(id(session))
    return None if opened is None else opened.how


def file_key(session: Session) -> FileKey | None:
    """The key of the bytes `session` read (exact only when the file did not change while it was read)."""
    opened = _opened.get(id(session))
    if opened is None:
        return None
    return make_key(session.path, session.file_size, opened.before)


def save(session: Session, *, release: bool = False) -> bool:
    """Write the snapshot of a session opened by `open_cached`, if its state is new; True when written. `release`:
    the process ends next (`save_opened(retain=True)`), so the tree's id index first gives its dict up for the flat
    table the snapshot stores (`IdIndex.flatten`): the snapshot is made in the dict's room, not on top of it."""
    opened = _opened.get(id(session))
    if opened is None or session.provisional:
        return False
    if not opened.dirty and (opened.how != RESTORED or _token_count(session) <= opened.counts):
        return False  # nothing new (the counts of a few appended entries are not worth a rewrite either)
    key = make_key(session.path, session.file_size, opened.before)
    if key is None:
        return False
    try:
        directory = checked_dir(create=True)
        if release:
            session.tree.by_id.flatten()
            session._link_reader()  # its lookup bound to the flat table, not the emptied dict
    except Exception:  # the cache must never fail the command
        return False
    header = {"kind": KIND, "code": code_version(), "file": key.to_json()}
    # Pickled straight into the entry's file (unpicklable state: not written, never a crash).
    written = write_entry(directory, index_entry_name(session.path, session.rules_id), header, partial(snapshot.dump_into, session))
    if written:
        opened.dirty = False
        opened.counts = _token_count(session)
    return written


_retained: list[Session] = []
"""Sessions `save_opened(retain=True)` forgot but keeps referenced until the process ends."""


def save_opened(*, retain: bool = False) -> int:
    """Save every session opened through the cache and not saved yet whose state is new, then forget them all;
    returns how many were written. `retain`: keep them referenced (a process about to end without freeing anything:
    dropping the last reference would free an index of a few hundred thousand entries, object by object)."""
    pending = [o.session for o in _opened.values()]
    try:
        return sum(save(s, release=retain) for s in pending)
    finally:
        if retain:
            _retained.extend(pending)
        _opened.clear()


def stat_of(path: Path | str) -> FileStat | None:
    """The file's identity and size before a long-lived opener indexes it itself (for `save_indexed`); None when absent."""
    return _stat(Path(path))


def save_indexed(session: Session, before: FileStat | None) -> bool:
    """Write the snapshot of a session a long-lived opener (the UI) indexed itself (`Session.load`, with `before` =
    `stat_of` its path taken first), as `save_opened` writes a command's: the CLI and the app share the cache. True
    when written; never raises (the session is not kept)."""
    _opened[id(session)] = _Opened(session, before, True, 0, COLD)
    try:
        return save(session)
    except Exception:  # the cache must never fail the app
        return False
    finally:
        _opened.pop(id(session), None)


def forget_opened() -> None:
    """Forget the sessions opened through the cache without saving them (a long-lived process that moved on)."""
    _opened.clear()
