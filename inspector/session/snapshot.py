"""A `Session`'s in-memory state as bytes, and a `Session` back from them, without reading the file.

The state is taken generically (the attributes of the session and of its reader, tree and scanner, whatever
they hold, or what an object's `snapshot_attrs()` gives: the entry table packs its ids), so it follows the loading
internals as they change. Two things make it fast: a long list of
instances of one slotted dataclass (the entries, the context rows, diagnostics) travels as one column per
field and is rebuilt with one constructor call per item (pickling 100k dataclass instances one by one is
several times slower), and the garbage collector is paused while the objects are rebuilt. Callables (the
reader's links to the session) are not stored: `Session._link_reader` makes them again. A restored session
that lacks an attribute a fresh one has (state from other code) is refused.

One pickle holds everything, so a string shared by several objects is stored and restored once: marshalling the
columns apart was faster per column but duplicated those strings (a larger file, slower overall, and more memory
once restored). The entry ids are the exception: packed in one string (`inspector.storage.packed_ids`), they are not
rebuilt as 100k+ strings unless something reads them all.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import pickle
import struct
from array import array
from operator import attrgetter
from pathlib import Path
from typing import IO, Any

from inspector.session.session import Session
from inspector.storage.buffers import WholeBytes, as_written

COLUMNS_MIN = 32
"""Shorter lists are pickled as they are."""


class Columns:
    """A list of instances of one dataclass, stored as one list per field."""

    __slots__ = ("cls", "columns", "names")

    def __init__(self, cls: type, names: tuple[str, ...], columns: list[list[Any]]) -> None:
        self.cls = cls
        self.names = names
        self.columns = columns

    def __reduce__(self) -> tuple[Any, ...]:
        return (Columns, (self.cls, self.names, self.columns))

    def rebuild(self) -> list[Any]:
        """The instances again (fields passed positionally, in declaration order)."""
        if tuple(f.name for f in dataclasses.fields(self.cls)) != self.names:
            raise ValueError(f"{self.cls.__name__} changed shape")
        return list(map(self.cls, *self.columns))


class ObjectState:
    """An object of a plain class, as its class and its attributes (callables left out).

    An object reached twice (the entry table the reader and the tree share) is one `ObjectState`, rebuilt once.
    """

    __slots__ = ("_built", "attrs", "cls")

    def __init__(self, cls: type, attrs: dict[str, Any]) -> None:
        self.cls = cls
        self.attrs = attrs
        self._built: Any = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (ObjectState, (self.cls, self.attrs))

    def rebuild(self) -> Any:
        if self._built is not None:
            return self._built
        obj: Any = object.__new__(self.cls)
        self._built = obj
        for name, value in self.attrs.items():
            object.__setattr__(obj, name, thaw(value))  # frozen dataclasses too
        return obj


def _columnar(items: list[Any]) -> Columns | None:
    if len(items) < COLUMNS_MIN:
        return None
    cls = type(items[0])
    if not dataclasses.is_dataclass(cls) or not hasattr(cls, "__slots__"):
        return None
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields) or any(type(x) is not cls for x in items):
        return None
    names = tuple(f.name for f in fields)
    return Columns(cls, names, [list(map(attrgetter(n), items)) for n in names])


def freeze(value: Any, depth: int = 0, memo: dict[int, ObjectState] | None = None) -> Any:
    """`value` made ready to pickle: long dataclass lists as `Columns`, the engine's plain objects as `ObjectState`
    (one per object: `memo` maps the objects already frozen in this state)."""
    if type(value) is list:
        return _columnar(value) or value
    memo = {} if memo is None else memo
    known = memo.get(id(value))
    if known is not None:
        return known
    cls = type(value)
    if depth < 2 and cls.__module__.startswith("inspector.") and hasattr(value, "__dict__") and not isinstance(value, type):
        state = memo[id(value)] = ObjectState(cls, {})
        attrs = value.snapshot_attrs() if hasattr(value, "snapshot_attrs") else vars(value)  # its own form (`EntryTable`)
        state.attrs.update({k: freeze(v, depth + 1, memo) for k, v in attrs.items() if not callable(v) or isinstance(v, type)})
        return state
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and hasattr(cls, "__slots__") and cls.__module__.startswith("inspector."):
        state = memo[id(value)] = ObjectState(cls, {})
        state.attrs.update({f.name: freeze(getattr(value, f.name), depth + 1, memo) for f in dataclasses.fields(value)})
        return state
    return value


def thaw(value: Any) -> Any:
    """The inverse of `freeze`."""
    if isinstance(value, (Columns, ObjectState)):
        return value.rebuild()
    return value


ARRAY_OUT_OF_BAND = 1 << 16
"""Arrays of at least this many bytes are pickled out of band (`_Pickler`)."""


class _Pickler(pickle.Pickler):
    """Pickles every big `array` out of band (the table's columns, the id index, the context path): restored with one
    copy from where the snapshot lies (`_array_from`). In band, an array travels as a bytes object that is then
    copied into the array: twice the fresh memory, ~5 ms of page faults on a 300k-entry session. A `WholeBytes` (a
    column made whole only as it is written: `inspector.storage.buffers`) goes out of band too, restored as the
    buffer it is written as. `buffers` collects what goes out of band, in order: `PickleBuffer`s and `WholeBytes`."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=5, buffer_callback=self._out_of_band)
        self.buffers: list[pickle.PickleBuffer | WholeBytes] = []
        self._whole: WholeBytes | None = None

    def _out_of_band(self, buffer: pickle.PickleBuffer) -> bool:
        whole, self._whole = self._whole, None
        self.buffers.append(buffer if whole is None else whole)
        return False

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is array and len(obj) * obj.itemsize >= ARRAY_OUT_OF_BAND:
            return (_array_from, (obj.typecode, pickle.PickleBuffer(obj)))
        if type(obj) is WholeBytes:
            self._whole = obj  # written in its place (`_out_of_band`, called for the empty stand-in next)
            return (as_written, (pickle.PickleBuffer(b""),))
        return NotImplemented


def _array_from(typecode: str, data: Any) -> array[Any]:
    """An array of `typecode` holding a copy of `data` (a buffer of its items)."""
    out = array(typecode)
    out.frombytes(data)
    return out


_FRAME = struct.Struct("<QI")
"""The payload's head: the pickle stream's length, how many out-of-band buffers follow it."""
_BUFFER_LEN = struct.Struct("<Q")


def _state(session: Session) -> dict[str, Any]:
    """The session's state (and its leaf context, when built), ready to pickle (`freeze`). The entry table packs its
    parent ids by the rows of the tree's id index (`EntryTable.snapshot_rows`), not by a dict of its own."""
    attrs = {k: v for k, v in vars(session).items() if k != "_context_cache"}
    leaf_ctx = session._context_cache.get(None)
    memo: dict[int, ObjectState] = {}
    tree = session.tree
    with tree.entries.snapshot_rows(tree.by_id.rows_of):
        return {
            "session": {k: freeze(v, 0, memo) for k, v in attrs.items() if not callable(v)},
            "context": None if leaf_ctx is None else freeze(leaf_ctx, 0, memo),
        }


def dump_into(session: Session, file: IO[bytes]) -> None:
    """Write the snapshot of `session` into `file` (seekable) from where it stands: the frame, the pickle stream, then
    each out-of-band buffer (the big columns: views of the session's own buffers, or `WholeBytes` made piece by piece)
    preceded by its length; the frame is filled in last. Nothing of the whole is held: the stream goes to the file
    as it is made, a column from where it lies (a 256 MiB session's snapshot held ~40 MB more, joined)."""
    start = file.tell()
    file.write(_FRAME.pack(0, 0))
    pickler = _Pickler(file)
    pickler.dump(_state(session))
    buffers = pickler.buffers
    pickler.clear_memo()
    del pickler
    length, count = file.tell() - start - _FRAME.size, len(buffers)
    buffers.reverse()
    while buffers:  # each released once written (a view of a live column no longer pins it)
        buffer = buffers.pop()
        if isinstance(buffer, WholeBytes):
            file.write(_BUFFER_LEN.pack(len(buffer)))
            written = sum(map(file.write, buffer.chunks()))
            if written != len(buffer):
                raise ValueError("a column changed while its snapshot was written")
        else:
            with buffer.raw() as raw:
                file.write(_BUFFER_LEN.pack(raw.nbytes))
                file.write(raw)
            buffer.release()
    end = file.tell()
    file.seek(start)
    file.write(_FRAME.pack(length, count))
    file.seek(end)


def dump(session: Session) -> bytes:
    """The snapshot's bytes, as `load` reads them (`dump_into` a buffer)."""
    out = io.BytesIO()
    dump_into(session, out)
    return out.getvalue()


def _unframe(data: bytes | memoryview) -> tuple[memoryview, list[memoryview]]:
    """The pickle stream and the out-of-band buffers of `dump`'s bytes (views into `data`); ValueError when damaged."""
    view = memoryview(data)
    if len(view) < _FRAME.size:
        raise ValueError("snapshot too short")
    length, count = _FRAME.unpack_from(view)
    at = _FRAME.size + length
    stream = view[_FRAME.size : at]
    buffers = []
    for _ in range(count):
        if at + _BUFFER_LEN.size > len(view):
            raise ValueError("snapshot buffers cut short")
        (size,) = _BUFFER_LEN.unpack_from(view, at)
        at += _BUFFER_LEN.size
        if at + size > len(view):
            raise ValueError("snapshot buffers cut short")
        buffers.append(view[at : at + size].toreadonly())
        at += size
    if at != len(view) or len(stream) != length:
        raise ValueError("snapshot of the wrong length")
    return stream, buffers


def _missing_attrs(restored: object, fresh: object) -> set[str]:
    return set(vars(fresh)) - set(vars(restored))


def load(data: bytes | memoryview, path: Path) -> Session:
    """A session from `dump` bytes, as if `path` had been read; raises on anything unexpected. The restored session
    keeps views into `data` (the columns of `EntryTable`'s `FrozenColumns`, the packed extras)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        stream, buffers = _unframe(data)
        state = pickle.loads(stream, buffers=buffers)  # the big columns stay where they lie, in `data`
        session = Session.__new__(Session)
        for name, value in state["session"].items():
            setattr(session, name, thaw(value))
        ctx = thaw(state["context"])
    finally:
        if enabled:
            gc.enable()
    session.tree.by_id.attach(session.tree.entries)  # stored flat, without the ids (see `inspector.storage.id_index`)
    session.path = Path(path)
    session.scanner.path = Path(path)
    session._context_cache = {} if ctx is None else {None: ctx}
    session._link_reader()
    fresh = Session(path)
    for name in ("reader", "tree", "scanner"):
        if _missing_attrs(getattr(session, name), getattr(fresh, name)):
            raise ValueError(f"cached {name} state is not this code's")
    if _missing_attrs(session, fresh):
        raise ValueError("cached session state is not this code's")
    return session
