"""One home per rule: each rule, constant and table of the engine is written once and imported everywhere else.

The call sites are checked against the rule they import (a copy that drifts answers differently on the generated
strings), and the sources are scanned for a second definition of the names and values that used to be written
two to four times (the chars-per-token 4, `SAFETY_MARGIN`, `MIN_MESSAGES_FOR_SPLIT`, the early thresholds, the
JavaScript whitespace class, the heartbeat token, the reserve rule, the price table).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT
from heartbeat_cases import PINNED, generated_texts

from inspector.js.utf16 import JS_WHITESPACE
from inspector.rules.openclaw_2026_4_12.compaction.boundary import has_meaningful_text
from inspector.rules.openclaw_2026_4_12.heartbeat import strip_heartbeat_token
from inspector.write.truncate import is_heartbeat_ok_response

ENGINE = ROOT / "inspector"
UI = ROOT / "widgets"
RELEASE = ENGINE / "rules" / "openclaw_2026_4_12"


def _sources() -> list[Path]:
    return sorted([*ENGINE.rglob("*.py"), *UI.rglob("*.py")])


def _top_level_assignments(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _defined_functions(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)}


ACKS = (0, 1, 2, 4, 6, 8, 300)
TEXTS = [*PINNED, *generated_texts(2000, seed=7)]


def test_truncation_heartbeat_ack_is_the_rule():
    """`write/truncate.py` decides an ack by the release's `stripHeartbeatToken` in "heartbeat" mode."""
    wrong = []
    for raw in TEXTS:
        for ack in ACKS:
            expected = strip_heartbeat_token(raw, mode="heartbeat", max_ack_chars=ack).should_skip
            for content in (raw, [{"type": "text", "text": raw}]):
                if is_heartbeat_ok_response({"role": "assistant", "content": content}, ack, strip_heartbeat_token) is not expected:
                    wrong.append((raw, ack, expected))
    assert not wrong, f"{len(wrong)} answers differ from the rule, first: {wrong[:3]}"


def test_boundary_meaningful_text_uses_the_rule():
    """The boundary compaction's `hasMeaningfulText` reads the same `stripHeartbeatToken` (message mode)."""
    stripped = [(raw, r) for raw in TEXTS if (r := strip_heartbeat_token(raw, mode="message")).did_strip]
    assert len(stripped) > 500
    wrong = [raw for raw, r in stripped if has_meaningful_text(raw) is not bool(r.text)]
    assert not wrong, wrong[:3]


# name -> the one module (relative to inspector/) allowed to assign it at top level
ONE_HOME = {
    "CHARS_PER_TOKEN_ESTIMATE": "rules/openclaw_2026_4_12/tokens/measure.py",
    "ESTIMATED_CHARS_PER_TOKEN": None,
    "SAFETY_MARGIN": "rules/openclaw_2026_4_12/compaction/safeguard.py",
    "MIN_MESSAGES_FOR_SPLIT": "rules/openclaw_2026_4_12/compaction/safeguard.py",
    "DEFAULT_EARLY_THRESHOLDS": "rules/openclaw_2026_4_12/compaction/triggers.py",
    "DEFAULT_EARLY_FRACTIONS": None,
    "HEARTBEAT_TOKEN": "rules/openclaw_2026_4_12/heartbeat.py",
    "HEARTBEAT_PROMPT": "rules/openclaw_2026_4_12/heartbeat.py",
    "DEFAULT_HEARTBEAT_ACK_MAX_CHARS": "rules/openclaw_2026_4_12/heartbeat.py",
    "JS_WHITESPACE": "js/utf16.py",
    "JS_WHITESPACE_CLASS": "js/utf16.py",
    "TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE": "rules/openclaw_2026_4_12/tokens/estimators.py",
    "PI_DEFAULT_RESERVE_TOKENS": None,
    "OPENCLAW_RESERVE_TOKENS_FLOOR": None,
    "DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR": "rules/openclaw_2026_4_12/compaction/settings.py",
}


@pytest.mark.parametrize("name", sorted(ONE_HOME))
def test_constant_has_one_home(name):
    homes = [str(p.relative_to(ENGINE)) for p in _sources() if p.is_relative_to(ENGINE) and name in _top_level_assignments(p)]
    homes += [str(p.relative_to(ROOT)) for p in _sources() if p.is_relative_to(UI) and name in _top_level_assignments(p)]
    expected = [ONE_HOME[name]] if ONE_HOME[name] else []
    assert homes == expected, f"{name} is defined in {homes}; its one home is {expected or 'none (a retired twin)'}"


# function -> the one module (relative to inspector/) allowed to define it (None: a retired copy; a list: one module per
# release folder whose release changed the rule, never a copy of an unchanged one)
RULE_FUNCTIONS: dict[str, str | list[str] | None] = {
    "strip_token_at_edges": "rules/openclaw_2026_4_12/heartbeat.py",
    "_strip_token_at_edges": None,
    "strip_heartbeat_token": "rules/openclaw_2026_4_12/heartbeat.py",
    "resolve_reserve_tokens": ["rules/openclaw_2026_4_12/compaction/settings.py", "rules/openclaw_2026_9_6/compaction/settings.py"],
    "compaction_reserve": None,
    "load_price_table": None,
    "js_trim": "js/utf16.py",
    "js_trim_start": "js/utf16.py",
    "js_trim_end": "js/utf16.py",
    "cost_of": "rules/openclaw_2026_4_12/model_catalog.py",
}


@pytest.mark.parametrize("name", sorted(RULE_FUNCTIONS))
def test_rule_function_has_one_home(name):
    homes = [str(p.relative_to(ENGINE)) for p in _sources() if p.is_relative_to(ENGINE) and name in _defined_functions(p)]
    homes += [str(p.relative_to(ROOT)) for p in _sources() if p.is_relative_to(UI) and name in _defined_functions(p)]
    home = RULE_FUNCTIONS[name]
    expected = home if isinstance(home, list) else [home] if home else []  # a list: one home per release that changed it
    assert sorted(homes) == sorted(expected), f"{name} is defined in {homes}; its one home is {expected or 'none (a retired copy)'}"


def test_js_whitespace_is_written_once():
    """No module but `inspector/js/` spells JavaScript's whitespace set (it is `JS_WHITESPACE`/`JS_WHITESPACE_CLASS`)."""
    markers = ("\\u00a0", "\\ufeff", "\\u3000", "\\u1680", "\u00a0", "\ufeff", "\u3000", "\u1680")
    offenders = []
    for path in _sources():
        if path.is_relative_to(ENGINE / "js"):
            continue
        text = path.read_text(encoding="utf-8")
        if sum(m in text for m in markers) >= 2:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"JavaScript's whitespace spelled again in {offenders}"
    assert len(JS_WHITESPACE) == 25


def test_python_whitespace_not_used_where_javascript_trims():
    """The release's ports trim and split with JavaScript's whitespace, never Python's `\\s` or bare `strip()`."""
    offenders = []
    for path in sorted(RELEASE.rglob("*.py")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if "not a JS trim" in line:  # our own lookups, no port of OpenClaw's
                continue
            if re.search(r'r"[^"]*\\s', code) or re.search(r"\.(strip|lstrip|rstrip)\(\)|\.isspace\(\)", code):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_cost_reads_prices_only_from_the_release_catalog():
    """The cost figures price calls from the release's model catalog: no price file, table or lookup of their own."""
    from inspector.figures.diagnosis import calls, cost
    from inspector.figures.diagnosis.calls import walk_calls
    from inspector.rules.ruleset import known_rule_ids, rule_set
    from inspector.session.session import open_session

    source = Path(cost.__file__).read_text(encoding="utf-8")
    for own in ("prices.json", "resources", "import json", "_FALLBACK_PROVIDER_ORDER", "def lookup", "def cost_of("):
        assert own not in source, f"cost.py has a {own!r} of its own"
    assert "load_catalog" not in source  # the caller hands it the session's catalog
    assert "rules.model_catalog.load_catalog()" in Path(calls.__file__).read_text(encoding="utf-8")
    session = open_session(ENGINE / "data" / "demo-session.jsonl")
    walked = walk_calls(session, session.context()).calls
    table = rule_set(session.rules_id).model_catalog.load_catalog()
    keys = [(found.key if (found := table.lookup(c.provider, c.model)) else None) for c in walked]
    assert walked and any(keys) and [c.cost.price_key for c in walked] == keys
    data_files = sorted(p.relative_to(ENGINE) for p in ENGINE.rglob("*.json"))
    own_catalogs = sorted(Path("rules", rules.package.rsplit(".", 1)[1], "model_catalog.json")
                          for rules in map(rule_set, known_rule_ids()) if rules.owns("model_catalog"))
    assert own_catalogs[0] == Path("rules/openclaw_2026_4_12/model_catalog.json")
    assert data_files == own_catalogs, data_files  # one catalog per release that has its own


def test_model_ids_are_written_only_in_the_catalog():
    """No module spells a catalog of models again (a model id only a release's table holds, outside its data file)."""
    rare = ("gpt-5.3-codex-spark", "claude-3-5-haiku-20241022", "grok-3-mini-fast", "amazon.nova-2-lite-v1:0",
            "deepseek-v4-pro:0813", "grok-4.20-0309-non-reasoning", "meta-llama/Llama-3.3-70B-Instruct-Turbo")
    offenders = [str(p.relative_to(ROOT)) for p in _sources() if any(r in p.read_text(encoding="utf-8") for r in rare)]
    assert not offenders, offenders


@pytest.mark.parametrize(
    "compaction",
    [None, {"reserveTokens": 30000}, {"reserveTokens": 5000}, {"reserveTokensFloor": 0}, {"reserveTokensFloor": 25000.5}, {"reserveTokens": "x"}],
)
def test_timeline_and_plan_give_one_reserve(tmp_path, compaction):
    """`timeline --json` and `plan --json` show the reserve of the one rule: same value, same source."""
    from test_diagnosis_fixtures import build_runaway

    from inspector.figures.diagnosis.timeline import TimelineOptions, build_timeline
    from inspector.figures.forecast.plan import PlanOptions, plan_compaction
    from inspector.figures.session_figures import WindowOptions
    from inspector.session.session import open_session

    build_runaway(tmp_path / "s.jsonl")
    config = {"agents": {"defaults": {"compaction": compaction}}} if compaction is not None else {}
    s = open_session(tmp_path / "s.jsonl")
    timeline = build_timeline(s, s.context(), TimelineOptions(window=WindowOptions(config=config))).to_json()["compaction_reserve"]
    plan = plan_compaction(s, s.context(), PlanOptions(config=config)).to_json()["settings"]["reserveTokens"]
    assert (timeline["reserve_tokens"], timeline["source"], timeline["floor"]) == (plan["value"], plan["source"], plan["floor"])
