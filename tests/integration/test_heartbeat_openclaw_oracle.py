"""The heartbeat-token rule against OpenClaw's own `stripTokenAtEdges` / `stripHeartbeatToken`, run with node.

`tests/oracle/openclaw_heartbeat.mjs` lifts the two functions (with `HEARTBEAT_TOKEN` and `escapeRegExp`) out of
OpenClaw 2026.4.12's compiled `dist/` (`OPENCLAW_DIST_DIR`, default `~/.cache/session-inspector/openclaw-dist`,
fetched by `tests/oracle/install_openclaw_dist.sh`) and runs them on the same strings as
`inspector.rules.openclaw_2026_4_12.heartbeat`: the two strings on which the engine's two former copies disagreed,
and a generated set built from JavaScript's whitespace (and the characters Python alone calls whitespace), markup,
astral characters and lone surrogates. Skips with the reason where node or the dist is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from heartbeat_cases import MODES, PINNED, generated_texts, js_string

from inspector.rules.openclaw_2026_4_12.heartbeat import strip_heartbeat_token, strip_token_at_edges

HARNESS = ROOT / "tests" / "oracle" / "openclaw_heartbeat.mjs"
DIST = Path(os.environ.get("OPENCLAW_DIST_DIR", Path.home() / ".cache" / "session-inspector" / "openclaw-dist"))


def _skip_reason() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not DIST.is_dir():
        return f"OpenClaw 2026.4.12 dist not found at {DIST} (set OPENCLAW_DIST_DIR, or run tests/oracle/install_openclaw_dist.sh)"
    if not any(DIST.glob("heartbeat-*.js")) or not any(DIST.glob("tokens-*.js")) or not any(DIST.glob("utils-*.js")):
        return f"{DIST} lacks OpenClaw's heartbeat/tokens/utils chunks: run tests/oracle/install_openclaw_dist.sh {DIST} again"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def oracle(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run `cases` through OpenClaw's functions; one result per case."""
    proc = subprocess.run(["node", str(HARNESS), str(DIST)], input=json.dumps(cases), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out) == len(cases)
    return out


def ours(case: dict[str, Any]) -> dict[str, Any]:
    """Our rule's answer to one case, shaped like OpenClaw's result object."""
    if case["fn"] == "edges":
        text, did_strip = strip_token_at_edges(case["raw"])
        return {"text": js_string(text), "didStrip": did_strip}
    r = strip_heartbeat_token(case["raw"], mode=case["mode"], max_ack_chars=case["maxAckChars"])
    return {"shouldSkip": r.should_skip, "text": js_string(r.text), "didStrip": r.did_strip}


def cases_for(texts: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for raw in texts:
        out.append({"fn": "edges", "raw": raw})
        out.extend({"fn": "strip", "raw": raw, "mode": mode, "maxAckChars": ack} for mode, ack in MODES)
    return out


def assert_agree(cases: list[dict[str, Any]]) -> None:
    expected = oracle(cases)
    wrong = [(c, e, ours(c)) for c, e in zip(cases, expected) if ours(c) != e]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ from OpenClaw, first: {wrong[:3]}"


def test_the_two_strings_the_former_copies_disagreed_on():
    cases = cases_for(list(PINNED))
    expected = oracle(cases)
    # OpenClaw keeps U+001C-U+001F: its `trimStart` and `\s` are JavaScript's, not Python's.
    assert expected[0] == {"text": "\x1c done", "didStrip": True}
    assert expected[len(MODES) + 1] == {"text": "x\x1f\x1fy", "didStrip": True}
    assert_agree(cases)


def test_generated_strings_agree_with_openclaw():
    assert_agree(cases_for(generated_texts()))
