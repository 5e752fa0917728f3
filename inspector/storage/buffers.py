"""Read-only columns that a snapshot restores where they lie: `out_of_band` to pickle one, `items_view` to read it.

A column that never changes after a restore (the id index's hashes, the packed ids' ends) need not be copied out of
the snapshot: a `memoryview` cast to its item type reads it in place (the snapshot stays mapped while the session
lives). Copying ~5 MB of such columns cost ~3 ms of page faults per restore of a 300k-entry session.
"""

from __future__ import annotations

from array import array
from pickle import PickleBuffer
from typing import Any, Union

Items = Union["array[Any]", memoryview]
"""A column of fixed-size integers: an `array`, or a read-only view of a snapshot's bytes cast to the same type."""


def out_of_band(column: Any, protocol: Any) -> Any:
    """What a `__reduce_ex__(protocol)` passes for `column` (any buffer): a `PickleBuffer` (out of band) from
    protocol 5, bytes before it."""
    return PickleBuffer(column) if isinstance(protocol, int) and protocol >= 5 else bytes(column)


def items_view(data: Any, typecode: str) -> memoryview:
    """`data` (bytes, or a buffer handed over by the unpickler) read as items of `typecode`, without a copy."""
    return memoryview(data).cast("B").cast(typecode)  # type: ignore[call-overload,no-any-return]
