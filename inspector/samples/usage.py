"""pi-ai `usage` objects for sample sessions (`make_usage`, `zero_usage`), and the token counts `SessionBuilder`'s
automatic usage is made from: a stand-in for the provider's tokenizer (`approx_tokens`, `content_tokens`), not one of the
spec's estimators."""

from __future__ import annotations

import math
from typing import Any

from inspector.js.jsjson import js_stringify
from inspector.samples.png import png_size

__all__ = ["SONNET_4_5_PRICES", "approx_tokens", "content_tokens", "make_usage", "zero_usage"]

# USD per million tokens (pi-ai models.generated.ts: anthropic claude-sonnet-4-5).
SONNET_4_5_PRICES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


def make_usage(
    input: int, output: int, cache_read: int = 0, cache_write: int = 0, *, prices: dict | None = None
) -> dict:
    """A pi-ai `usage` object; cost computed like pi-ai `calculateCost` (price per million, summed left to right)."""
    p = SONNET_4_5_PRICES if prices is None else prices
    c_in = (p["input"] / 1000000) * input
    c_out = (p["output"] / 1000000) * output
    c_cr = (p["cacheRead"] / 1000000) * cache_read
    c_cw = (p["cacheWrite"] / 1000000) * cache_write
    return {
        "input": input,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": input + output + cache_read + cache_write,
        "cost": {"input": c_in, "output": c_out, "cacheRead": c_cr, "cacheWrite": c_cw, "total": c_in + c_out + c_cr + c_cw},
    }


def zero_usage() -> dict:
    """All-zero usage, as on OpenClaw's synthetic (delivery-mirror, gateway-injected) assistants."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


# Token counts for automatic usage: a stand-in for the provider's tokenizer


def approx_tokens(text: str) -> float:
    """3 ASCII characters a token, 1.1 tokens a character otherwise."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return ascii_chars / 3.0 + (len(text) - ascii_chars) * 1.1


def _block_tokens(block: Any) -> float:
    if isinstance(block, str):
        return approx_tokens(block)
    kind = block.get("type")
    if kind == "text":
        return approx_tokens(block.get("text", ""))
    if kind == "thinking":
        return approx_tokens(block.get("thinking", ""))
    if kind == "toolCall":
        return 12 + approx_tokens(block.get("name", "") + js_stringify(block.get("arguments", {})))
    if kind == "image":
        size = png_size(block.get("data", ""))
        return math.ceil(size[0] * size[1] / 750) if size else 1600
    return approx_tokens(js_stringify(block))


def content_tokens(content: Any) -> float:
    """The tokens of a message's `content` (a string or blocks; a PNG: width * height / 750)."""
    if isinstance(content, str):
        return approx_tokens(content)
    return sum(_block_tokens(b) for b in content or ())
