"""The timeline's attribution, flags and savings for the sessions of every supported source and rule set (issue 25,
part 5): an OpenClaw SQLite store session gives the figures its JSONL gives under the same rules, and each of the three
rule sets splits the demo's gap, flags its Chinese page where the rules' estimator undercounts it (pi's chars/4; not
2026.9.6's agent core, whose estimate weighs CJK characters), never its screenshot, and projects the savings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT
from inprocess import run_cli
from store_support import build_store

from inspector.rules.ruleset import known_rule_ids

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
KEY = "agent:main:main"
CJK_PAGE = "606f54e6"
SCREENSHOT = "f62bcbc8"
RULES = ("openclaw-2026.4.12", "openclaw-2026.9.6", "pi-0.73.1")


def timeline(home: Path, *args) -> dict:
    env = dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / ".openclaw"))
    r = run_cli(["timeline", *(str(a) for a in args), "--json"], env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def check_split(data: dict, cjk_flagged: bool) -> None:
    """The split adds up per call, the Chinese page is flagged (or not), the screenshot is not, the savings are there."""
    calls = [c for c in data["calls"] if c["prompt_tokens"] > 0]
    assert calls and all(c["overhead_tokens"] + c["estimator_error_tokens"] == c["not_in_transcript"] for c in calls)
    at = data["attribution"]
    assert at["method"] == "tokenizer_ratio" and at["tokenizer"]["image_messages"] >= 1
    flagged = {x["entry_id"]: x for x in at["misestimated"]}
    assert SCREENSHOT not in flagged
    if cjk_flagged:
        assert flagged[CJK_PAGE]["direction"] == "under" and flagged[CJK_PAGE]["ratio"] > 3
    else:
        assert CJK_PAGE not in flagged
        page = next(c for j in data["jumps"] for c in j["causes"] if c["entry_id"] == CJK_PAGE)
        assert page["estimate_tokens"] > page["tokenizer_tokens"] / 1.5
    assert at["trend_tolerance"]["rationale"] and at["overhead_per_message"] is not None
    assert [s["name"] for s in data["savings"]["scenarios"]] == ["as_is", "with_pruning", "compacted_now"]


def test_the_three_rule_sets_are_all_covered():
    assert set(RULES) == set(known_rule_ids())


@pytest.mark.parametrize("rules", RULES)
def test_every_rule_set_splits_flags_and_projects(tmp_path, rules):
    data = timeline(tmp_path, DEMO, "--rules", rules)
    assert data["rules"]["id"] == rules
    check_split(data, cjk_flagged=rules != "openclaw-2026.9.6")


def test_a_store_session_gives_its_jsonls_figures(tmp_path):
    store, _ = build_store(tmp_path, {KEY: DEMO})
    on_store = timeline(tmp_path, store, "--session", KEY)
    assert on_store["source"]["kind"] == "sqlite" and on_store["source"]["session_key"] == KEY
    check_split(on_store, cjk_flagged=on_store["rules"]["id"] != "openclaw-2026.9.6")
    on_file = timeline(tmp_path, DEMO, "--rules", on_store["rules"]["id"])
    for key in ("attribution", "savings", "jumps", "calls"):
        assert on_store[key] == on_file[key], key
