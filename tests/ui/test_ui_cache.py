"""The inspector opens a session from the index cache a headless command saved, and shows what a cold read shows."""

from __future__ import annotations

import os

import pytest
from conftest import jline, msg, user
from test_ui_support import basic_builder, write_session

from inspector.session.index_cache import index_entry_name, open_cached, save_opened
from inspector.session.session import open_session
from inspector.storage.cache import cache_dir as store
from widgets.screens.inspector import InspectorScreen


@pytest.mark.anyio
async def test_opens_from_the_cache_and_extends_it(tmp_path, ui, _own_index_cache):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    open_cached(path).context()
    assert save_opened() == 1  # what `session-inspector stats PATH` leaves behind
    last = open_session(path).entries[-1].id
    with open(path, "a", encoding="utf-8") as f:
        f.write(jline(msg("late", last, user("appended after the snapshot"))) + "\n")
    snapshot = _own_index_cache / index_entry_name(path)
    os.utime(snapshot, (1_000_000, 1_000_000))
    pilot = await ui(path)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen)
    assert snapshot.stat().st_mtime > 1_000_000, "the snapshot was used (touched)"
    cold = open_session(path)
    assert screen.session is not None and screen.session.entries == cold.entries
    assert len(screen.transcript.model) == len(cold.context().messages)
    assert [f.kind for f in store.owned_files(_own_index_cache)] == ["index"], "the UI writes nothing"
