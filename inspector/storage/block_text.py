"""A growing table's `extras` text (`inspector.storage.packed_extras`) kept as zlib blocks, one per worker run.

The `extras` cells are whole lines of JSON (every entry that is not a message: custom entries, model changes,
compactions...): on the 256 MiB `thinking` bench shape, 5.2 MB, an eighth of the index, read a cell at a time and
rarely (the navigation of a rule set, a label, the UI's detail of one entry). JSON lines of one kind compress about
six times at zlib's fastest level, a run's block in about a millisecond; reading a cell decompresses its block
(~0.3 ms for a run's ~160 KB), the last one kept, so a pass in file order decompresses each block once.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from typing import Any


class BlockText:
    """Bytes laid end to end, stored as zlib blocks: `len`, `+=` (a new block) and slices `[a:b]` (within one block:
    a cell never spans two), `bytes()` the whole text. A block is added whole before the length that covers it, so a
    reader in another thread never reads past what is there."""

    __slots__ = ("_blocks", "_last", "_length", "_starts")

    LEVEL = 1
    """zlib's fastest level: nearly the ratio of the default on JSON lines, at a third of its time."""

    def __init__(self) -> None:
        self._blocks: list[bytes] = []
        self._starts = array("q")
        self._length = 0
        self._last: tuple[int, bytes] = (-1, b"")

    def __len__(self) -> int:
        return self._length

    def __iadd__(self, data: Any) -> BlockText:
        if len(data):
            self._blocks.append(zlib.compress(data, self.LEVEL))
            self._starts.append(self._length)
            self._length += len(data)
        return self

    def __getitem__(self, span: slice) -> bytes:
        start = span.start or 0
        stop = self._length if span.stop is None else span.stop
        if stop <= start:
            return b""
        i = bisect_right(self._starts, start) - 1
        last = self._last
        if last[0] != i:
            last = self._last = (i, zlib.decompress(self._blocks[i]))
        base = self._starts[i]
        return last[1][start - base : stop - base]

    def __bytes__(self) -> bytes:
        return b"".join(map(zlib.decompress, self._blocks))

    @property
    def stored_bytes(self) -> int:
        """The compressed size of the blocks."""
        return sum(map(len, self._blocks))
