"""Generated inputs for the OpenClaw 2026.9.6 estimator tests: strings from every weight bucket (and just outside
them), surrogate pairs (joined and split), lone surrogates, and messages of every role with images, thinking,
tool calls with odd arguments, sender labels, omitted blocks and excluded messages; usages and contexts with
measured, unavailable and `cli` usage. A fixed seed: the same cases every run.
"""

from __future__ import annotations

import random
from typing import Any

# Code points inside each of the five buckets (edges included), and just outside them.
BUCKET_SAMPLES = [
    [0xB7, 0x3000, 0x319F, 0x4E00, 0x6587, 0x9FA5, 0xAC00, 0xD7AF, 0xFF01, 0xFF60],
    [0x1100, 0x11FF, 0x2E80, 0x2FFF, 0x31A0, 0x4DFF, 0x9FA6, 0x9FFF, 0xA000, 0xA4FF, 0xA700, 0xA707, 0xA960,
     0xA97F, 0xD7B0, 0xD7FF, 0xF900, 0xFAFF],
    [0x2C7, 0x2C9, 0x2CB, 0x2D9, 0x2EA, 0x2EB, 0x305, 0x323, 0xFE10, 0xFE4F, 0xFF61, 0xFFDC, 0xFFE0, 0xFFE6],
    [0x1D360, 0x1D371],
    [0x16FE0, 0x16FFF, 0x1AFF0, 0x1B000, 0x1B16F, 0x1F200, 0x1F2FF, 0x20000, 0x2A6D6, 0x2FA1F, 0x30000, 0x3347F],
]
OUTSIDE = [0xB6, 0xB8, 0x2C8, 0x2CC, 0x2E7F, 0xA4FF + 1, 0xA708, 0xFAFF + 1, 0xFF00, 0xFFDD, 0xFFE7, 0x1D372,
           0x1F300, 0x1F600, 0x2FA20, 0x2FBFF, 0x33480, 0xE9, 0x3B1, 0x430, 0x5D0, 0x10FFFF]
WORDS = ["hello", "world", " ", "\n", "\t", '"', "\\", "\0", "path/to/file.ts", "{}", "x" * 40]


def _split_pair(cp: int) -> str:
    """An astral code point as two surrogate code points (how a JSON escape pair can reach Python)."""
    v = cp - 0x10000
    return chr(0xD800 + (v >> 10)) + chr(0xDC00 + (v & 0x3FF))


def random_string(rng: random.Random, max_parts: int = 12) -> str:
    """A string mixing ASCII, every bucket, unweighted non-ASCII, surrogate pairs (joined or split) and lone
    surrogates."""
    parts: list[str] = []
    for _ in range(rng.randint(0, max_parts)):
        kind = rng.random()
        if kind < 0.3:
            parts.append(rng.choice(WORDS))
        elif kind < 0.65:
            cp = rng.choice(rng.choice(BUCKET_SAMPLES))
            parts.append(_split_pair(cp) if cp > 0xFFFF and rng.random() < 0.3 else chr(cp) * rng.randint(1, 3))
        elif kind < 0.85:
            cp = rng.choice(OUTSIDE)
            parts.append(_split_pair(cp) if cp > 0xFFFF and rng.random() < 0.3 else chr(cp))
        elif kind < 0.92:
            parts.append(chr(rng.choice([0xD800, 0xD83D, 0xD840, 0xDBFF])))  # lone high surrogate
        else:
            parts.append(chr(rng.choice([0xDC00, 0xDE00, 0xDFFF])))  # lone low surrogate
    return "".join(parts)


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """A tool call's arguments: nested objects and arrays, odd numbers, unicode keys and values."""
    kind = rng.random()
    if depth > 2 or kind < 0.35:
        return rng.choice([random_string(rng, 4), 0, 1, -1, 1.5, 0.1, 1e21, 1e-7, -0.0, 2**53 + 1, True, False,
                           None, 123456789012])
    if kind < 0.7:
        return {random_string(rng, 2) or "k": random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def _text(rng: random.Random) -> dict[str, Any]:
    return {"type": "text", "text": random_string(rng)}


def _image() -> dict[str, Any]:
    return {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def _user_blocks(rng: random.Random) -> list[Any]:
    blocks: list[Any] = []
    for _ in range(rng.randint(0, 5)):
        kind = rng.random()
        if kind < 0.5:
            blocks.append(_text(rng))
        elif kind < 0.65:
            blocks.append(_image())
        elif kind < 0.72:
            blocks.append({"type": "text", "text": ""})
        elif kind < 0.78:
            blocks.append({"type": "text", "text": rng.choice([5, True, {"a": "日本"}, [1, "二"]])})
        elif kind < 0.86:
            blocks.append({"type": "document", "source": {"data": random_string(rng, 3)}})
        elif kind < 0.93:
            blocks.append({"type": "toolResult", "content": random_string(rng, 3)})
        else:
            blocks.append({"type": "tool_result", "text": random_string(rng, 3)})
    return blocks


def _sender(rng: random.Random) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key in ("senderId", "senderName", "senderUsername"):
        if rng.random() < 0.7:
            meta[key] = rng.choice([random_string(rng, 3), " padded ", "\0nul\0", "", "  ", 42, "用户"])
    if rng.random() < 0.2:
        meta["idempotencyKey"] = "k1"
    return meta


def random_message(rng: random.Random) -> dict[str, Any]:
    """One message of a random role, well-formed enough that OpenClaw's functions do not throw on it."""
    role = rng.choice(["user", "user", "assistant", "assistant", "toolResult", "toolResult", "tool", "custom",
                       "bashExecution", "branchSummary", "compactionSummary", "system"])
    msg: dict[str, Any] = {"role": role, "timestamp": 1_760_000_000_000}
    if role == "user":
        msg["content"] = random_string(rng) if rng.random() < 0.35 else _user_blocks(rng)
        if rng.random() < 0.4:
            msg["__openclaw"] = _sender(rng)
    elif role == "assistant":
        blocks: list[Any] = []
        for _ in range(rng.randint(0, 5)):
            kind = rng.random()
            if kind < 0.35:
                blocks.append(_text(rng))
            elif kind < 0.5:
                blocks.append({"type": "thinking", "thinking": random_string(rng),
                               **({"thinkingSignature": random_string(rng, 3)} if rng.random() < 0.5 else {})})
            elif kind < 0.55:
                blocks.append({"type": "redacted_thinking", "data": random_string(rng, 3),
                               **({"thinkingSignature": "sig"} if rng.random() < 0.5 else {})})
            elif kind < 0.85:
                call: dict[str, Any] = {"type": "toolCall", "id": f"call_{rng.randint(0, 9)}",
                                        "name": rng.choice(["read", "exec", "編集", random_string(rng, 2)])}
                if rng.random() < 0.9:
                    call["arguments"] = rng.choice([random_json(rng), None, {}]) if rng.random() < 0.3 else {
                        "path": random_string(rng, 3), "n": random_json(rng)}
                blocks.append(call)
            elif kind < 0.9:
                blocks.append(_image())
            elif kind < 0.95:
                blocks.append({"type": "text", "text": "", "textSignature": random_string(rng, 2)})
            else:
                blocks.append({"type": "audio", "data": random_string(rng, 2)})
        msg["content"] = blocks
        msg["stopReason"] = rng.choice(["stop", "toolUse"])
    elif role in ("toolResult", "tool"):
        msg["toolCallId"] = "call_1"
        msg["toolName"] = "read"
        msg["content"] = random_string(rng) if rng.random() < 0.25 else _user_blocks(rng)
        if rng.random() < 0.5:
            msg["details"] = {"diff": random_string(rng, 4), "exitCode": 0}
    elif role == "custom":
        msg["customType"] = rng.choice(["note", "openclaw.runtime-context"])
        msg["content"] = random_string(rng) if rng.random() < 0.5 else _user_blocks(rng)
        msg["display"] = True
        if rng.random() < 0.3:
            msg["details"] = {"runtimeContextCarrier": True}
    elif role == "bashExecution":
        msg["command"] = random_string(rng, 3) or "ls"
        msg["output"] = random_string(rng) if rng.random() < 0.8 else ""
        msg["exitCode"] = rng.choice([0, 1, None, 127])
        msg["cancelled"] = rng.random() < 0.1
        msg["truncated"] = rng.random() < 0.2
        if msg["truncated"]:
            msg["fullOutputPath"] = "/tmp/out.txt"
    elif role in ("branchSummary", "compactionSummary"):
        msg["summary"] = random_string(rng)
        if role == "branchSummary":
            msg["fromId"] = "abc"
    if rng.random() < 0.08:
        msg["excludeFromContext"] = rng.choice([True, False])
    return msg


def random_usage(rng: random.Random) -> dict[str, Any]:
    """A recorded usage: sometimes measured (`contextUsage`), sometimes unavailable, sometimes zero."""
    n = rng.choice([0, 0, 10, 1234, 50_000])
    usage: dict[str, Any] = {"input": n, "output": rng.choice([0, 5]), "cacheRead": rng.choice([0, 100]),
                             "cacheWrite": 0, "totalTokens": rng.choice([0, n + 5, n])}
    if rng.random() < 0.5:
        state = rng.choice(["available", "unavailable", "unknown"])
        context_usage: dict[str, Any] = {"state": state}
        if rng.random() < 0.8:
            context_usage["totalTokens"] = rng.choice([0, 777, 90_000])
        usage["contextUsage"] = context_usage
    return usage


def random_context(rng: random.Random, size: int) -> list[dict[str, Any]]:
    """A list of messages whose assistant messages carry usages (some `cli`, aborted or erroring)."""
    messages = []
    for _ in range(size):
        msg = random_message(rng)
        if msg["role"] == "assistant" and rng.random() < 0.7:
            msg["usage"] = random_usage(rng)
            if rng.random() < 0.25:
                msg["api"] = "cli"
            if rng.random() < 0.15:
                msg["stopReason"] = rng.choice(["aborted", "error"])
        messages.append(msg)
    return messages
