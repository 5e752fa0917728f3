"""Lines Node's `JSON.parse` accepts are read, not dropped with a false "pi skips it too" (issue 14).

Each case was checked with node (`JSON.parse`); with `PI_ORACLE_DIR`-independent node present, the test also
asks node itself.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
from conftest import assistant, header, msg, user, write_lines

from inspector.read.records import decode_line
from inspector.session.session import open_session

ACCEPTED = [
    (rb'{"a":"\ud800"}', {"a": "\ud800"}),
    (rb'{"a":"x\udfff y"}', {"a": "x\udfff y"}),
    (b'{"a":1e400}', {"a": math.inf}),
    (b'{"a":-1e400}', {"a": -math.inf}),
    (b'{"a":99999999999999999999999}', {"a": 1e23}),
    (b"[" * 3000 + b"]" * 3000, None),
]
REJECTED = [b'{"a":NaN}', b'{"a":Infinity}', b'{"a":-Infinity}', b'{"a":"\x01"}', b"{bad"]


@pytest.mark.parametrize("line,expected", ACCEPTED)
def test_accepted_like_json_parse(line, expected):
    value, _ = decode_line(line)
    if expected is not None:
        assert value == expected
    else:
        depth = 0
        while isinstance(value, list) and value:
            value, depth = value[0], depth + 1
        assert depth == 2999


@pytest.mark.parametrize("line", REJECTED)
def test_rejected_like_json_parse(line):
    with pytest.raises(ValueError):
        decode_line(line)


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_node_agrees():
    script = "const ls=JSON.parse(require('fs').readFileSync(0,'utf8'));" \
             "console.log(JSON.stringify(ls.map(l=>{try{JSON.parse(l);return true}catch(e){return false}})))"
    lines = [x.decode("utf-8", "surrogatepass") for x, _ in ACCEPTED] + [x.decode() for x in REJECTED]
    out = subprocess.run(["node", "-e", script], input=json.dumps(lines), capture_output=True, text=True, timeout=60)
    assert json.loads(out.stdout) == [True] * len(ACCEPTED) + [False] * len(REJECTED)


def test_session_keeps_such_lines(tmp_path):
    text = user("x")
    line = json.dumps(msg("u2", "u1", {**text, "content": [{"type": "text", "text": "@@"}]})).replace("@@", "\\ud83d lone")
    big = json.dumps(msg("a1", "u2", assistant("ok"))).replace('"timestamp": 1767225602000', '"timestamp": 1e400')
    p = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, user("go")), line, big])
    s = open_session(p)
    assert [e.id for e in s.entries if e.id] == ["u1", "u2", "a1"]
    assert not [d for d in s.all_diagnostics() if "pi skips it too" in d.message]
    assert len(s.context().messages) == 3


def test_too_deep_says_so_without_blaming_pi(tmp_path):
    p = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, user("go")), "[" * 20000 + "]" * 20000])
    diags = [d for d in open_session(p).all_diagnostics() if d.kind == "unparseable"]
    assert diags and "pi skips it too" not in diags[0].message and "JSON.parse" in diags[0].message
