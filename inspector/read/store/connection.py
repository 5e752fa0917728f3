"""Opening an OpenClaw agent store read only: never a write, a lock held past one read, a checkpoint or a migration.

The file is opened by URI with `mode=ro`, `PRAGMA query_only=1` is set, and every read is one short deferred
transaction (`read_transaction`): in WAL mode it is a snapshot that never blocks the Gateway; in rollback mode a
shared lock held for the few milliseconds of the read. A database another process holds exclusively is waited for
`BUSY_TIMEOUT_S`, then `StoreBusy` says so. A read-only connection never checkpoints the WAL when it closes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from inspector.read.store.locate import SQLITE_MAGIC, STORE_FILENAME, is_sqlite_file  # noqa: F401  (re-exported)

BUSY_TIMEOUT_S = 3.0
"""How long a read waits for a database another process has locked before `StoreBusy`."""


class StoreError(Exception):
    """The store cannot be read (not a SQLite file, not an OpenClaw agent store, unreadable)."""


class StoreBusy(StoreError):
    """Another process holds the store locked longer than `BUSY_TIMEOUT_S`."""


@dataclass(frozen=True, slots=True)
class StoreIdentity:
    """Which store file this is: device, inode and real path (the mirror's key)."""

    dev: int
    ino: int
    path: str

    @classmethod
    def of(cls, path: Path | str) -> StoreIdentity:
        real = os.path.realpath(path)
        st = os.stat(real)
        return cls(st.st_dev, st.st_ino, real)

    def to_json(self) -> dict[str, object]:
        return {"dev": self.dev, "ino": self.ino, "path": self.path}


def connect(path: Path | str, busy_timeout_s: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """A read-only connection to the store at `path` (`StoreError` when it cannot be opened as one).

    Text comes back as bytes (`text_factory`): events are copied as stored, never decoded and encoded again."""
    real = os.path.realpath(path)
    if not is_sqlite_file(real):
        raise StoreError(f"{path}: not a SQLite database")
    uri = f"file:{quote(real)}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open read-only: {exc}") from None
    conn.text_factory = bytes
    try:
        conn.execute("PRAGMA query_only=1")
        conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
    except sqlite3.Error as exc:
        conn.close()
        raise _error(path, exc, busy_timeout_s) from None
    return conn


def _error(path: Path | str, exc: sqlite3.Error, busy_timeout_s: float) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreBusy(
            f"{path}: the store is locked by another process (waited {busy_timeout_s:g} s); try again when the Gateway "
            "is done writing"
        )
    return StoreError(f"{path}: cannot read the store: {text}")


@contextmanager
def read_transaction(conn: sqlite3.Connection, path: Path | str, busy_timeout_s: float = BUSY_TIMEOUT_S) -> Iterator[sqlite3.Connection]:
    """One consistent snapshot: every query inside sees the same database state (a deferred `BEGIN`, always ended).

    SQLite errors inside become `StoreBusy` (locked) or `StoreError`."""
    try:
        conn.execute("BEGIN")
    except sqlite3.Error as exc:
        raise _error(path, exc, busy_timeout_s) from None
    try:
        yield conn
    except sqlite3.Error as exc:
        raise _error(path, exc, busy_timeout_s) from None
    finally:
        try:
            conn.execute("COMMIT" if conn.in_transaction else "SELECT 1")
        except sqlite3.Error:
            pass


def table_names(conn: sqlite3.Connection) -> set[str]:
    """The store's tables."""
    return {bytes(r[0]).decode("utf-8", "replace") for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def text(value: object) -> str | None:
    """A TEXT column read as bytes (`connect`'s text factory), as a string (bad UTF-8 replaced); None stays None."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)
