"""The index of entry ids: id -> index of the last entry with that id (pi's `Map.set`: a later entry wins).

While a session is read the index is a dict. A snapshot (`inspector.session.snapshot`) stores it as a flat table instead:
the stable hashes (`zlib.crc32` of the UTF-8 bytes) of the entry table's ids, sorted, and the index of the entry each one
belongs to. Unpickling a dict of a few hundred thousand ids costs about as much as building it again (~40 ms per
100k), and a restored session extended by a few appended lines needs a few hundred lookups: those read the table
(binary search, then the id compared) and a dict of the ids added since. A bulk pass (`mapping_for` many rows), or
many point lookups, builds the dict once and uses it from then on.
"""

from __future__ import annotations

import threading
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterable
from itertools import compress, count, repeat
from operator import and_, call, eq, is_not, lshift, methodcaller, or_, rshift, sub
from typing import Any, Protocol, cast

from inspector.storage.buffers import Items, items_view, out_of_band
from inspector.storage.heap import release_free_heap

_utf8 = methodcaller("encode", "utf-8", "surrogatepass")  # lone surrogates (JSON allows them) encode too


def id_hash(entry_id: str) -> int:
    """The stable hash of an id in the flat table (the same in every process, unlike `hash`)."""
    return zlib.crc32(_utf8(entry_id))


class IdSource(Protocol):
    """What the index reads ids from: the entry table (`id_of` reads one without building the list of all: see
    `inspector.storage.entry_table`)."""

    @property
    def ids(self) -> list[str | None]: ...

    def id_of(self, i: int) -> str | None: ...

    def __len__(self) -> int: ...


class _ListSource:
    """A plain list of ids as an `IdSource`."""

    __slots__ = ("ids",)

    def __init__(self, ids: list[str | None]) -> None:
        self.ids = ids

    def id_of(self, i: int) -> str | None:
        return self.ids[i]

    def __len__(self) -> int:
        return len(self.ids)


MISSING = -2
"""`rows_of`'s row for a key no entry has."""
SORT_BUCKETS = 16
"""`_ranked` sorts the rows in this many buckets of the hash range, one at a time (a quarter of the memory of sorting
them all at once, in less time)."""


def _ranked(hashes: array[int]) -> array[int]:
    """The rows in the order of their hashes (equal hashes in row order: a stable sort), as an array of rows. The keys
    `hash << 32 | row` (sorted without a key function) are dealt into buckets by their top bits in one C-level pass,
    kept as arrays (8 bytes a row, not an int object), and each bucket is sorted alone."""
    buckets = [array("Q") for _ in range(SORT_BUCKETS)]
    top = 64 - (SORT_BUCKETS - 1).bit_length()
    keys = map(or_, map(lshift, hashes, repeat(32)), count())
    deal = map([b.append for b in buckets].__getitem__, map(rshift, hashes, repeat(top - 32)))
    deque(map(call, deal, keys), maxlen=0)
    order = array("i")
    for k in range(SORT_BUCKETS):
        ranked = sorted(buckets[k])
        buckets[k] = array("Q")
        order.extend(map(and_, ranked, repeat(0xFFFFFFFF)))
    return order


def _rows_in_flat(hashes: Items, order: Items, ids: list[str | None], keys: list[Any]) -> array[int]:
    """The row of the last entry with each of `keys` in a flat table over `ids` (`MISSING` for a key no entry has, None
    or not a string too). C-level passes, no int object kept a key: the hash of each key, its last equal hash
    (bisect), that row's id compared; only a key whose hash is not its id's (absent, or sharing a hash with another
    id) is looked for one by one."""
    if any(map(is_not, map(type, keys), repeat(str))):
        set(compress(keys, map(is_not, map(type, keys), repeat(str))))  # TypeError for an unhashable key, as a dict's
    if not hashes:
        return array("i", repeat(MISSING, len(keys)))
    wanted = array("I", map(zlib.crc32, map(_utf8, map(format, keys))))  # a key not a string: never found (below)
    found = array("i", map(order.__getitem__, map(sub, map(bisect_right, repeat(hashes), wanted), repeat(1))))
    for k in compress(count(), map(is_not, map(eq, map(ids.__getitem__, found), keys), repeat(True))):
        row, at, key = MISSING, bisect_left(hashes, wanted[k]), keys[k]
        while type(key) is str and at < len(hashes) and hashes[at] == wanted[k]:
            if ids[order[at]] == key:
                row = order[at]
            at += 1
        found[k] = row
    return found


class IdIndex:
    """id -> index of the last entry with that id, as a dict or (restored from a snapshot) a flat table over the entry
    table's ids plus a dict of the ids added since.

    Point lookups (`get`, `in`, `[]`) work in both forms; `mapping_for(rows)` gives what a pass over `rows` ids should
    look them up in (the dict, built first when the pass is long). After `MAX_FLAT_LOOKUPS` lookups in the table the
    dict is built as well: many point lookups cost more than building it.
    """

    __slots__ = ("_added", "_dict", "_hashes", "_ids", "_lock", "_lookups", "_order", "_rows")

    BULK_ROWS = 4096
    """A pass over more ids than this builds the dict first (`mapping_for`)."""
    MAX_FLAT_LOOKUPS = 8192
    """Lookups in the flat table before the dict is built."""

    def __init__(self) -> None:
        self._dict: dict[str, int] | None = {}
        self._ids: IdSource | None = None
        self._hashes: Items = array("I")
        self._order: Items = array("i")
        self._rows = 0
        self._added: dict[str, int] = {}
        self._lookups = 0
        self._lock = threading.Lock()

    # -- the flat form ------------------------------------------------------------------------------

    @classmethod
    def flat_over(cls, ids: list[str | None]) -> IdIndex | None:
        """The flat table of these ids (every non-None id: the last entry with it wins), or None when an id is not a
        string (the dict is kept then). C-level passes: ~70 ms per 134k ids, paid when a snapshot is written."""
        kinds = set(map(type, ids))
        if not kinds <= {str, type(None)}:
            return None
        present: list[int] | range = range(len(ids))
        named: list[str | None] = ids
        if type(None) in kinds:
            present = list(compress(range(len(ids)), map(is_not, ids, repeat(None))))
            named = list(map(ids.__getitem__, present))
        try:
            hashes = array("I", map(zlib.crc32, map(str.encode, named)))  # type: ignore[arg-type]
        except UnicodeEncodeError:  # a lone surrogate
            hashes = array("I", map(zlib.crc32, map(_utf8, named)))
        order = _ranked(hashes)
        index = cls.__new__(cls)
        index._dict = None
        index._hashes = array("I", map(hashes.__getitem__, order))
        index._order = order if type(present) is range else array("i", map(present.__getitem__, order))
        index._rows = len(ids)
        index._ids = _ListSource(ids)
        index._added = {}
        index._lookups = 0
        index._lock = threading.Lock()
        return index

    @classmethod
    def _restored(cls, hashes: Any, order: Any, rows: int) -> IdIndex:
        """The flat table from its columns' bytes, read where they lie (`buffers.items_view`: never changed after)."""
        index = cls.__new__(cls)
        index._dict = None
        index._hashes = items_view(hashes, "I")
        index._order = items_view(order, "i")
        index._rows = rows
        index._ids = None  # `attach` gives it the entry table's ids
        index._added = {}
        index._lookups = 0
        index._lock = threading.Lock()
        return index

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickled as the flat table (a dict is turned into one first: see the module docstring), its columns out of
        band from protocol 5."""
        if self._dict is not None or self._added:
            if self._ids is None:
                raise ValueError("an id index with no entry ids cannot be stored flat")
            flat = IdIndex.flat_over(self._ids.ids)
            if flat is None:
                return (IdIndex._from_dict, (self.as_dict(),))
            return flat.__reduce_ex__(protocol)
        return (IdIndex._restored, (out_of_band(self._hashes, protocol), out_of_band(self._order, protocol), self._rows))

    @classmethod
    def _from_dict(cls, mapping: dict[str, int]) -> IdIndex:
        index = cls()
        index._dict = mapping
        return index

    def attach(self, ids: IdSource | list[str | None]) -> None:
        """The entry table (or a list of ids): a restored flat table compares the ids it finds with its ids, and
        stores them flat."""
        if self._rows > len(ids):
            raise ValueError("the id index covers more entries than the table holds")
        self._ids = _ListSource(ids) if isinstance(ids, list) else ids

    # -- lookups --------------------------------------------------------------------------------------

    def _flat_get(self, key: str) -> int | None:
        self._lookups += 1
        if self._lookups > self.MAX_FLAT_LOOKUPS:
            return self.as_dict().get(key)
        ids = self._ids
        assert ids is not None
        h = zlib.crc32(_utf8(key))
        hashes, order = self._hashes, self._order
        pos = bisect_left(hashes, h)
        found = None
        while pos < len(hashes) and hashes[pos] == h:
            if ids.id_of(order[pos]) == key:
                found = order[pos]  # equal hashes are in file order: the last equal id wins
            pos += 1
        return found

    def get(self, key: Any, default: int | None = None) -> int | None:
        """The index of the last entry with id `key` (else `default`)."""
        if self._dict is not None:
            return self._dict.get(key, default)
        added = self._added.get(key)
        if added is not None:
            return added
        if type(key) is not str:
            return default
        found = self._flat_get(key)
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __getitem__(self, key: str) -> int:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __setitem__(self, key: str, index: int) -> None:
        if self._dict is not None:
            self._dict[key] = index
            return
        with self._lock:  # the dict may be being built in another thread (`as_dict`): it gets this id or holds it
            target = self._added if self._dict is None else self._dict
            target[key] = index

    def update(self, pairs: Iterable[tuple[str, int]]) -> None:
        """Set every `(id, index)` pair, in order."""
        if self._dict is not None:
            self._dict.update(pairs)
            return
        with self._lock:
            (self._added if self._dict is None else self._dict).update(pairs)

    def isdisjoint(self, keys: Iterable[str | None]) -> bool:
        """Whether none of `keys` is an id in the index."""
        if self._dict is not None:
            return self._dict.keys().isdisjoint(keys)
        return not any(k is not None and k in self for k in keys)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdIndex):
            return self.as_dict() == other.as_dict()
        if isinstance(other, dict):
            return self.as_dict() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        form = "dict" if self._dict is not None else f"flat over {self._rows} entries + {len(self._added)}"
        return f"IdIndex({form})"

    # -- the dict -------------------------------------------------------------------------------------

    def rows_of(self, keys: list[Any]) -> array[int] | None:
        """The row of the last entry with each of `keys` (`MISSING` for a key no entry has), from the dict or the
        flat table, without building anything; None when the index cannot tell alone (a restored table with ids
        added since)."""
        if self._dict is not None:
            return array("i", map(self._dict.get, keys, repeat(MISSING)))
        ids = self._ids
        if self._added or ids is None or self._rows != len(ids):
            return None
        return _rows_in_flat(self._hashes, self._order, ids.ids, keys)

    def flatten(self) -> None:
        """Give the dict up for the flat table (as a snapshot stores it): for a process that writes the snapshot and
        ends, the dict's memory (~60 bytes an id) is where the snapshot is made. Lookups through the index keep
        working (`_flat_get`); the dict is emptied, so a lookup bound to it elsewhere must be bound again
        (`Session._link_reader`) or not used."""
        ids = self._ids
        if self._dict is None or ids is None:
            return
        id_list = ids.ids
        if not set(map(type, id_list)) <= {str, type(None)}:
            return  # kept as a dict (see `flat_over`)
        with self._lock:
            mapping, self._dict, self._added = self._dict, None, {}
            mapping.clear()  # emptied, not only dropped: a lookup bound to it (`Session._link_reader`) would keep it whole
            release_free_heap()  # the dict's pages back first: freed in the middle of the heap, they stay resident
            flat = IdIndex.flat_over(id_list)
            assert flat is not None
            self._hashes, self._order, self._rows, self._lookups = flat._hashes, flat._order, flat._rows, 0
        release_free_heap()  # and the sort's

    @property
    def is_flat(self) -> bool:
        """Whether lookups read the flat table (the dict is not built)."""
        return self._dict is None

    def as_dict(self) -> dict[str, int]:
        """The index as a dict (built from the flat table and the ids added since, once)."""
        if self._dict is None:
            with self._lock:
                if self._dict is None:
                    ids = self._ids
                    assert ids is not None
                    rows = self._rows
                    with_none: dict[str | None, int] = dict(zip(ids.ids[:rows], range(rows)))
                    with_none.pop(None, None)
                    built = cast(dict[str, int], with_none)
                    built.update(self._added)
                    # Set last, the table and the added ids left as they are: a lookup in another thread that found
                    # no dict yet reads them, whole, and every later one reads the dict.
                    self._dict = built
        return self._dict

    def mapping_for(self, rows: int) -> dict[str, int] | IdIndex:
        """What a pass that looks up `rows` ids should use: the dict (built first when the pass is long), or this
        index for a few point lookups in the flat table."""
        if self._dict is not None or rows > self.BULK_ROWS:
            return self.as_dict()
        return self
