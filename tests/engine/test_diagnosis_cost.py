"""Per-call cost: recorded `usage.cost`, or the bundled price table, computed exactly as pi-ai's `calculateCost`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from inspector.figures.diagnosis.cost import COST_PRICE_TABLE, COST_RECORDED, COST_UNKNOWN, cost_of_call
from inspector.figures.diagnosis.timeline import build_timeline
from inspector.rules.openclaw_2026_4_12.model_catalog import load_catalog, window_catalog
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage
from inspector.session.session import open_session

CATALOG = load_catalog()
"""2026.4.12's price table (what a session of that release is priced with)."""


def test_price_table_is_dated_and_sourced():
    table = load_catalog()
    info = table.describe()
    assert "pi-ai 0.66.1" in info["source"] and info["units"] == "USD per 1,000,000 tokens"
    assert info["source_published"] == "2026-05-15" and info["extracted"]
    assert info["models"] > 800


def test_the_window_step_reads_the_same_catalog_entries():
    """The window step's models are entries of the one catalog (the same rows: prices and window together)."""
    table = load_catalog()
    for km in window_catalog().models:
        assert table.by_key[(km.provider, km.model_id)] == km, km.key


def test_lookup_order():
    table = load_catalog()
    assert table.lookup("anthropic", "claude-sonnet-4-5").key == "anthropic/claude-sonnet-4-5"
    assert table.lookup("Anthropic ", "claude-sonnet-4-5").key == "anthropic/claude-sonnet-4-5"
    assert table.lookup("my-proxy", "claude-sonnet-4-5").key == "anthropic/claude-sonnet-4-5"
    assert table.lookup("anthropic", "no-such-model") is None
    assert table.lookup(None, None) is None


def usage(i, o, cr, cw, cost=None):
    u = {"input": i, "output": o, "cacheRead": cr, "cacheWrite": cw, "totalTokens": i + o + cr + cw}
    if cost is not None:
        u["cost"] = cost
    return u


def test_recorded_cost_wins():
    u = make_usage(1000, 200, 5000, 300)
    c = cost_of_call(u, "anthropic", "claude-sonnet-4-5", CATALOG)
    assert c.source == COST_RECORDED and c.total == u["cost"]["total"] and c.cache_write == u["cost"]["cacheWrite"]


def test_missing_cost_priced_like_calculate_cost():
    c = cost_of_call(usage(1000, 200, 5000, 300), "anthropic", "claude-sonnet-4-5", CATALOG)
    expected = (3 / 1000000) * 1000 + (15 / 1000000) * 200 + (0.3 / 1000000) * 5000 + (3.75 / 1000000) * 300
    assert c.source == COST_PRICE_TABLE and c.total == expected and c.price_key == "anthropic/claude-sonnet-4-5"
    assert c.cache_write == (3.75 / 1000000) * 300


def test_recorded_zero_contradicted_by_the_table():
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    c = cost_of_call(usage(1000, 10, 0, 0, zero), "anthropic", "claude-sonnet-4-5", CATALOG)
    assert c.source == COST_PRICE_TABLE and c.recorded_total == 0 and c.total > 0
    free = cost_of_call(usage(1000, 10, 0, 0, zero), "ollama", "llama3-local", CATALOG)
    assert free.source == COST_RECORDED and free.total == 0


def test_unknown_model_without_cost():
    c = cost_of_call(usage(10, 10, 0, 0), "ollama", "llama3-local", CATALOG)
    assert c.source == COST_UNKNOWN and c.total == 0 and c.price_key is None


def test_session_cost_split(tmp_path):
    b = SessionBuilder(seed=9)
    b.header()
    b.user("a")
    b.assistant("b", usage=make_usage(100, 10, 0, 0))
    b.user("c")
    b.assistant("d", usage=usage(200, 10, 0, 0))
    b.user("e")
    b.assistant("f", usage=usage(300, 10, 0, 0), provider="ollama", model="llama3-local")
    b.write(tmp_path / "s.jsonl")
    s = open_session(tmp_path / "s.jsonl")
    tl = build_timeline(s, s.context())
    cost = tl.cost.to_json()
    assert (cost["recorded_calls"], cost["price_table_calls"], cost["unknown_calls"]) == (1, 1, 1)
    assert [c["cost_source"] for c in tl.to_json()["calls"]] == ["recorded", "price_table", "unknown"]
    assert cost["total"] == pytest.approx(make_usage(100, 10)["cost"]["total"] + (3 * 200 + 15 * 10) / 1e6)
    assert cost["price_table_source"]["extracted"]


# -------------------------------------------------------------------------------------- pi-ai itself, via node


def _pi_ai_dir() -> Path:
    base = Path(os.environ.get("PI_ORACLE_DIR", Path.home() / ".cache" / "session-inspector" / "pi-oracle"))
    return base / "node_modules" / "@mariozechner" / "pi-ai"


def test_calculate_cost_matches_pi_ai_bit_for_bit():
    node = shutil.which("node")
    pkg = _pi_ai_dir()
    if node is None:
        pytest.skip("node is not installed: cannot run pi-ai's calculateCost")
    if not (pkg / "dist" / "models.js").exists():
        pytest.skip(f"pi-ai is not installed at {pkg} (set PI_ORACLE_DIR; `make oracle` installs it)")
    cases = [
        ("anthropic", "claude-sonnet-4-5", usage(3, 1234, 98765, 4321)),
        ("anthropic", "claude-opus-4-5", usage(17, 999, 123457, 33333)),
        ("openai", "gpt-4o-mini", usage(12345, 678, 9012, 0)),
        ("google", "gemini-2.5-pro", usage(7, 77, 777, 7777)),
    ]
    script = (
        f"import {{ getModel, calculateCost }} from {json.dumps(str(pkg / 'dist' / 'index.js'))};\n"
        "const cases = JSON.parse(process.argv[1]);\n"
        "const out = cases.map(([p, id, u]) => { const m = getModel(p, id);"
        " if (!m) return null; const usage = {...u, cost: {}}; return calculateCost(m, usage); });\n"
        "console.log(JSON.stringify(out));\n"
    )
    r = subprocess.run([node, "--input-type=module", "-e", script, json.dumps(cases)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    expected = json.loads(r.stdout)
    for (provider, model, u), want in zip(cases, expected):
        assert want is not None, f"pi-ai has no {provider}/{model}"
        got = cost_of_call(u, provider, model, CATALOG)
        assert got.source == COST_PRICE_TABLE
        assert got.total == want["total"], (provider, model)
        assert got.cache_write == want["cacheWrite"]
