"""The index state's leaf of a store session, read where OpenClaw 2026.9.6's Gateway reads it.

A real store (`openclaw doctor --session-sqlite import` of the demo session) is copied and edited with sqlite3
into the states `readActiveTranscriptAppendParentId` tells apart; the real `resolveTranscriptMessageAppendParent`
on each copy says whether the Gateway appends under the index state's `leaf_event_id` (set to a marker no event
has, unless the case names another), and the mirror must say the same (`leaf_from_index`), name it in the
`source`, and warn (`store_leaf_absent`) exactly when that leaf is named and no event has it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import ROOT
from inprocess import run_cli
from oracle.openclaw_2026_9 import HERE, openclaw_2026_9  # noqa: F401

from inspector.read.store.mirror import sync_mirror

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
KEY = "agent:main:main"
MARK = "leaf-named-nowhere"
NO_IDS = "DELETE FROM transcript_event_identities"
CASES: dict[str, tuple[list[str], bool, str | None]] = {
    # name: (edits, the Gateway reads the index state, the leaf it names)
    "as_imported": ([], False, MARK),
    "no_identities": ([NO_IDS], True, MARK),
    "identities_of_no_event": (["UPDATE transcript_event_identities SET seq = seq + 100000"], True, MARK),
    "no_identities_leaf_present": ([NO_IDS], True, "f57a4b5d"),  # the demo's first entry (its last is a29de36a)
    "no_identities_leaf_null": ([NO_IDS], True, None),
    "no_identities_needs_rebuild": ([NO_IDS, "UPDATE session_transcript_index_state SET needs_rebuild = 1"], False, MARK),
    "no_identities_index_behind": ([NO_IDS, "UPDATE session_transcript_index_state SET indexed_seq = indexed_seq - 1"], False, MARK),
    "no_identities_no_watermark": ([NO_IDS, "DELETE FROM transcript_rewrite_watermarks"], False, MARK),
    "no_identities_unknown_eligibility": (
        [NO_IDS, "UPDATE session_transcript_active_events SET context_eligible = NULL WHERE active_position = 0"], False, MARK,
    ),
    "one_identity_left": (["DELETE FROM transcript_event_identities WHERE seq > 0"], False, MARK),
    "no_events": (["DELETE FROM transcript_events"], False, MARK),
}


@pytest.fixture(scope="module")
def imported(openclaw_2026_9, tmp_path_factory):  # noqa: F811
    home = tmp_path_factory.mktemp("home")
    store = openclaw_2026_9.import_store({KEY: DEMO}, home)
    with sqlite3.connect(store) as db:
        (sid,) = db.execute("SELECT session_id FROM session_windows WHERE session_key = ?", (KEY,)).fetchone()
    return store, sid


def _edited(store: Path, folder: Path, edits: list[str], leaf: str | None) -> Path:
    folder.mkdir()
    copy = folder / store.name
    with sqlite3.connect(store) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    db = sqlite3.connect(copy)
    db.execute("PRAGMA foreign_keys = OFF")
    for sql in [*edits, "UPDATE session_transcript_index_state SET leaf_event_id = ?"]:
        db.execute(sql, (leaf,) if "?" in sql else ())
    db.commit()
    db.close()
    return copy


def test_the_index_leaf_counts_where_the_gateway_reads_it(openclaw_2026_9, imported, tmp_path):  # noqa: F811
    store, sid = imported
    copies = {name: _edited(store, tmp_path / name, edits, leaf) for name, (edits, _, leaf) in CASES.items()}
    real = openclaw_2026_9.run_script(HERE / "oc_2026_9_store_leaf.mjs", [{"store": str(p), "session": sid} for p in copies.values()])
    for (name, (_, from_index, leaf)), copy, parent in zip(CASES.items(), copies.values(), real, strict=True):
        real_from_index = parent == leaf  # no case's leaf is the one the events give (the demo's last entry, or none)
        assert real_from_index is from_index, (name, parent)  # the cases cover both answers
        mirror = sync_mirror(copy, sid)
        assert mirror.leaf_from_index is real_from_index, name
        if real_from_index:
            assert mirror.leaf_event_id == parent and mirror.source_json()["index_leaf"] == parent, name
        else:
            assert "index_leaf" not in mirror.source_json(), name
        absent = [d for d in mirror.extra_diagnostics() if d["kind"] == "store_leaf_absent"]
        assert len(absent) == (real_from_index and leaf == MARK), (name, absent)
        assert [d.kind for d in mirror.diagnostics([]) if d.kind == "store_leaf_absent"] == [d["kind"] for d in absent], name


def test_the_cli_names_the_absent_leaf(imported, tmp_path):
    store, _sid = imported
    copy = _edited(store, tmp_path / "edited", [NO_IDS], MARK)
    env = dict(os.environ, HOME=str(tmp_path))
    data = json.loads(run_cli(["stats", str(copy), "--json", "--no-tiktoken"], env=env).stdout)
    assert data["source"]["index_leaf"] == MARK
    (absent,) = [d for d in data["diagnostics"] if d["kind"] == "store_leaf_absent"]
    assert absent["seq"] is None and repr(MARK) in absent["message"]
    plain = json.loads(run_cli(["stats", str(store), "--json", "--no-tiktoken"], env=env).stdout)
    assert "index_leaf" not in plain["source"] and not [d for d in plain["diagnostics"] if d["kind"] == "store_leaf_absent"]
    shutil.rmtree(tmp_path / "edited")
