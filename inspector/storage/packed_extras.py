"""The `extras` column of an entry table as a snapshot stores it: one buffer, read a cell at a time.

An `extras` cell is an entry's `data` as compact JSON (or, rarely, `(timestamp, data)` as they are: see
`inspector.storage.extra_cells.pack_extra`). A big session has tens of thousands of them (every entry that is not a message),
and unpickling that many bytes objects cost a tenth of restoring a snapshot. So a snapshot lays the JSON cells end to
end in one bytes object, with the row and the end of each; a restored table slices one out when it is read, and keeps
the cells of the rows added since in a dict.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from itertools import accumulate, repeat
from operator import add
from typing import Any

from inspector.storage.block_text import BlockText
from inspector.storage.buffers import Span, WholeBytes, out_of_band


class PackedExtras(Mapping[int, Any]):
    """`extras` cells by row: the JSON ones in `text` (a bytes-like buffer; row `rows[k]` ends at `ends[k]`), the others in `odd`, the ones
    added since the snapshot in `added`. Read and extended like the dict it replaces (`get`, `[]=`, `update`)."""

    __slots__ = ("added", "ends", "odd", "rows", "text")

    def __init__(self, rows: array, ends: array, text: Any, odd: dict[int, Any]) -> None:
        if len(rows) != len(ends) or (len(ends) and ends[-1] != len(text)):
            raise ValueError("extras rows, ends and text that do not match")
        self.rows, self.ends, self.text, self.odd = rows, ends, text, odd
        self.added: dict[int, Any] = {}

    @classmethod
    def growing(cls, added: Mapping[int, Any] | None = None, *, blocks: bool = False) -> PackedExtras:
        """An empty table that grows (`add`, `extend_run`: its text a bytearray, or with `blocks` a `BlockText`: an
        entry table's, extended by whole worker runs), with the cells `added` kept as added."""
        packed = cls(array("q"), array("q"), BlockText() if blocks else bytearray(), {})
        if added:
            packed.added.update(added)
        return packed

    def add(self, row: int, cell: Any) -> None:
        """Append the cell of `row`, a row after every packed one (a growing table: `growing`)."""
        if type(cell) is bytes:
            text = self.text
            text += cell
            self.ends.append(len(text))
            self.rows.append(row)
        else:
            self.odd[row] = cell

    def extend_run(self, run: PackedExtras, start: int) -> None:
        """Append the cells of `run` (a worker's, its rows counted from 0, none added) at rows from `start`, after every
        packed one. The text, the ends and the odd cells first, the rows last: a reader in another thread finds a row only
        once its cell is there. A table whose text is not growing (restored from a snapshot) keeps them as added."""
        text = self.text
        if type(text) is not bytearray and type(text) is not BlockText:
            self.added.update({start + row: cell for row, cell in run.items()})
            return
        base = len(text)
        text += run.text
        self.ends.extend(array("q", [end + base for end in run.ends]) if base else run.ends)
        if run.odd:
            self.odd.update({start + row: cell for row, cell in run.odd.items()})
        self.rows.extend(array("q", [row + start for row in run.rows]) if start else run.rows)

    @classmethod
    def pack(cls, extras: Mapping[int, Any]) -> PackedExtras:
        """`extras` (row -> cell) packed (a packed table with no added cell: itself)."""
        if type(extras) is PackedExtras:
            if extras.added:
                return cls._appended(extras)
            if type(extras.text) is BlockText:  # a snapshot stores the text whole (read where it lies once restored),
                return cls(extras.rows, extras.ends, WholeBytes(extras.text), extras.odd)  # made as it is written
            return extras
        return cls._packed(extras)

    @classmethod
    def _appended(cls, extras: PackedExtras) -> PackedExtras:
        """A packed table with cells added since (rows of their own, between or after its rows): its text in spans
        between the added JSON cells (`WholeBytes`: nothing joined, nothing decompressed until written); packed anew
        when an added cell has a row the table holds."""
        rows_in, ends_in, text = extras.rows, extras.ends, extras.text
        added = sorted(extras.added.items())
        at_rows = [bisect_left(rows_in, row) for row, _ in added]
        if any(k < len(rows_in) and rows_in[k] == row for k, (row, _) in zip(at_rows, added)) or any(row in extras.odd for row, _ in added):
            return cls._packed(extras)
        rows, ends, parts = array("q"), array("q"), list[Any]()
        size = taken = 0
        for k, (row, cell) in [*zip(at_rows, added), (len(rows_in), (-1, None))]:
            if taken < k:  # the packed cells before this one, as they are
                start, stop = (ends_in[taken - 1] if taken else 0), ends_in[k - 1]
                rows.extend(rows_in[taken:k])
                ends.extend(map(add, ends_in[taken:k], repeat(size - start)) if size != start else ends_in[taken:k])
                parts.append(Span(text, start, stop))
                size, taken = size + stop - start, k
            if type(cell) is bytes:
                size += len(cell)
                rows.append(row)
                ends.append(size)
                parts.append(cell)
        odd = {**extras.odd, **{row: cell for row, cell in added if type(cell) is not bytes}}
        return cls(rows, ends, WholeBytes(*parts), odd)

    @classmethod
    def _packed(cls, extras: Mapping[int, Any]) -> PackedExtras:
        cells = sorted(extras.items())
        json_cells = [(row, cell) for row, cell in cells if type(cell) is bytes]
        text = b"".join(cell for _, cell in json_cells)
        return cls(
            array("q", [row for row, _ in json_cells]),
            array("q", accumulate(len(cell) for _, cell in json_cells)),
            text,
            {row: cell for row, cell in cells if type(cell) is not bytes},
        )

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickled with `text` out of band from protocol 5 (`inspector.session.snapshot`: restored, it is read where it
        lies), as bytes before it."""
        packed = PackedExtras.pack(self) if self.added else self
        if type(packed.text) is BlockText:  # a worker's run: its blocks as they are (`pack` makes a snapshot's whole)
            return (PackedExtras, (packed.rows, packed.ends, packed.text, packed.odd))
        text = out_of_band(packed.text, protocol)
        return (PackedExtras, (packed.rows, packed.ends, text, packed.odd))

    def get(self, row: int, default: Any = None) -> Any:  # type: ignore[override]
        """The cell of `row`, else `default`."""
        cell = self.added.get(row)
        if cell is not None:
            return cell
        if self.odd:
            cell = self.odd.get(row)
            if cell is not None:
                return cell
        rows = self.rows
        k = bisect_left(rows, row)
        if k < len(rows) and rows[k] == row:
            ends = self.ends
            return bytes(self.text[ends[k - 1] if k else 0 : ends[k]])
        return default

    def __getitem__(self, row: int) -> Any:
        cell = self.get(row)
        if cell is None:
            raise KeyError(row)
        return cell

    def __setitem__(self, row: int, cell: Any) -> None:
        self.added[row] = cell

    def update(self, cells: Mapping[int, Any]) -> None:
        self.added.update(cells)

    def __contains__(self, row: object) -> bool:
        return isinstance(row, int) and self.get(row) is not None

    def __len__(self) -> int:
        return len(self.rows) + len(self.odd) + len(self.added)

    def __iter__(self) -> Iterator[int]:
        return iter(sorted([*self.rows, *self.odd, *self.added]))
