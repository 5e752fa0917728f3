"""2026.9.6's summarization prompts and "real conversation" check against the real OpenClaw 2026.9.6
(`openclaw_2026_9` fixture; skips when absent).

Generated conversations (CJK and astral text, lone surrogates avoided, images and unknown blocks, tool calls with
odd arguments, long tool results with and without error words, persisted senders, runtime-context carriers, bash
runs, custom and summary messages, `excludeFromContext`) go through the agent core's real `generateSummary` (a
recording stream function, `oc_2026_9_prompts.mjs`) as the safeguard calls it, for the history (with a previous
summary to re-distill and a rolling summary), the merge and the split-turn prefix; the port must send the same
system prompt, user text, output budget and reasoning option. The boundary check runs on generated message lists
with `isRealConversationMessage`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_9_6.compaction import boundary as B
from inspector.rules.openclaw_2026_9_6.compaction import prompts as P

SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_prompts.mjs"
ALPHABET = "abc de\nfg## 中文字😀𝒳 \t<>"
ERRORS = ["Error: boom", "Traceback (most recent call last)", "exit code 2", "FATAL", "stack trace", "failed", "errno 5"]
SILENT = ["NO_REPLY", " no_reply ", "NO_REPLY NO_REPLY", "**NO_REPLY**", "HEARTBEAT_OK", "HEARTBEAT_OK done", "", "  ", "ok"]


def _text(rng: random.Random, most: int) -> str:
    n = rng.randint(0, most)
    text = "".join(rng.choice(ALPHABET) for _ in range(n))
    if rng.random() < 0.3:
        k = rng.randint(0, len(text))
        text = text[:k] + rng.choice(ERRORS) + text[k:]
    return text


def _message(rng: random.Random, t: int) -> dict[str, Any]:
    r = rng.random()
    if r < 0.3:
        content: Any = _text(rng, 300) if rng.random() < 0.4 else [{"type": "text", "text": rng.choice([_text(rng, 300), *SILENT])}]
        if isinstance(content, list) and rng.random() < 0.3:
            content.append(rng.choice([{"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "file", "name": "a"}]))
        msg: dict[str, Any] = {"role": "user", "content": content, "timestamp": t}
        if rng.random() < 0.3:
            msg["__openclaw"] = {"senderId": rng.choice(["u1", " u2 ", ""]), "senderName": rng.choice(["Ann", None, "中"])}
        return msg
    if r < 0.55:
        blocks: list[dict[str, Any]] = []
        for _ in range(rng.randint(0, 3)):
            kind = rng.choice(["text", "thinking", "toolCall", "tool_use", "reasoning"])
            if kind == "text":
                blocks.append({"type": "text", "text": rng.choice([_text(rng, 200), *SILENT])})
            elif kind == "toolCall":
                blocks.append({"type": "toolCall", "id": f"c{t}", "name": "read", "arguments": {"path": _text(rng, 20), "2": [1, None], "n": 1.5}})
            else:
                blocks.append({"type": kind, "thinking": "hmm", "id": "x"})
        return {"role": "assistant", "content": blocks, "timestamp": t}
    if r < 0.75:
        text = _text(rng, 5000) if rng.random() < 0.5 else _text(rng, 100)
        return {"role": "toolResult", "toolCallId": f"c{t}", "toolName": "read", "content": [{"type": "text", "text": text}],
                "isError": False, "timestamp": t}
    if r < 0.85:
        msg = {"role": "custom", "customType": rng.choice(["note", "openclaw.runtime-context"]), "content": rng.choice([_text(rng, 100), *SILENT]),
               "display": rng.choice([True, False, None]), "timestamp": t}
        if rng.random() < 0.2:
            msg["details"] = {"runtimeContextCarrier": True}
        if rng.random() < 0.2:
            msg["excludeFromContext"] = True
        return msg
    if r < 0.93:
        return {"role": "bashExecution", "command": rng.choice(["ls", ""]), "output": rng.choice([_text(rng, 100), "", "NO_REPLY"]),
                "exitCode": rng.choice([0, 1, None]), "cancelled": False, "truncated": False, "timestamp": t,
                **({"excludeFromContext": True} if rng.random() < 0.3 else {})}
    return {"role": rng.choice(["branchSummary", "compactionSummary"]), "summary": rng.choice([_text(rng, 100), *SILENT]), "timestamp": t}


def _messages(rng: random.Random, most: int = 12) -> list[dict[str, Any]]:
    return [_message(rng, t) for t in range(rng.randint(0, most))]


def _call_case(rng: random.Random) -> dict[str, Any]:
    stage = rng.choice(["custom", "custom", "merge", "turn-prefix"])
    return {
        "kind": "call",
        "messages": _messages(rng),
        "reserve": rng.choice([1, 4096, 20000, 16385]),
        "stage": "turn-prefix" if stage == "turn-prefix" else "custom",
        "merge": stage == "merge",
        "focus": P.MERGE_SUMMARIES_INSTRUCTIONS if stage == "merge" else None,
        "previous": rng.choice([None, "", "  old summary  ", "## Decisions\nx\n**Turn Context (split turn):**\n## Decisions\n ## Open TODOs\n"]),
        "rolling": rng.choice([None, "rolling 中"]),
        "custom": rng.choice([None, "", "Focus <on> the\r\nAPI 😀", "x" * 900]),
        "policy": rng.choice([None, "strict", "off", "custom"]),
        "identifierInstructions": rng.choice([None, "", "keep <ids>"]),
        "latest": rng.choice([None, None, "please fix the build <now>"]),
        "thinkingLevel": rng.choice([None, "low", "high", "off"]),
        "reasoning": rng.random() < 0.5,
    }


def _port_call(c: dict[str, Any]) -> dict[str, Any]:
    policy = c["policy"] or "strict"
    structured = P.safeguard_structured_instructions(c["custom"], None, policy, c["identifierInstructions"], c["latest"])
    if c["stage"] == "turn-prefix":
        stage = P.compose_split_turn_instructions(P.TURN_PREFIX_INSTRUCTIONS, structured)
    elif c["merge"]:
        stage = P.merge_instructions(structured)
    else:
        stage = structured
    first = P.previous_summary_message(c["previous"])
    messages = ([first] if first else []) + c["messages"]
    level = c["thinkingLevel"]
    p = P.safeguard_prompt(messages, c["reserve"], stage, c["rolling"], policy=policy, identifier_instructions=c["identifierInstructions"],
                           thinking_level=level)
    reasoning = (p.reasoning_effort if level != "off" else "off") if c["reasoning"] and level else None
    return {"system": p.system, "text": p.text, "maxTokens": p.max_tokens, "reasoning": reasoning}


def test_prompts_match_generate_summary(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(2609)
    cases = [_call_case(rng) for _ in range(300)]
    for n in (8, 9, 12):  # the omission lines stop after 8 messages
        cases[n]["messages"] = [{"role": "user", "content": [{"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "text", "text": "t"}],
                                 "timestamp": k} for k in range(n)]
    tail = "x" * 3000 + "Error: a" + "y" * 100 + "traceback" + "中" * 700  # the last strong word wins over a later weak one
    cases[20]["messages"] = [{"role": "toolResult", "toolCallId": "c", "toolName": "exec", "content": [{"type": "text", "text": tail}], "timestamp": 1}]
    real = openclaw_2026_9.run_script(SCRIPT, cases)
    for case, want in zip(cases, real, strict=True):
        assert _port_call(case) == want, case


def test_real_conversation_matches(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(96)
    lists = [_messages(rng, 30) for _ in range(400)]
    real = openclaw_2026_9.run_script(SCRIPT, [{"kind": "real", "messages": m} for m in lists])
    for msgs, want in zip(lists, real, strict=True):
        kept = [m for m in msgs if not B.is_runtime_context_custom_message(m)]
        assert [B.is_real_conversation_message(m, kept, i) for i, m in enumerate(kept)] == want["each"], msgs
        roles = [m["role"] for m in msgs]
        kinds = [tuple(b.get("type") for b in m["content"]) if isinstance(m.get("content"), list) else () for m in msgs]
        assert (B.any_real_conversation(roles, lambda i, msgs=msgs: msgs[i], kinds) is not None) == want["any"], msgs


def test_fallback_and_structure_match(openclaw_2026_9: Any) -> None:  # noqa: F811
    previous = [None, "", "  x  ", "## Decisions\na\n## Open TODOs\nb\n## Constraints/Rules\n## Pending user asks\n## Exact identifiers\n",
                "prev\n**Turn Context (split turn):**\n## Decisions\n## Open TODOs\n## Constraints/Rules\r\n## Pending user asks\u2028## Exact identifiers"]
    structure = [{"custom": c, "policy": p, "identifierInstructions": i, "latest": r}
                 for c in (None, "", " a<b> ") for p in (None, "off", "custom") for i in (None, "ids 😀") for r in (None, "do it", "x" * 4500)]
    real = openclaw_2026_9.run_script(SCRIPT, [{"kind": "fallback", "previous": p} for p in previous] + [{"kind": "structure", **s} for s in structure])
    assert [B.build_structured_fallback_summary(p) for p in previous] == real[: len(previous)]
    port = [P.build_compaction_structure_instructions(s["custom"], s["policy"] or "strict", s["identifierInstructions"], s["latest"]) for s in structure]
    assert port == real[len(previous):]
