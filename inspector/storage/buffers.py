"""Read-only columns that a snapshot restores where they lie: `out_of_band` to pickle one, `items_view` to read it.

A column that never changes after a restore (the id index's hashes, the packed ids' ends) need not be copied out of
the snapshot: a `memoryview` cast to its item type reads it in place (the snapshot stays mapped while the session
lives). Copying ~5 MB of such columns cost ~3 ms of page faults per restore of a 300k-entry session.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from pickle import PickleBuffer
from typing import Any, Union

Items = Union["array[Any]", memoryview]
"""A column of fixed-size integers: an `array`, or a read-only view of a snapshot's bytes cast to the same type."""


def out_of_band(column: Any, protocol: Any) -> Any:
    """What a `__reduce_ex__(protocol)` passes for `column` (any buffer): a `PickleBuffer` (out of band) from
    protocol 5, bytes before it. A `WholeBytes` is passed as it is (the snapshot's pickler writes it out of band)."""
    if type(column) is WholeBytes:
        return column
    return PickleBuffer(column) if isinstance(protocol, int) and protocol >= 5 else bytes(column)


def items_view(data: Any, typecode: str) -> memoryview:
    """`data` (bytes, or a buffer handed over by the unpickler) read as items of `typecode`, without a copy."""
    return memoryview(data).cast("B").cast(typecode)  # type: ignore[call-overload,no-any-return]


class Span:
    """Bytes `[start, stop)` of `source` (a buffer, or an object whose `chunks(start, stop)` gives them: a
    `BlockText`), for a `WholeBytes` to write without a copy."""

    __slots__ = ("source", "start", "stop")

    def __init__(self, source: Any, start: int, stop: int) -> None:
        self.source, self.start, self.stop = source, start, stop

    def __len__(self) -> int:
        return self.stop - self.start

    def chunks(self) -> Iterator[Any]:
        if hasattr(self.source, "chunks"):
            return self.source.chunks(self.start, self.stop)  # type: ignore[no-any-return]
        return iter((memoryview(self.source).cast("B")[self.start : self.stop],))


class WholeBytes:
    """Bytes laid end to end from `parts` (buffers, or objects whose `chunks()` gives buffers: a `BlockText`'s
    decompressed blocks), made only as a snapshot writes them (`inspector.session.snapshot`: out of band, piece by
    piece), so writing a snapshot costs no whole copy of a column. Any other pickler gets the bytes joined."""

    __slots__ = ("_length", "parts")

    def __init__(self, *parts: Any) -> None:
        self.parts = parts
        self._length = sum(len(p) if hasattr(p, "chunks") else memoryview(p).nbytes for p in parts)

    def __len__(self) -> int:
        return self._length

    def chunks(self) -> Iterator[Any]:
        """The bytes, piece by piece (a piece is released once the next one is asked for)."""
        for part in self.parts:
            if hasattr(part, "chunks"):
                yield from part.chunks()
            elif len(part):
                yield part

    def __bytes__(self) -> bytes:
        return b"".join(self.chunks())

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """For a pickler other than the snapshot's: the bytes joined, out of band from protocol 5 (`out_of_band`)."""
        return (as_written, (out_of_band(bytes(self), protocol),))


def as_written(data: Any) -> Any:
    """A `WholeBytes` restored: the buffer it was written as (bytes, or a view of a snapshot's)."""
    return data
