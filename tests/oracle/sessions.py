"""Hypothesis-generated OpenClaw/pi sessions for the compaction tests: turns with tool calls and results,
thinking, images, custom messages, branch summaries, compactions (turn boundary, split turn, manual
self-reference, id not on the path, boundary at the first entry), model and thinking changes, labels, branches.

`session_ops()` draws a list of operations; `build_session(ops, path)` writes them with the fixture builder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from inspector.js.jsjson import js_stringify
from inspector.js.timeutil import iso_from_ms
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage

_ALPHABET = "abcdefghij klmnopqrstuvwxyz\n.,{}()_-/ABCDEF0123456789中文字符😀é"
FILES = ["src/a.ts", "src/b.ts", "README.md", "docs/ü.md", "x/🙂.txt", "x/Ａ.txt", "Zeta.md"]


def text(min_size: int = 0, max_size: int = 400) -> st.SearchStrategy[str]:
    """Short texts with CJK, emoji and accents (JavaScript lengths differ from Python's)."""
    return st.one_of(
        st.text(alphabet=_ALPHABET, min_size=min_size, max_size=max_size),
        st.integers(min_value=max(min_size, 1), max_value=9000).map(lambda n: ("lorem ipsum " * (n // 12 + 1))[:n]),
    )


tool_call = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["read", "write", "edit", "exec", "read", "edit"]),
        "path": st.one_of(st.sampled_from(FILES), st.just(None), st.integers(0, 3)),
        "result": text(0, 3000),
        "image": st.booleans(),
        "error": st.booleans(),
    }
)

turn = st.fixed_dictionaries(
    {
        "op": st.just("turn"),
        "user": text(0, 600),
        "user_string": st.booleans(),
        "user_image": st.booleans(),
        "thinking": st.one_of(st.none(), text(1, 800)),
        "steps": st.lists(st.lists(tool_call, min_size=1, max_size=3), max_size=3),
        "final": text(0, 800),
        "stop": st.sampled_from(["stop", "stop", "stop", "aborted", "error"]),
        "usage": st.one_of(st.integers(0, 250_000), st.sampled_from([150_000, 185_000, 199_999])),
        "heartbeat": st.booleans(),
    }
)

other = st.one_of(
    st.fixed_dictionaries({"op": st.just("compaction"), "kind": st.sampled_from(["back", "back", "self", "missing", "first"]),
                           "back": st.integers(0, 30), "details": st.booleans(), "from_hook": st.sampled_from([None, True, False]),
                           "summary": text(0, 1500)}),
    st.fixed_dictionaries({"op": st.just("model_change"), "model": st.sampled_from(["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"])}),
    st.fixed_dictionaries({"op": st.just("thinking_level"), "level": st.sampled_from(["off", "low", "high"])}),
    st.fixed_dictionaries({"op": st.just("label"), "back": st.integers(0, 10)}),
    st.fixed_dictionaries({"op": st.just("custom_message"), "content": text(0, 1200), "string": st.booleans()}),
    st.fixed_dictionaries({"op": st.just("custom"), "kind": st.sampled_from(["openclaw.cache-ttl", "model-snapshot"])}),
    st.fixed_dictionaries({"op": st.just("branch_summary"), "back": st.integers(0, 12), "summary": text(0, 900)}),
    st.fixed_dictionaries({"op": st.just("bash"), "command": text(1, 80), "output": text(0, 2000), "excluded": st.booleans()}),
)


def session_ops(max_ops: int = 24) -> st.SearchStrategy[list[dict[str, Any]]]:
    """A list of operations: mostly turns, with the other entry kinds mixed in."""
    return st.lists(st.one_of(turn, turn, other), min_size=1, max_size=max_ops)


def _usage(total: int) -> dict[str, Any]:
    return make_usage(3, max(1, total // 50), cache_read=total // 2, cache_write=total - total // 2 - 3 - max(1, total // 50))


def build_session(ops: list[dict[str, Any]], path: Path, seed: int = 0) -> Path:
    """Write the session `ops` describe to `path`."""
    b = SessionBuilder(seed=seed, track_context=False)
    b.header()
    for op in ops:
        kind = op["op"]
        if kind == "turn":
            _turn(b, op)
        elif kind == "compaction":
            _compaction(b, op)
        elif kind == "model_change":
            b.model_change("openai" if op["model"] == "gpt-5" else "anthropic", op["model"])
        elif kind == "thinking_level":
            b.thinking_level_change(op["level"])
        elif kind == "label":
            ids = [e["id"] for e in b.path()]
            if ids:
                b.label(ids[max(0, len(ids) - 1 - op["back"])], "mark")
        elif kind == "custom_message":
            b.custom_message("note", op["content"] if op["string"] else [op["content"]])
        elif kind == "custom":
            b.custom(op["kind"], {"n": 1})
        elif kind == "branch_summary":
            ids = [e["id"] for e in b.path()]
            target = ids[max(0, len(ids) - 1 - op["back"])] if ids else None
            b.branch_summary(target, op["summary"])
        elif kind == "bash":
            msg = {"role": "bashExecution", "command": op["command"], "output": op["output"], "exitCode": 0,
                   "cancelled": False, "truncated": False, "timestamp": b.now_ms}
            if op["excluded"]:
                msg["excludeFromContext"] = True
            b.message(msg)
    return b.write(path)


def _turn(b: SessionBuilder, op: dict[str, Any]) -> None:
    user = op["user"] + (" HEARTBEAT_OK" if op["heartbeat"] else "")
    if op["user_string"]:
        b.user(user)
    else:
        b.user([user] + ([b.image()] if op["user_image"] else []))
    usage = op["usage"]
    for step in op["steps"]:
        blocks: list[Any] = []
        if op["thinking"]:
            blocks.append(b.thinking(op["thinking"]))
        calls = []
        for call in step:
            args = {} if call["path"] is None else {"path": call["path"]}
            block = b.tool_call(call["name"], args)
            calls.append((block, call))
            blocks.append(block)
        b.assistant(blocks, usage=_usage(usage))
        usage += 500
        for block, call in calls:
            content: list[Any] = [call["result"]] + ([b.image()] if call["image"] else [])
            b.tool_result(block["id"], call["name"], content, details={"exitCode": 1} if call["error"] else {}, is_error=call["error"])
    stop = op["stop"]
    if stop == "error":
        b.assistant([], usage=_usage(0), stop_reason="error", error_message="prompt is too long: 213462 tokens > 200000 maximum")
    else:
        b.assistant(op["final"] or "ok", usage=_usage(usage), stop_reason=stop)


def _compaction(b: SessionBuilder, op: dict[str, Any]) -> None:
    path = b.path()
    if not path:
        return
    extra: dict[str, Any] = {}
    if op["details"]:
        extra["details"] = {"readFiles": ["src/a.ts", "old/r.md"], "modifiedFiles": ["docs/ü.md"]}
    if op["from_hook"] is not None:
        extra["from_hook"] = op["from_hook"]
    kind = op["kind"]
    if kind == "self":
        eid = "c0ffee" + f"{len(b.entries):02x}"[-2:]
        obj = {"type": "compaction", "id": eid, "parentId": b.leaf_id, "timestamp": iso_from_ms(b.now_ms),
               "summary": op["summary"], "firstKeptEntryId": eid, "tokensBefore": 1234}
        if "details" in extra:
            obj["details"] = extra["details"]
        obj["fromHook"] = True
        b.raw_line(js_stringify(obj))
        b.entries.append(obj)  # raw lines are not tracked by the builder: keep b.path() working
        b.branch(eid)
        return
    if kind == "missing":
        first_kept = "deadbeef"
    elif kind == "first":
        first_kept = path[0]["id"]
    else:
        first_kept = path[max(0, len(path) - 1 - op["back"])]["id"]
    b.compaction(op["summary"], first_kept, 4321, **extra)
