"""`BlockText`: a growing entry table's `extras` text kept as zlib blocks reads back what was added."""

from __future__ import annotations

import pickle

from inspector.storage.block_text import BlockText
from inspector.storage.buffers import WholeBytes
from inspector.storage.packed_extras import PackedExtras


def test_slices_within_blocks_read_back_what_was_added() -> None:
    text = BlockText()
    runs = [b'{"type":"custom","id":"a1"}{"type":"label","id":"b2"}', b"", b'{"x":1}' * 500, b"z"]
    for run in runs:
        text += bytearray(run)
    whole = b"".join(runs)
    assert len(text) == len(whole) and bytes(text) == whole
    cuts = [0, 27, 53, 53 + 7, 53 + 3500, len(whole)]
    for a, b in zip(cuts, cuts[1:]):
        assert text[a:b] == whole[a:b]
    assert text[60:60] == b"" and text.stored_bytes < len(whole)


def test_packed_extras_over_blocks_travel_as_blocks_and_pack_as_one_text() -> None:
    table = PackedExtras.growing(blocks=True)
    for start in (0, 3):
        run = PackedExtras.growing()
        for row in range(3):
            run.add(row, b'{"id":"%d"}' % (start + row))
        table.extend_run(run, start)
    assert [table[row] for row in range(6)] == [b'{"id":"%d"}' % row for row in range(6)]
    back = pickle.loads(pickle.dumps(table, protocol=5))  # a worker's run: the blocks travel as they are
    assert type(back.text) is BlockText and dict(back.items()) == dict(table.items())
    whole = PackedExtras.pack(table)  # what a snapshot stores: one text, made whole as it is written
    assert type(whole.text) is WholeBytes and bytes(whole.text) == bytes(table.text)
    again = pickle.loads(pickle.dumps(whole, protocol=5))
    assert type(again.text) is bytes and dict(again.items()) == dict(table.items())


def test_reads_across_blocks_and_overwrites_in_place() -> None:
    text = BlockText()
    runs = [bytes(range(40)), bytes(range(100, 130)), bytes(range(200, 250))]
    for run in runs:
        text.extend(run)
    whole = bytearray(b"".join(runs))
    assert text[10:95] == bytes(whole[10:95]) and text[:] == bytes(whole) and text[-5:] == bytes(whole[-5:])
    text[35:75] = b"\xff" * 40  # spans the three blocks
    whole[35:75] = b"\xff" * 40
    assert bytes(text) == bytes(whole) and text[30:80] == bytes(whole[30:80])
    assert text[0] == 0 and text[45] == 0xFF and text[-1] == 249
