"""The bundled demo session: deterministic, shipped up to date, and containing every feature it promises."""

from __future__ import annotations

import base64
import math
import re

import orjson
import pytest
from test_fixtures_builder import assert_documented_order

from inspector.js.jsjson import js_len, js_stringify
from inspector.js.timeutil import ms_from_iso
from inspector.samples.demo import build_demo_session, demo_session_path

CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af]")
PREAMBLE = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"


@pytest.fixture(scope="module")
def text() -> str:
    return build_demo_session()


@pytest.fixture(scope="module")
def objs(text) -> list[dict]:
    return [orjson.loads(line) for line in text.splitlines()]


@pytest.fixture(scope="module")
def entries(objs) -> list[dict]:
    return objs[1:]


@pytest.fixture(scope="module")
def by_id(entries) -> dict[str, dict]:
    return {e["id"]: e for e in entries}


@pytest.fixture(scope="module")
def active_path(entries, by_id) -> list[dict]:
    """Root -> leaf, the leaf being the last entry in the file (pi's rule on load)."""
    out, cur = [], entries[-1]
    while cur is not None:
        out.append(cur)
        cur = by_id.get(cur["parentId"]) if cur["parentId"] else None
    return out[::-1]


def children(entries, eid):
    return [e for e in entries if e["parentId"] == eid]


def messages(entries, role=None):
    return [e for e in entries if e["type"] == "message" and (role is None or e["message"]["role"] == role)]


def pi_tokens(msg: dict) -> int:
    """pi 0.66 estimateTokens (spec §4.2), written independently of inspector.samples.demo."""
    chars = 0
    for block in msg["content"] if isinstance(msg["content"], list) else [{"type": "text", "text": msg["content"]}]:
        if block["type"] == "text":
            chars += js_len(block["text"])
        elif block["type"] == "thinking":
            chars += js_len(block["thinking"])
        elif block["type"] == "toolCall":
            chars += js_len(block["name"]) + js_len(js_stringify(block["arguments"]))
        elif block["type"] == "image" and msg["role"] == "toolResult":
            chars += 4800
    return math.ceil(chars / 4)


def test_shipped_file_is_the_generated_text(text):
    assert demo_session_path().read_bytes() == text.encode("utf-8"), "run: python -m inspector.samples.demo --write"


def test_generation_is_deterministic(text):
    assert build_demo_session() == text


def test_format_and_size(text, objs, entries):
    assert text.endswith("\n") and "\r" not in text
    assert len(text.encode("utf-8")) < 640_000
    assert objs[0]["type"] == "session" and objs[0]["version"] == 3
    for obj in objs:
        assert_documented_order(obj)
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))
    times = [ms_from_iso(o["timestamp"]) for o in objs]
    assert times == sorted(times)
    assert 12 <= len(messages(entries, "user")) <= 20


def test_session_start_settings_and_bootstrap_reads(entries):
    assert entries[0]["type"] == "model_change" and entries[0]["parentId"] is None
    assert entries[0]["provider"] == "anthropic" and entries[0]["modelId"] == "claude-sonnet-4-5"
    snapshot = next(e for e in entries if e["type"] == "custom" and e["customType"] == "model-snapshot")
    assert list(snapshot["data"]) == ["timestamp", "provider", "modelApi", "modelId"]
    first_user = next(i for i, e in enumerate(entries) if e["type"] == "message" and e["message"]["role"] == "user")
    reads = [e for e in entries[:first_user] if e["type"] == "message" and e["message"]["role"] == "toolResult"]
    assert {r["message"]["toolName"] for r in reads} == {"read"} and len(reads) >= 2
    assert any(e["type"] == "custom" and e["customType"] == "openclaw:bootstrap-context:full" for e in entries)


def test_split_turn_pi_native_compaction(entries, by_id, active_path):
    comps = [e for e in entries if e["type"] == "compaction"]
    assert len(comps) == 1
    comp = comps[0]
    assert comp["fromHook"] is False and comp in active_path
    path = active_path[: active_path.index(comp)]
    kept = by_id[comp["firstKeptEntryId"]]
    assert kept in path and kept["type"] == "message" and kept["message"]["role"] == "assistant"
    k = path.index(kept)
    # Split turn: the kept part starts inside a turn whose user message is summarized.
    turn_start = max(i for i in range(k) if path[i]["type"] == "message" and path[i]["message"]["role"] == "user")
    assert any(path[i]["type"] == "message" and path[i]["message"]["role"] == "assistant" for i in range(turn_start, k))
    # pi's findCutPoint with keepRecentTokens = 20000 lands exactly here.
    total, cut_index = 0, None
    for i in range(len(path) - 1, -1, -1):
        if path[i]["type"] == "message":
            total += pi_tokens(path[i]["message"])
            if total >= 20_000:
                cut_index = next(j for j in range(i, len(path)) if path[j]["type"] == "message"
                                 and path[j]["message"]["role"] != "toolResult")
                break
    assert cut_index == k
    last_assistant = [e for e in path if e["type"] == "message" and e["message"]["role"] == "assistant"][-1]
    assert comp["tokensBefore"] == last_assistant["message"]["usage"]["totalTokens"]
    assert "**Turn Context (split turn):**" in comp["summary"]
    details = comp["details"]
    assert list(details) == ["readFiles", "modifiedFiles"] and details["modifiedFiles"] == sorted(details["modifiedFiles"])
    assert comp["summary"].endswith("<modified-files>\n" + "\n".join(details["modifiedFiles"]) + "\n</modified-files>")


def test_kept_prefix_puts_tool_results_before_the_first_user_message_in_context(by_id, entries, active_path):
    comp = next(e for e in entries if e["type"] == "compaction")
    i = active_path.index(by_id[comp["firstKeptEntryId"]])
    kept = [e["message"]["role"] for e in active_path[i: active_path.index(comp)] if e["type"] == "message"]
    assert kept[0] == "assistant" and "toolResult" in kept[: kept.index("user") if "user" in kept else len(kept)]


def test_abandoned_sibling_branch_and_branch_summary(entries, by_id, active_path):
    summaries = [e for e in entries if e["type"] == "branch_summary"]
    assert len(summaries) == 1
    bs = summaries[0]
    assert bs in active_path and bs["parentId"] == bs["fromId"] and bs["summary"].startswith(PREAMBLE)
    assert bs["fromHook"] is False and list(bs["details"]) == ["readFiles", "modifiedFiles"]
    siblings = children(entries, bs["fromId"])
    abandoned = [e for e in siblings if e is not bs]
    assert len(abandoned) == 1 and abandoned[0] not in active_path
    assert abandoned[0]["type"] == "message" and abandoned[0]["message"]["role"] == "user"
    assert by_id[bs["fromId"]] in active_path


def test_delivery_mirror_is_a_sibling_of_the_tool_result(entries, active_path):
    mirrors = [e for e in messages(entries, "assistant") if e["message"]["model"] == "delivery-mirror"]
    assert len(mirrors) == 1
    mirror = mirrors[0]["message"]
    assert mirror["provider"] == "openclaw" and mirror["api"] == "openai-responses" and mirror["stopReason"] == "stop"
    usage = dict(mirror["usage"])
    assert set(usage.pop("cost").values()) == {0} and set(usage.values()) == {0}
    kids = children(entries, mirrors[0]["parentId"])
    assert [k["message"]["role"] for k in kids] == ["assistant", "toolResult"]
    assert mirrors[0] not in active_path and kids[1] in active_path


def test_cache_ttl_entries(entries, active_path):
    ttl = [e for e in entries if e["type"] == "custom" and e["customType"] == "openclaw.cache-ttl"]
    assert len(ttl) >= 12
    for e in ttl:
        assert list(e["data"]) == ["timestamp", "provider", "modelId"]
        assert isinstance(e["data"]["timestamp"], int) and e["data"]["provider"] == "anthropic"
        assert abs(e["data"]["timestamp"] - ms_from_iso(e["timestamp"])) < 1000
    assert any(e not in active_path for e in ttl)  # one was written on the abandoned branch
    assert ttl[-1] is entries[-1]


def test_label_session_info_and_thinking_levels(entries, by_id):
    labels = [e for e in entries if e["type"] == "label"]
    assert len(labels) == 1 and labels[0]["targetId"] in by_id and labels[0]["label"]
    assert [e["name"] for e in entries if e["type"] == "session_info"] == ["lumen-api: flaky limiter → Redis"]
    assert len([e for e in entries if e["type"] == "thinking_level_change"]) >= 3


def test_thinking_images_cjk_and_large_results(entries):
    blocks = [b for e in messages(entries, "assistant") for b in e["message"]["content"]]
    thinking = [b for b in blocks if b["type"] == "thinking"]
    assert len(thinking) >= 10 and all(b["thinkingSignature"] for b in thinking)
    redacted = [b for b in thinking if b.get("redacted")]
    assert len(redacted) == 1 and redacted[0]["thinking"] == "[Reasoning redacted]"
    user_images = [b for e in messages(entries, "user") if isinstance(e["message"]["content"], list)
                   for b in e["message"]["content"] if b["type"] == "image"]
    result_images = [b for e in messages(entries, "toolResult") for b in e["message"]["content"] if b["type"] == "image"]
    for img in user_images + result_images:
        assert img["mimeType"] == "image/png" and base64.b64decode(img["data"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(user_images) == 1 and len(result_images) == 1
    texts = [b.get("text", "") for e in messages(entries) for b in (e["message"]["content"]
             if isinstance(e["message"]["content"], list) else [{"text": e["message"]["content"]}])]
    assert any(CJK.search(t) for t in texts[:60]) and sum(len(CJK.findall(t)) for t in texts) > 5_000
    assert any(js_len(t) > len(t) for t in texts)  # emoji outside the BMP
    sizes = [js_len(b["text"]) for e in messages(entries, "toolResult") for b in e["message"]["content"]
             if b["type"] == "text"]
    assert len([s for s in sizes if 10_000 <= s <= 80_000]) >= 8
    tools = {e["message"]["toolName"] for e in messages(entries, "toolResult")}
    assert {"read", "exec", "edit", "write", "web_fetch", "browser", "message"} <= tools
    assert any(e["message"]["isError"] for e in messages(entries, "toolResult"))


def test_usage_grows_realistically(entries, active_path):
    real = [e["message"] for e in messages(entries, "assistant") if e["message"]["provider"] == "anthropic"]
    for m in real:
        u = m["usage"]
        assert u["totalTokens"] == u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"] > 0
        c = u["cost"]
        assert c["total"] == c["input"] + c["output"] + c["cacheRead"] + c["cacheWrite"]
        assert m["responseId"].startswith("msg_01") and m["api"] == "anthropic-messages"
    on_path = [e["message"]["usage"] for e in active_path if e["type"] == "message"
               and e["message"]["role"] == "assistant" and e["message"]["provider"] == "anthropic"]
    final = on_path[-1]["input"] + on_path[-1]["cacheRead"] + on_path[-1]["cacheWrite"]
    assert 0.58 * 200_000 <= final <= 0.8 * 200_000
    assert any(u["cacheRead"] == 0 for u in on_path[1:]) and sum(u["cacheRead"] > 0 for u in on_path) > len(on_path) // 2


def test_tool_calls_pair_with_results_on_the_active_path(active_path):
    calls = [b["id"] for e in active_path if e["type"] == "message" and e["message"]["role"] == "assistant"
             for b in e["message"]["content"] if b["type"] == "toolCall"]
    results = [e["message"]["toolCallId"] for e in active_path if e["type"] == "message"
               and e["message"]["role"] == "toolResult"]
    assert calls == results and len(set(calls)) == len(calls)


def test_text_generators_are_seeded_and_sized():
    import json
    import random

    from inspector.samples import demo_text

    def render(seed: int) -> list[str]:
        rng = random.Random(seed)
        return [demo_text.ts_source(rng, "src/a.ts", 3_000), demo_text.jest_log(rng, 3, {"x › y": "boom"}),
                demo_text.web_doc_page(rng, 5_000), demo_text.zh_wiki_page(rng, 4_000)]

    first = render(1)
    assert first == render(1) and first != render(2)
    source, log, page, wiki = first
    assert len(source) >= 3_000 and source.startswith("// src/a.ts\n")
    assert "✕ x › y" in log and "Tests:       1 failed" in log
    for payload in (json.loads(page), json.loads(wiki)):  # web_fetch results: `length` is the markdown's JS length
        markdown = payload["text"].split("---\n", 1)[1].rsplit("\n<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>", 1)[0]
        assert payload["length"] == js_len(markdown)
    assert CJK.search(wiki)
