"""`--context-window N`, as every command and the app take it: `context_window_arg` (the argparse `type=`)."""

from __future__ import annotations

import argparse

MAX_CONTEXT_WINDOW_OVERRIDE = 2**31 - 1
"""The largest `--context-window` accepted (see `context_window_arg`)."""


def context_window_arg(text: str) -> int:
    """The argparse `type=` of `--context-window N`: a whole number of tokens from 1 to 2**31 - 1.

    Every command and the app take the flag through this one function. 0 and negatives mean nothing (OpenClaw's
    schema asks for a positive integer; the guard and the fill ratio divide by the window). The upper bound is ours:
    no model's window comes near 2**31 tokens (the largest known are around 10 million), and a 32-bit value keeps
    every figure derived from it (the pruner's char window is tokens × 4, ratios, thresholds) an exact integer
    in JavaScript (below 2**53) and in orjson's 64-bit JSON integers, where a number like 99999999999999999999
    would not be. Anything else is an argparse error with a clear message (exit code 2), not a traceback.
    """
    try:
        value = int(text, 10)  # int() skips surrounding whitespace itself
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {text!r}") from None
    if not 1 <= value <= MAX_CONTEXT_WINDOW_OVERRIDE:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_CONTEXT_WINDOW_OVERRIDE} tokens, not {value}")
    return value
