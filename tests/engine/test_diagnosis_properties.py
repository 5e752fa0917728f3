"""Property tests of the timeline on generated sessions: call order, totals that agree with `stats`, estimates that
agree with a full context rebuild, consistent jumps, thresholds and repeats."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.figures.diagnosis.timeline import TimelineOptions, build_timeline
from inspector.figures.session_figures import WindowOptions, session_stats
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage, zero_usage
from inspector.session.context import build_context
from inspector.session.session import open_session

OPS = st.lists(
    st.tuples(
        st.sampled_from(["user", "tool", "tool", "error", "text", "compact", "branch", "synthetic", "aborted", "wait", "model"]),
        st.integers(0, 6000),
    ),
    min_size=1,
    max_size=30,
)
USAGE_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def build(ops, path: Path) -> None:
    b = SessionBuilder(seed=len(ops))
    b.header()
    messages: list[str] = [b.user("start")]
    for op, n in ops:
        if op == "user":
            messages.append(b.user("u" * (n % 500 + 1)))
        elif op in ("tool", "error"):
            name, args = (("read", {"path": f"f{n % 3}.py"}) if n % 2 else ("exec", {"command": f"run {n % 4}"}))
            messages.append(b.assistant([b.tool_call(name, args)]))
            messages.append(b.tool_result(b.last_tool_call_ids[0], name, "r" * (n % 3 * 2000 + 10), is_error=op == "error"))
        elif op == "text":
            messages.append(b.assistant("t" * (n % 300 + 1)))
        elif op == "compact" and len(messages) > 2:
            b.compaction("summary " * (n % 50 + 1), messages[n % len(messages)], 1000 + n)
        elif op == "branch" and len(messages) > 2:
            b.branch(messages[n % len(messages)])
        elif op == "synthetic":
            b.assistant("mirror", usage=zero_usage(), provider="openclaw", model="delivery-mirror", response_id=None)
        elif op == "aborted":
            b.assistant("partial", usage=zero_usage() if n % 2 else make_usage(n, 1), stop_reason="aborted")
        elif op == "wait":
            b.wait(n * 100)
        elif op == "model":
            b.model_change("openai", "gpt-4o-mini", api="openai-responses")
    b.assistant("end")
    b.write(path)


@settings(max_examples=40, deadline=None)
@given(OPS, st.sampled_from([None, 8000, 50000]))
def test_timeline_invariants(ops, window):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        build(ops, path)
        s = open_session(path)
        ctx = s.context()
        tl = build_timeline(s, ctx, TimelineOptions(window=WindowOptions(override=window)))
        data = tl.to_json()
        calls = tl.calls
        path_ids = {s.entries[i].id for i in ctx.path}

        # Calls in path order, numbered, on the path; every skipped one accounted for.
        positions = [c.path_position for c in calls]
        assert positions == sorted(positions) and len(set(positions)) == len(positions)
        assert [c.index for c in calls] == list(range(len(calls)))
        assert [c.line for c in calls] == sorted(c.line for c in calls)
        assert all(c.entry_id in path_ids for c in calls)

        # Totals agree with `stats --json`: Σ recorded usage over the calls = active path minus the skipped.
        active = session_stats(s, WindowOptions(override=window), None)["usage"]["active_path"]
        for k in USAGE_FIELDS:
            assert sum(c.usage.get(k, 0) for c in calls) + data["totals"]["skipped"][k] == active[k]
        assert len(calls) + data["skipped"]["synthetic"] + data["skipped"]["zero_usage"] == active["assistant_calls"]

        # Each estimate is the rebuilt context of the call's parent (unsent messages left out), and the
        # not-in-transcript figure is exactly prompt - estimate.
        for c in calls:
            rebuilt = build_context(s.tree, ctx.path[c.path_position - 1]) if c.path_position else None
            expected = 0
            if rebuilt is not None:
                expected = sum(
                    r.estimates["pi"]
                    for r in rebuilt.messages
                    if r.estimates and not r.excluded_from_llm and s.entries[r.entry_index].stop_reason not in ("error", "aborted")
                )
            assert c.transcript_estimate == expected
            assert c.not_in_transcript == c.prompt_tokens - c.transcript_estimate

        # Jumps: positive, largest first, between consecutive calls, causes taken from what was added.
        deltas = [j["delta_tokens"] for j in data["jumps"]]
        assert all(d > 0 for d in deltas) and deltas == sorted(deltas, reverse=True)
        for j in tl.jumps:
            assert calls[j.call_index].entry_id == j.entry_id and calls[j.call_index - 1].entry_id == j.previous_entry_id
            added = {a.entry_id for a in calls[j.call_index].added}
            assert set(j.to_json()["cause_entry_ids"]) <= added
            tokens = [c.pi_tokens for c in j.causes]
            assert tokens == sorted(tokens, reverse=True)

        # Thresholds: the first call above each line, and none before it.
        for t in tl.thresholds:
            above = [c for c in calls if c.prompt_tokens > t.tokens]
            assert t.call_index == (above[0].index if above else None)

        # Repeats: on the path, at least two occurrences, tokens = every occurrence but the first.
        for r in tl.repeats:
            assert r.count >= 2 and r.tokens == sum(r.occurrence_tokens[1:])
            assert all(e in path_ids for e in r.entry_ids)
        tokens = [r.tokens for r in tl.repeats]
        assert tokens == sorted(tokens, reverse=True)
