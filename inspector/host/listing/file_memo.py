"""Per-file results kept while the file stays the same (size and modification time), for a listing that refreshes.

`FileMemo(read)` holds `read(path)` per path: `get` answers only while the file's stamp is unchanged (one `stat`),
`peek` answers without asking the filesystem (for drawing many rows), `compute` reads again. One writer thread and
any number of readers are fine: an item is replaced whole, never changed in place.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")
Stamp = tuple[int, int]


def file_stamp(path: Path | str) -> Stamp | None:
    """(size, mtime in ns) of the file, None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


class FileMemo(Generic[T]):
    """`read(path)` results keyed by path, valid while the file's size and mtime stay the same."""

    def __init__(self, read: Callable[[Path], T]) -> None:
        self.read = read
        self._items: dict[str, tuple[Stamp, T]] = {}

    def get(self, path: Path) -> T | None:
        """The kept result if the file did not change since (None: never read, or changed)."""
        item = self._items.get(str(path))
        if item is None or item[0] != file_stamp(path):
            return None
        return item[1]

    def peek(self, path: Path) -> T | None:
        """The kept result, whether or not the file changed since (no filesystem access)."""
        item = self._items.get(str(path))
        return item[1] if item is not None else None

    def compute(self, path: Path) -> T:
        """Read `path` now and keep the result (under the stamp taken before reading: a change during the read
        makes the next `get` read again)."""
        stamp = file_stamp(path)
        value = self.read(path)
        if stamp is not None:
            self._items[str(path)] = (stamp, value)
        return value

    def store(self, path: Path, stamp: Stamp | None, value: T) -> None:
        """Keep `value`, read elsewhere (another process) from the file as it was at `stamp`."""
        if stamp is not None:
            self._items[str(path)] = (stamp, value)

    def get_or_compute(self, path: Path) -> T:
        """The kept result, or a fresh one."""
        value = self.get(path)
        return value if value is not None else self.compute(path)
