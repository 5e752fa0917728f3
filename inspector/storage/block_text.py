"""Bytes a growing entry table keeps as zlib blocks, one per worker run: its `extras` text
(`inspector.storage.packed_extras`), its packed usages (`usage_buffer`) and its call text (`call_text`).

On the 256 MiB `thinking` bench shape the `extras` cells (whole JSON lines of the entries that are not messages) are
5.2 MB, the usages 5.2 MB and the call cells 2.3 MB, nearly a third of the index; both are read a cell or a slot at a time, or in one pass in
file order. JSON lines compress about six times at zlib's fastest level, packed usages about twice, a run's block
in about a millisecond; a read decompresses the blocks it spans (~0.3 ms for a run's ~160 KB), the last one kept, so
a pass in file order decompresses each block once.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any, overload


class BlockText:
    """Bytes laid end to end, stored as zlib blocks: `len`, `extend` or `+=` (a new block), one byte `[i]`, slices `[a:b]` (bytes; across
    blocks too), slice assignment of the same length (`revise_usage`), `bytes()` the whole. A block is added whole before
    the length that covers it, so a reader in another thread never reads past what is there."""

    __slots__ = ("_blocks", "_last", "_length", "_starts", "window")

    LEVEL = 1
    """zlib's fastest level: nearly the ratio of the default on these bytes, at a third of its time."""

    def __init__(self) -> None:
        self._blocks: list[bytes] = []
        self._starts = array("q")
        self._length = 0
        self._last: tuple[int, bytes] = (-1, b"")
        self.window: tuple[bytes, int, int] = (b"", 0, 0)
        """The last block read, with where it starts and ends in the text: a reader in file order slices it
        without a call (`TableColumns._call_text_at`)."""

    def __len__(self) -> int:
        return self._length

    def __bool__(self) -> bool:
        return self._length > 0

    @classmethod
    def of(cls, data: Any) -> BlockText:
        """`data` (bytes-like) as one block (compressed where it is made: a worker, for the parent to keep as is)."""
        text = cls()
        text.extend(data)
        return text

    def extend(self, data: Any) -> None:
        """Append `data`: bytes-like (a new block), or another `BlockText` (its blocks, as they are)."""
        if type(data) is BlockText:
            base = self._length
            for block, start in zip(data._blocks, data._starts):
                self._blocks.append(block)
                self._starts.append(base + start)
            self._length += data._length
            return
        if len(data):
            self._blocks.append(zlib.compress(data, self.LEVEL))
            self._starts.append(self._length)
            self._length += len(data)

    def __iadd__(self, data: Any) -> BlockText:
        self.extend(data)
        return self

    def _block(self, i: int) -> bytes:
        last = self._last
        if last[0] != i:
            last = self._last = (i, zlib.decompress(self._blocks[i]))
            base = self._starts[i]
            self.window = (last[1], base, base + len(last[1]))
        return last[1]

    def _bounds(self, span: slice) -> tuple[int, int]:
        start, stop, step = span.indices(self._length)
        if step != 1:
            raise ValueError("BlockText slices have no step")
        return start, max(start, stop)

    @overload
    def __getitem__(self, span: int) -> int: ...

    @overload
    def __getitem__(self, span: slice) -> bytes: ...

    def __getitem__(self, span: int | slice) -> int | bytes:
        if type(span) is int:
            at = span + self._length if span < 0 else span
            if not 0 <= at < self._length:
                raise IndexError("BlockText index out of range")
            block, start, _ = self.locate(at, at + 1)
            return block[start]
        assert type(span) is slice
        start, stop = self._bounds(span)
        if stop == start:
            return b""
        i = bisect_right(self._starts, start) - 1
        base = self._starts[i]
        block = self._block(i)
        if stop - base <= len(block):
            return block[start - base : stop - base]
        parts = []
        while start < stop:
            block = self._block(i)
            parts.append(block[start - base : stop - base])
            start = base + len(block)
            base, i = start, i + 1
        return b"".join(parts)

    def __setitem__(self, span: slice, data: Any) -> None:
        """Overwrite bytes in place (the same length: a voided usage), its blocks compressed again."""
        start, stop = self._bounds(span)
        if len(data) != stop - start:
            raise ValueError("BlockText assignment must keep the length")
        done = 0
        while start < stop:
            i = bisect_right(self._starts, start) - 1
            base = self._starts[i]
            block = bytearray(self._block(i))
            n = min(stop, base + len(block)) - start
            block[start - base : start - base + n] = data[done : done + n]
            self._blocks[i] = zlib.compress(block, self.LEVEL)
            self._last = (i, bytes(block))
            self.window = (self._last[1], base, base + len(block))
            start, done = start + n, done + n

    def locate(self, start: int, end: int) -> tuple[bytes, int, int]:
        """The decompressed block holding the cell [start, end) (within one block: a run's cells), and the cell's
        bounds in it."""
        i, block = self._last
        if i >= 0:  # the last block read: a pass in file order asks it again and again
            base = self._starts[i]
            if base <= start and end - base <= len(block):
                return block, start - base, end - base
        i = bisect_right(self._starts, start) - 1
        base = self._starts[i]
        return self._block(i), start - base, end - base

    def __bytes__(self) -> bytes:
        return b"".join(map(zlib.decompress, self._blocks))

    def chunks(self, start: int = 0, stop: int | None = None) -> Iterator[Any]:
        """Bytes `[start, stop)` (all by default) block by block, each decompressed when asked for (a snapshot writes
        them so: no whole copy)."""
        start, stop = self._bounds(slice(start, stop))
        i = bisect_right(self._starts, start) - 1
        while start < stop:
            base = self._starts[i]
            block = zlib.decompress(self._blocks[i])
            end = min(stop, base + len(block))
            yield memoryview(block)[start - base : end - base]
            start, i = end, i + 1

    @property
    def stored_bytes(self) -> int:
        """The compressed size of the blocks."""
        return sum(map(len, self._blocks))
