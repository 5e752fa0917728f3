"""The bundled demo session: a deterministic, realistic OpenClaw coding session on an Anthropic model.

`build_demo_session()` renders it (no clock, no unseeded randomness); `demo_session_path()` is the copy shipped in the
package. `python -m inspector.samples.demo --write` regenerates the shipped file; a test checks that both agree.

The story: Mara asks her OpenClaw agent to fix a flaky rate limiter in `lumen-api`, move it to Redis, localise the 429
body (zh-CN, ja), profile it, compact, try and abandon a client-library swap (a sibling branch with a branch summary), post
a status update (a delivery-mirror sibling), open a PR, fix CI and write the design doc. It exercises every entry type and
most message shapes the inspector has to handle (see `DEMO_FEATURES`).

This module builds the session (`build_demo_session()`) and is the `python -m inspector.samples.demo` CLI. The
turn-by-turn script is `inspector.samples.demo_story`, written with the tool-call helpers of
`inspector.samples.demo_tools` and, for the compaction and the branch summary, pi's preparation as far as the demo needs
it (`inspector.samples.demo_compaction`). The texts it puts in the session (tool output generators shared with
`bench/generate.py`, workspace files, docs, summaries) are in `inspector.samples.demo_text`.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from inspector.samples.demo_story import (
    after_compaction,
    bootstrap_and_first_turns,
    compact,
    pr_ci_and_docs,
    profiling_turn,
    redis_and_i18n_turns,
)
from inspector.samples.demo_tools import DemoTools
from inspector.samples.fixtures import SessionBuilder

__all__ = ["DEMO_FEATURES", "build_demo_session", "demo_session_path", "main"]

DEMO_SEED = 20260102
DEMO_START = "2026-01-02T08:41:12.306Z"

DEMO_FEATURES = (
    "bootstrap reads before the first user message",
    "pi-native compaction (fromHook:false) whose firstKeptEntryId is an assistant (split turn)",
    "abandoned sibling branch + branch_summary on the active branch",
    "delivery-mirror assistant sibling of a toolResult",
    "openclaw.cache-ttl after every run, model-snapshot, openclaw:bootstrap-context:full",
    "label, session_info, model_change, thinking_level_change",
    "thinking blocks incl. one redacted; images in a user message and in a tool result",
    "CJK text and emoji; large tool results (10k-40k chars); exec details with aggregated output",
)


def demo_session_path() -> Path:
    """The demo session shipped with the package (`inspector/data/demo-session.jsonl`)."""
    return Path(__file__).resolve().parents[1] / "data" / "demo-session.jsonl"


def build_demo_session() -> str:
    """The demo session's JSONL text. Deterministic: the same bytes on every call and every machine."""
    rng = random.Random(DEMO_SEED)
    b = SessionBuilder(seed=DEMO_SEED, start=DEMO_START, system_prompt_tokens=23_000)
    t = DemoTools(b, rng)
    bootstrap_and_first_turns(b, t, rng)
    redis_and_i18n_turns(b, t, rng)
    profiling_turn(b, t, rng)
    compact(b)
    after_compaction(b, t, rng)
    pr_ci_and_docs(b, t, rng)
    return b.text()


def main(argv: list[str] | None = None) -> int:
    """`python -m inspector.samples.demo [--write | --check]`: print, regenerate or verify the shipped demo session."""
    parser = argparse.ArgumentParser(prog="python -m inspector.samples.demo", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="regenerate inspector/data/demo-session.jsonl")
    group.add_argument("--check", action="store_true", help="exit 1 if the shipped file differs from the generated one")
    args = parser.parse_args(argv)
    text = build_demo_session()
    path = demo_session_path()
    if args.write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        print(f"wrote {path} ({len(text.encode('utf-8'))} bytes, {text.count(chr(10))} lines)")
        return 0
    if args.check:
        same = path.exists() and path.read_bytes() == text.encode("utf-8")
        print("up to date" if same else f"{path} is stale: run python -m inspector.samples.demo --write")
        return 0 if same else 1
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
