"""The pruning screen under OpenClaw 2026.9.6's rules: the settings panel offers only what 2026.9.6 accepts, an edit
previews through 2026.9.6's rules, the snippet carries no retired key, and projections replayed from the
`openclaw.cache-ttl` marker are listed as already pruned.
"""

from __future__ import annotations

import json

import pytest
from test_ui_pruning import CONFIG, SIZE, WINDOW, PruningTestApp, make_app, paste, settle
from textual.css.query import NoMatches
from textual.widgets import TextArea

from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session
from widgets.pruning.messages import PruningMessageList
from widgets.pruning.settings import SETTING_FIELDS, PruningSettingsPanel
from widgets.pruning.snippet import PruningSnippetDialog

NEW = rule_set("openclaw-2026.9.6")
ACCEPTED = ["ttl", "hardClear.enabled", "hardClear.placeholder", "tools.allow", "tools.deny"]


def _session(tmp_path, monkeypatch, marker: bool):
    """Three 6,000-char read results; the cache-ttl marker records the first one as hard-cleared when `marker`."""
    monkeypatch.chdir(tmp_path)
    b = SessionBuilder(seed=4, start="2026-03-01T10:00:00.000Z")
    b.header()
    b.user("go")
    keys = []
    for n in range(4):
        b.assistant([b.tool_call("read" if n != 1 else "exec", {"p": n})])
        b.tool_result(b.last_tool_call_ids[0], "read" if n != 1 else "exec", f"{n}" * 6000)
        keys.append(f"tool:{b.last_tool_call_ids[0]}")
    for _ in range(3):
        b.assistant("done")
    touch = b.now_ms
    b.write(tmp_path / "s.jsonl")
    path = tmp_path / "s.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    stamps = [x["message"]["timestamp"] for x in lines if x.get("message", {}).get("role") == "toolResult"]
    snapshot = {"prunedToolResults": [{"key": f"{keys[0]}:{stamps[0]}", "mode": "hard", "placeholder": "[cleared earlier]"}]} if marker else {}
    b.custom("openclaw.cache-ttl", {"timestamp": touch, "provider": b.provider, "modelId": b.model, **snapshot})
    b.write(path)
    return open_session(path.relative_to(tmp_path)), touch


@pytest.mark.anyio
async def test_settings_panel_offers_only_what_2026_9_accepts(tmp_path, monkeypatch, ui):
    session, touch = _session(tmp_path, monkeypatch, marker=False)
    pilot = await ui.run(make_app(session, touch, rules=NEW), SIZE)
    screen = await settle(pilot)
    panel = screen.query_one(PruningSettingsPanel)
    assert [f.key for f in panel.FIELDS] == ACCEPTED
    for f in SETTING_FIELDS:
        if f.key not in ACCEPTED:
            with pytest.raises(NoMatches):
                screen.query_one(f"#{f.widget_id}")
    assert screen.preview.to_json()["openclaw_version"] == "2026.9.6"
    await paste(pilot, "tools.deny", "read")
    screen = await settle(pilot)
    assert screen.preview.resolved.settings.tools == {"deny": ["read"]}
    assert all(a == "keep" for i, a in enumerate(screen.preview.actions) if screen.preview.messages[i].get("toolName") == "read")
    await pilot.click("#pruning-copy")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, PruningSnippetDialog)
    doc = json.loads(dialog.query_one(TextArea).text)["agents"]["defaults"]["contextPruning"]
    assert set(doc) == {"mode", "ttl", "hardClear", "tools"} and doc["tools"] == {"deny": ["read"]}
    assert pilot.app.clipboard == NEW.snippet.settings_snippet(screen.preview.resolved.settings)


@pytest.mark.anyio
async def test_under_2026_4_12_every_setting_is_offered(tmp_path, monkeypatch, ui):
    session, touch = _session(tmp_path, monkeypatch, marker=False)
    pilot = await ui.run(PruningTestApp(session, now_ms=touch + 3_600_000), SIZE)
    screen = await settle(pilot)
    assert [f.key for f in screen.query_one(PruningSettingsPanel).FIELDS] == [f.key for f in SETTING_FIELDS]


@pytest.mark.anyio
async def test_replayed_projections_show_as_already_pruned(tmp_path, monkeypatch, ui):
    session, touch = _session(tmp_path, monkeypatch, marker=True)
    pilot = await ui.run(make_app(session, touch, rules=NEW, now_ms=touch + 1000), SIZE)  # gate closed
    screen = await settle(pilot)
    want = build_preview(session, PreviewOptions(now_ms=touch + 1000, config=CONFIG, context_window=WINDOW), rules=NEW)
    assert screen.preview.to_json() == want.to_json() and not want.gate.open
    listed = screen.query_one(PruningMessageList)
    assert listed.indexes == [2]
    row = listed.get_option_at_index(0).prompt.plain
    assert "cleared ↺" in row
    assert "already pruned by earlier rounds" in str(screen.query_one("#pruning-status").render())
