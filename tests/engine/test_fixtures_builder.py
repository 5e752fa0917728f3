"""SessionBuilder writes OpenClaw/pi v3 JSONL byte for byte as pi serializes it (spec §1.2, §1.3, §2)."""

from __future__ import annotations

import base64
import io
import re
import struct
import zlib

import orjson
import pytest
from conftest import bench_generator

from inspector.js.jsjson import js_stringify
from inspector.js.timeutil import ms_from_iso
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.png import png_base64
from inspector.samples.usage import make_usage, zero_usage

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
BASE = ["type", "id", "parentId", "timestamp"]
# pi SessionManager entry literals; custom/custom_message put their payload before id/parentId/timestamp.
ENTRY_KEYS = {
    "message": BASE + ["message"],
    "model_change": BASE + ["provider", "modelId"],
    "thinking_level_change": BASE + ["thinkingLevel"],
    "compaction": BASE + ["summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"],
    "branch_summary": BASE + ["fromId", "summary", "details", "fromHook"],
    "custom": ["type", "customType", "data", "id", "parentId", "timestamp"],
    "custom_message": ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"],
    "label": BASE + ["targetId", "label"],
    "session_info": BASE + ["name"],
}
# pi-ai / pi-agent-core message literals.
MESSAGE_KEYS = {
    "user": ["role", "content", "timestamp", "provenance"],
    "assistant": ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp", "responseId",
                  "errorMessage"],
    "toolResult": ["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"],
}


def assert_documented_order(obj: dict) -> None:
    """Keys appear in pi's order (optional keys may be absent, never reordered)."""
    if obj["type"] == "session":
        expected = ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    else:
        expected = ENTRY_KEYS[obj["type"]]
    keys = list(obj)
    assert keys == [k for k in expected if k in obj], (obj["type"], keys)
    if obj["type"] == "message":
        msg = obj["message"]
        mkeys = list(msg)
        assert mkeys == [k for k in MESSAGE_KEYS[msg["role"]] if k in msg], (msg["role"], mkeys)
        if msg["role"] == "assistant":
            assert list(msg["usage"]) == ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"]
            assert list(msg["usage"]["cost"]) == ["input", "output", "cacheRead", "cacheWrite", "total"]


def sample(seed: int = 1) -> SessionBuilder:
    b = SessionBuilder(seed=seed)
    b.header(cwd="/home/u/.openclaw/workspace")
    b.model_change("anthropic", "claude-sonnet-4-5")
    b.thinking_level_change("low")
    b.custom("model-snapshot", {"timestamp": b.now_ms, "provider": "anthropic", "modelApi": "anthropic-messages",
                                "modelId": "claude-sonnet-4-5"})
    u = b.user("Run the tests — 测试 😀")
    a = b.assistant([b.thinking("Plan: run npm test."), "Running.", b.tool_call("exec", {"command": "npm test"})])
    b.delivery_mirror("status: running tests")
    b.tool_result(b.last_tool_call_ids[0], "exec", "ok\n", details={"status": "completed", "exitCode": 0})
    b.assistant([b.thinking(redacted=True), "All green."])
    b.cache_ttl()
    b.custom_message("note", [b.text_block("remember"), b.image()], display=False, details={"k": 1})
    b.label(a, "tests ran")
    b.session_info("  demo  ")
    b.compaction("summary", a, 12345, details={"readFiles": [], "modifiedFiles": []}, from_hook=False)
    b.user([b.text_block("look"), b.image()])
    b.assistant("ok")
    b.branch_summary(u, "explored X")
    b.user("again")
    b.assistant("done", stop_reason="aborted", error_message="Request was aborted")
    return b


def test_every_line_is_compact_json_in_documented_key_order():
    text = sample().text()
    assert text.endswith("\n") and "\r" not in text
    lines = text.split("\n")[:-1]
    for line in lines:
        obj = orjson.loads(line)
        assert js_stringify(obj) == line  # re-serializing gives the same bytes: compact, raw non-ASCII, same order
        assert ": " not in line[:40] and ", " not in line[:40]
        assert_documented_order(obj)
    assert "测试 😀" in text and "\\u" not in text


def test_output_is_deterministic_for_a_seed_and_varies_with_it():
    assert sample(5).text() == sample(5).text()
    assert sample(5).text() != sample(6).text()


def test_ids_timestamps_and_message_timestamps():
    b = sample()
    objs = [orjson.loads(x) for x in b.text().splitlines()]
    header, entries = objs[0], objs[1:]
    assert header["version"] == 3 and re.fullmatch(r"[0-9a-f-]{36}", header["id"])
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    assert header["timestamp"] == "2026-01-02T03:04:05.678Z"
    times = [ms_from_iso(o["timestamp"]) for o in objs]
    assert all(ISO.match(o["timestamp"]) for o in objs) and times == sorted(times)
    for e in entries:
        if e["type"] == "message":
            ts = e["message"]["timestamp"]
            assert isinstance(ts, int) and ts <= ms_from_iso(e["timestamp"])
            if e["message"]["role"] == "assistant" and e["message"]["provider"] == "anthropic":
                assert ts < ms_from_iso(e["timestamp"])  # request start, before the reply is written


def test_ids_stay_unique_for_many_entries():
    b = SessionBuilder(seed=3)
    b.header()
    ids = {b.custom("x") for _ in range(20_000)}
    assert len(ids) == 20_000


def test_tree_operations_match_session_manager():
    b = SessionBuilder()
    b.header()
    u = b.user("hi")
    a = b.assistant([b.tool_call("read", {"path": "a"})])
    mirror = b.delivery_mirror("sent")
    assert b.leaf_id == a  # the mirror is written by another SessionManager: our leaf does not move
    r = b.tool_result(b.last_tool_call_ids[0], "read", "text")
    assert b.by_id(mirror)["parentId"] == a and b.by_id(r)["parentId"] == a
    b.branch(u)
    sibling = b.assistant("other")
    assert b.by_id(sibling)["parentId"] == u
    s = b.branch_summary(u, "left a branch")
    assert b.by_id(s)["parentId"] == u and b.by_id(s)["fromId"] == u
    root_summary = b.branch_summary(None, "from the start")
    assert b.by_id(root_summary)["parentId"] is None and b.by_id(root_summary)["fromId"] == "root"
    b.branch(None)
    assert b.by_id(b.user("new root"))["parentId"] is None
    assert [e["id"] for e in b.path(r)] == [u, a, r]


def test_optional_fields_are_omitted_not_null():
    b = SessionBuilder()
    b.header()
    u = b.user("x")
    b.compaction("s", u, 10)
    b.custom("state")
    b.label(u, None)
    b.session_info(None)
    b.tool_result("toolu_1", "read", "t")
    b.assistant("a", response_id=None)
    lines = b.text().splitlines()
    assert "null" not in "".join(lines[2:])
    comp, custom, label, info, result, asst = (orjson.loads(x) for x in lines[2:])
    assert "details" not in comp and "fromHook" not in comp and "data" not in custom
    assert "label" not in label and "name" not in info and "details" not in result["message"]
    assert "responseId" not in asst["message"]


def test_raw_line_is_verbatim_and_leaves_the_tree_alone():
    b = SessionBuilder()
    b.header()
    u = b.user("x")
    b.raw_line('{"type":"message","id":"trunc')
    b.raw_line("")
    assert b.leaf_id == u
    v = b.assistant("y")
    lines = b.text().split("\n")
    assert lines[2] == '{"type":"message","id":"trunc' and lines[3] == ""
    assert orjson.loads(lines[4])["parentId"] == u and orjson.loads(lines[4])["id"] == v


def test_streaming_to_a_sink_gives_the_same_bytes():
    sink = io.StringIO()
    a, b = SessionBuilder(seed=9), SessionBuilder(seed=9, sink=sink)
    for x in (a, b):
        x.header()
        x.user("hello")
        x.assistant([x.tool_call("exec", {"command": "ls"})])
        x.tool_result(x.last_tool_call_ids[0], "exec", "a\nb")
    assert sink.getvalue() == a.text()
    with pytest.raises(RuntimeError):
        b.text()


def test_usage_and_cost_follow_pi_ai():
    u = make_usage(3, 200, 10_000, 1_500)
    assert u["totalTokens"] == 11_703
    assert u["cost"]["input"] == (3 / 1000000) * 3 and u["cost"]["cacheRead"] == (0.3 / 1000000) * 10_000
    c = u["cost"]
    assert c["total"] == c["input"] + c["output"] + c["cacheRead"] + c["cacheWrite"]
    assert js_stringify(zero_usage()) == \
        '{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}'


def test_automatic_usage_reads_the_cache_within_ttl_and_resets_after_compaction():
    b = SessionBuilder(system_prompt_tokens=1000, prompt_cache_ttl_ms=300_000)
    b.header()
    u = b.user("x" * 3000)
    first = b.by_id(b.assistant("a"))["message"]["usage"]
    assert first["cacheRead"] == 0 and first["input"] + first["cacheWrite"] == 1000 + 1000  # 3000 chars ≈ 1000 tokens
    b.user("y" * 3000)
    second = b.by_id(b.assistant("b"))["message"]["usage"]
    prompt1 = first["input"] + first["cacheWrite"]
    assert second["cacheRead"] == prompt1 and second["input"] + second["cacheRead"] + second["cacheWrite"] > prompt1
    b.wait(301_000)
    b.user("z")
    cold = b.by_id(b.assistant("c"))["message"]["usage"]
    assert cold["cacheRead"] == 0
    b.compaction("short summary", b.leaf_id, cold["totalTokens"])
    b.user("after")
    after = b.by_id(b.assistant("d"))["message"]["usage"]
    assert after["cacheRead"] == 0 and after["input"] + after["cacheWrite"] < 1100
    assert u


def test_png_images_are_valid():
    data = png_base64(5, 3, [[x % 3 for x in range(5)] for _ in range(3)], [(0, 0, 0), (255, 0, 0), (0, 0, 255)])
    png = base64.b64decode(data)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, body = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc
        chunks[kind] = body
        pos += 12 + length
    assert struct.unpack(">II", chunks[b"IHDR"][:8]) == (5, 3)
    assert len(zlib.decompress(chunks[b"IDAT"])) == 3 * (1 + 3)  # filter byte + 5 pixels at 4 bits
    assert SessionBuilder.image()["mimeType"] == "image/png"


def test_bench_generator_is_deterministic_valid_and_mixed(tmp_path):
    gen = bench_generator()
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    stats = gen.generate(a, entries=1500, seed=3)
    gen.generate(b, entries=1500, seed=3)
    assert a.read_bytes() == b.read_bytes()
    assert stats.entries >= 1500 and stats.bytes == a.stat().st_size
    ids, types, calls, results = set(), set(), set(), set()
    for line in a.read_bytes().splitlines():
        obj = orjson.loads(line)
        assert_documented_order(obj)
        types.add(obj["type"] if obj["type"] != "custom" else obj["customType"])
        if obj["type"] == "session":
            continue
        assert obj["id"] not in ids and (obj["parentId"] is None or obj["parentId"] in ids)
        ids.add(obj["id"])
        msg = obj.get("message") or {}
        if msg.get("role") == "assistant":
            calls.update(b["id"] for b in msg["content"] if b["type"] == "toolCall")
        elif msg.get("role") == "toolResult":
            results.add(msg["toolCallId"])
    assert calls == results
    assert {"message", "compaction", "branch_summary", "model_change", "openclaw.cache-ttl", "model-snapshot"} <= types
    assert gen.parse_size("1GB") == 2**30 and gen.parse_size("512") == 512 and gen.parse_size("1.5M") == 1572864


def test_lines_are_what_json_stringify_writes_for_their_values():
    from inspector.samples.demo import build_demo_session

    lines = sample().text().splitlines() + build_demo_session().splitlines()
    for line in lines:
        assert js_stringify(orjson.loads(line)) == line


def test_floats_in_entries_are_written_as_javascript_numbers():
    b = SessionBuilder(seed=2)
    b.header()
    b.custom("numbers", {"whole": 5.0, "negZero": -0.0, "big": 1e21, "tiny": 2.5e-7, "cost": 0.1 + 0.2, "n": 2**60})
    line = b.text().splitlines()[-1]
    assert '"data":{"whole":5,"negZero":0,"big":1e+21,"tiny":2.5e-7,"cost":0.30000000000000004,' \
           '"n":1152921504606847000}' in line
