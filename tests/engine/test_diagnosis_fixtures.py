"""Hand-built sessions for the diagnosis tests, with every expected figure worked out below (and checked here).

`build_runaway(path)` writes this session (pi chars/4 = `ceil(chars / 4)` per message; prompt = input + cacheRead +
cacheWrite, usage written explicitly with `make_usage(input, output, cacheRead, cacheWrite)`, Sonnet 4.5 prices):

| call | entry | what is added before it (pi tokens) | usage (in, out, cr, cw) | prompt | transcript |
|---|---|---|---|---|---|
| 0 | A1 read src/app.py | U1 user 400 chars = 100 | 5000, 50, 0, 0 | 5000 | 100 |
| 1 | A2 read src/app.py again | A1 (`read` 4 + `{"path":"src/app.py"}` 21 = 25 chars) = 7; R1 8000 chars = 2000 | 7, 50, 5000, 2100 | 7107 | 2107 |
| 2 | A3 exec npm test | A2 = 7; R2 same 8000 chars = 2000 | 14, 50, 7100, 2000 | 9114 | 4114 |
| 3 | A4 exec npm test again | A3 (`exec` 4 + `{"command":"npm test"}` 22) = 7; R3 error 29 chars = 8 | 15, 50, 9000, 114 | 9129 | 4129 |
| 4 | A5 exec cat big.log (after 400 s idle) | A4 = 7; R4 error 29 chars = 8 | 10, 50, 0, 9134 | 9144 | 4144 |
| 5 | A6 "d" | A5 (4 + `{"command":"cat big.log"}` 25) = 8; R5 40000 chars = 10000 | 2, 20, 9144, 10006 | 19152 | 14152 |
| - | G openclaw/gateway-injected, zero usage: skipped (synthetic) | | | | |
| - | U2 user 200 chars = 50; compaction K (summary 400 chars = 100, first kept U2) | | | | |
| 6 | A7 20 chars | summary 100 + U2 50 | 5150, 30, 0, 0 | 5150 | 150 |
| - | A8 aborted, zero usage: skipped (zero usage) and not sent | | | | |
| - | U3 user 40 chars = 10; an abandoned sibling answer X (off the path: U3 is a branch point) | | | | |
| 7 | A9 | A7 20 chars = 5; A8 (unsent); U3 10 | 15, 10, 5150, 0 | 5165 | 165 |

So `not_in_transcript` is 4900 for call 0 and 5000 for every other call. Jumps (prompt increases), largest first:
call 5 +10008 (causes R5 10000, A5 8), call 1 +2107 (R1 2000, A1 7), call 2 +2007 (R2 2000, A2 7), then the
+15s in call order: call 3 (R3 8, A3 7), call 4 (R4 8, A4 7), call 7 (U3 10, A7 5; A8 is not sent).

Repeats: `file_reread` of `<cwd>/src/app.py` (R1, R2; tokens 2000), `retry_after_failure` of exec npm test (A3, A4;
tokens = R4 = 8), `command_repeat` npm test (R3, R4; 8), `error_repeat` "Error: exit code # at line #" (R3, R4; 8).
The 8-token ties rank by first line: A3 comes before R3; command_repeat and error_repeat both start at R3.

Cache: Σ prompt = 68961, Σ cacheRead = 35394, hit ratio 0.5132. Call 4 follows a 400 s gap (> the 5 min TTL) with
cacheWrite 9134: an expiry write, rewritten = min(9134, 9000 + 114) = 9114, cost 9134 × 3.75 / 1e6 = 0.0342525.
"""

from __future__ import annotations

import json
from pathlib import Path

from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage, zero_usage
from inspector.session.session import open_session

CWD = "/home/user/.openclaw/workspace"
PROMPTS = [5000, 7107, 9114, 9129, 9144, 19152, 5150, 5165]
ESTIMATES = [100, 2107, 4114, 4129, 4144, 14152, 150, 165]


def build_runaway(path: Path) -> dict[str, str]:
    """Write the session of the module docstring to `path`; return its entry ids by name."""
    b = SessionBuilder(seed=13)
    b.header(cwd=CWD)
    ids: dict[str, str] = {}
    ids["U1"] = b.user("u" * 400)
    ids["A1"] = b.assistant([b.tool_call("read", {"path": "src/app.py"})], usage=make_usage(5000, 50))
    ids["R1"] = b.tool_result(b.last_tool_call_ids[0], "read", "x" * 8000)
    ids["A2"] = b.assistant([b.tool_call("read", {"path": "src/app.py"})], usage=make_usage(7, 50, 5000, 2100))
    ids["R2"] = b.tool_result(b.last_tool_call_ids[0], "read", "x" * 8000)
    ids["A3"] = b.assistant([b.tool_call("exec", {"command": "npm test"})], usage=make_usage(14, 50, 7100, 2000))
    ids["R3"] = b.tool_result(b.last_tool_call_ids[0], "exec", "Error: exit code 1 at line 12", is_error=True)
    ids["A4"] = b.assistant([b.tool_call("exec", {"command": "npm test"})], usage=make_usage(15, 50, 9000, 114))
    ids["R4"] = b.tool_result(b.last_tool_call_ids[0], "exec", "Error: exit code 1 at line 13", is_error=True)
    b.wait(400_000)
    ids["A5"] = b.assistant([b.tool_call("exec", {"command": "cat big.log"})], usage=make_usage(10, 50, 0, 9134))
    ids["R5"] = b.tool_result(b.last_tool_call_ids[0], "exec", "y" * 40000)
    ids["A6"] = b.assistant("d", usage=make_usage(2, 20, 9144, 10006))
    ids["G"] = b.assistant("g" * 8, usage=zero_usage(), provider="openclaw", model="gateway-injected", response_id=None)
    ids["U2"] = b.user("v" * 200)
    ids["K"] = b.compaction("s" * 400, ids["U2"], 19200)
    ids["A7"] = b.assistant("k" * 20, usage=make_usage(5150, 30))
    ids["A8"] = b.assistant("partial", usage=zero_usage(), stop_reason="aborted")
    ids["U3"] = b.user("w" * 40)
    ids["X"] = b.assistant("abandoned", usage=make_usage(5160, 5), advance_leaf=False)
    ids["A9"] = b.assistant("final", usage=make_usage(15, 10, 5150, 0))
    b.write(path)
    return ids


def build_over_window(path: Path) -> None:
    """One call whose prompt (130000) is 1.3 windows of 100000 tokens: over the window, with a window the guard
    finds perfectly fine (100000 >= 32000)."""
    b = SessionBuilder(seed=5)
    b.header(cwd=CWD)
    b.user("hello")
    b.assistant("hi", usage=make_usage(100, 20, 129900, 0))
    b.write(path)


def write_config(path: Path, compaction: dict | None = None, pruning: dict | None = None) -> Path:
    """An `openclaw.json` with `agents.defaults.compaction` / `contextPruning` as given."""
    defaults: dict = {}
    if compaction is not None:
        defaults["compaction"] = compaction
    if pruning is not None:
        defaults["contextPruning"] = pruning
    path.write_text(json.dumps({"agents": {"defaults": defaults}}), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------- the fixture is what it claims


def test_runaway_messages_have_the_documented_pi_tokens(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    s = open_session(tmp_path / "s.jsonl")
    expected = {"U1": 100, "A1": 7, "R1": 2000, "A2": 7, "R2": 2000, "A3": 7, "R3": 8, "A4": 7, "R4": 8, "A5": 8, "R5": 10000,
                "A6": 1, "U2": 50, "K": 100, "A7": 5, "U3": 10}
    for name, tokens in expected.items():
        e = s.entry_by_id(ids[name])
        assert e is not None and e.estimates is not None
        assert e.estimates["pi"] == tokens, name


def test_runaway_shape(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    s = open_session(tmp_path / "s.jsonl")
    ctx = s.context()
    assert ctx.leaf_id == ids["A9"]
    on_path = {s.entries[i].id for i in ctx.path}
    assert ids["X"] not in on_path and ids["G"] in on_path and ids["A8"] in on_path
    assert [r.entry_id for r in ctx.messages] == [ids[n] for n in ("K", "U2", "A7", "A8", "U3", "A9")]
    assert ids["U3"] in {s.entries[i].id for i in s.tree.branch_points()}
