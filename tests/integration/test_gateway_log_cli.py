"""`timeline` and `plan` with OpenClaw's Gateway log: the `gateway` section with a log, none without, the text
output, `--gateway-log`, a store session's key, and a memo that never replays an output the log has changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT
from gateway_log_support import compaction_end, compaction_start, log_line, loop_abort, overflow_diag, precheck, write_log
from inprocess import run_cli
from test_diagnosis_fixtures import build_runaway

KEY = "agent:main:main"
SID = "8a186f4a-4c11-4daf-899f-d7e80dfe1faf"
T0 = 1767323045680


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / "no-state"), PYTHONPATH=str(ROOT), COLUMNS="220")
    env.pop("OPENCLAW_CONFIG_PATH", None)
    env.pop("OPENCLAW_PROFILE", None)
    return env


@pytest.fixture
def setup(tmp_path: Path):
    """A session with its `sessions.json` key, a config whose `logging.file` is `gw.log` (absent yet)."""
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    session = folder / f"{SID}.jsonl"
    build_runaway(session)
    (folder / "sessions.json").write_text(json.dumps({KEY: {"sessionId": SID, "updatedAt": 1}}))
    log = tmp_path / "logs" / "gw.log"
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps({"logging": {"file": str(log)}}))
    return session, config, log, tmp_path


def _lines() -> list[str]:
    return [
        log_line(T0 - 5, precheck(KEY, estimate=4900, route="fits"), level="DEBUG"),
        log_line(T0 + 10, overflow_diag(KEY), level="WARN"),
        log_line(T0 + 408000, compaction_start(KEY), level="DEBUG"),
        log_line(T0 + 408500, compaction_end(KEY), level="DEBUG"),
        log_line(T0 + 409000, precheck("agent:main:other")),
        log_line(T0 + 999999, loop_abort(KEY, SID), subsystem="diagnostic", level="ERROR"),
    ]


def _json(*args: object, home: Path) -> dict:
    r = run_cli(args, env=_env(home))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_no_log_no_section(setup):
    session, config, _, home = setup
    assert "gateway" not in _json("timeline", session, "--json", "--config", config, home=home)
    assert "gateway" not in _json("plan", session, "--json", "--config", config, home=home)
    # a log of other sessions only: still nothing
    write_log(home / "logs" / "gw.log", [log_line(T0, precheck("agent:main:other"))])
    assert "gateway" not in _json("timeline", session, "--json", "--config", config, "--no-cache", home=home)


def test_timeline_json_places_the_events(setup):
    session, config, log, home = setup
    write_log(log, _lines())
    data = _json("timeline", session, "--json", "--config", config, home=home)
    gw = data["gateway"]
    assert gw["session_key"] == KEY and gw["session_id"] == SID and gw["files"] == [str(log)]
    assert [(e["kind"], e["call_index"], e["relation"]) for e in gw["events"]] == [
        ("overflow_precheck", 0, "before"), ("overflow", 0, "after"), ("compaction_attempt", 6, "before"),
        ("compaction_result", 6, "before"), ("loop_abort", 7, "after"),
    ]
    assert gw["events"][0]["entry_id"] == data["calls"][0]["entry_id"]
    kinds = {d["kind"] for d in gw["disagreements"]}
    assert kinds == {"precheck_vs_recorded", "compaction_unpredicted"}
    assert gw["diagnostics"] == []


def test_timeline_text_shows_the_log(setup):
    session, config, log, home = setup
    write_log(log, [*_lines(), '{"1": "sessionKey=' + KEY + ' broken'])
    r = run_cli(("timeline", session, "--config", config), env=_env(home))
    assert r.returncode == 0, r.stderr
    assert "OpenClaw's Gateway log (5 event(s) of agent:main:main; 1 file(s))" in r.stdout
    assert "route fits; estimated_prompt_tokens 4,900" in r.stdout
    assert "disagreement: OpenClaw estimated 4,900 prompt tokens before call 0; the provider counted 5,000" in r.stdout
    assert f"gateway log: {log} line 7: not JSON; skipped" in r.stdout


def test_plan_sets_the_log_beside_the_forecast(setup):
    session, config, log, home = setup
    write_log(log, _lines())
    data = _json("plan", session, "--json", "--config", config, home=home)
    gw = data["gateway"]
    assert gw["last_precheck"]["figures"]["estimated_prompt_tokens"] == 4900 and gw["same_context"] is False
    assert gw["last_compaction"]["figures"]["outcome"] == "compacted"
    product = data["triggers"]["pre_prompt"]["estimated_prompt_tokens"]
    est = next(d for d in gw["disagreements"] if d["kind"] == "estimated_prompt_tokens")
    assert (est["openclaw"], est["product"], est["difference"]) == (4900, product, 4900 - product)
    assert any(d["kind"] == "compaction_unpredicted" for d in gw["disagreements"])
    r = run_cli(("plan", session, "--config", config), env=_env(home))
    assert r.returncode == 0, r.stderr
    assert "OpenClaw's Gateway log: 5 event(s) of agent:main:main in 1 file(s)" in r.stdout
    assert "last compaction" in r.stdout and "disagreement: OpenClaw estimated 4,900 prompt tokens" in r.stdout


def test_explicit_gateway_log_is_always_shown(setup):
    session, _, _, home = setup
    other = write_log(home / "elsewhere" / "openclaw-2026-01-02.log", _lines())
    data = _json("timeline", session, "--json", "--gateway-log", other.parent, home=home)
    assert len(data["gateway"]["events"]) == 5
    empty = _json("timeline", session, "--json", "--gateway-log", home / "none.log", home=home)
    assert empty["gateway"] == {"files": [], "session_key": KEY, "session_id": SID, "events": [], "disagreements": [], "diagnostics": []}


def test_a_memo_is_not_replayed_once_the_log_changed(setup):
    session, config, log, home = setup
    args = ("timeline", session, "--json", "--config", config)
    first = _json(*args, home=home)
    assert "gateway" not in first and _json(*args, home=home) == first  # the second run replays the memo
    write_log(log, _lines()[:1])
    assert len(_json(*args, home=home)["gateway"]["events"]) == 1
    write_log(log, _lines())
    assert len(_json(*args, home=home)["gateway"]["events"]) == 5
