"""Why the prompt is bigger than the transcript: the estimator's error, or something really outside the transcript.

`not_in_transcript` (the recorded prompt minus the estimator's count of the transcript sent) mixes two things: what
is not in the session file (system prompt, tool schemas, injected context) and what the estimator gets wrong about
the transcript (chars/4 undercounts CJK text, minified code and base64, and overcounts images). Here they are split,
per call (`attribute`):

1. The transcript sent before each call is counted with a real tokenizer (`TOKENIZER`, tiktoken's cl100k_base; each
   message counted once and remembered in `session.token_counts`, as the other figures do), its image blocks at the
   estimator's own image figure (tiktoken does not count images: `misestimates.tokenizer_counts`):
   `transcript_tokens`.
2. The provider's tokenizer is not cl100k_base, so the ratio between the two is measured on the session's own calls
   (`calibrate`): for every two consecutive calls in one compaction segment whose transcript grew by at least
   `MIN_STEP_TOKENS` tokenizer tokens, Δ recorded prompt / Δ transcript tokens. The ratio is their median weighted
   by the growth: a change of the system prompt is one odd step among many and does not move it. Its quartiles say
   how much it varies with the content.
3. `estimator_error_tokens = ratio × transcript_tokens − transcript_estimate` and
   `overhead_tokens = prompt − ratio × transcript_tokens`; the two add up to `not_in_transcript`. The first call's
   overhead is the baseline (system prompt plus tools).
4. The overhead's trend (`TOLERANCE_RATIONALE`). A ratio off by a fraction δ moves every call's overhead by
   δ × ratio × transcript_tokens, so the overhead's slope can only be told from the ratio's error beyond δ × the
   transcript's slope. It is `rising`/`falling` when its slope passes `max(spread, MIN_RELATIVE_SPREAD)` × the
   transcript's slope (`trend_tolerance` in the JSON): `spread` is half the ratio's interquartile range, relative
   (how much one step's ratio varies with the content); the floor of a tenth covers what the per-step ratio does not
   see, measured on pi's `large-session.v1` (439 calls, Anthropic): (a) the walk sends exactly the messages pi 0.66.1
   sends (`buildSessionContext`, `convertToLlm`, pi-ai's `transformMessages`, checked call by call against pi's own
   functions: `tests/integration/test_timeline_pi_sent_oracle.py`), so no unsent message is missing from it; (b) its
   overhead rises 1,626 → 10,601, 7% of the transcript's slope, and that rise is 10 tokens per message sent (a line
   through the overhead against the messages sent leaves 409 tokens of spread, against 2,670 around a constant): the
   framing the provider counts around every message (role markers, tool-call ids and argument JSON) and the tokenizer
   count of the text does not, a per-message error of the count that grows with the transcript, not a system
   prompt. `overhead_per_message` in the JSON is that line's slope. A system prompt or a skill that grows is one step
   of thousands of tokens against a few hundred of framing.

Without a tokenizer the estimator itself is calibrated the same way (method `estimator_ratio`). Messages the
estimator gets far wrong (tokenizer / estimate beyond `FLAG_HIGH` or `FLAG_LOW`, at least `FLAG_MIN_TOKENS` apart)
are listed as `misestimated`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.base.cancel import checked
from inspector.figures.diagnosis.calls import AddedMessage, CallPoint, CallWalk
from inspector.figures.diagnosis.misestimates import (
    FLAG_HIGH,
    FLAG_LOW,
    FLAG_MIN_TOKENS,
    TIKTOKEN_ESTIMATOR,
    TOKENIZER,
    Misestimate,
    judge,
    misestimated,
    tokenizer_counts,
)
from inspector.figures.diagnosis.overhead import FLAT_SLOPE_TOKENS_PER_CALL, OverheadTrend, overhead_trend, slope
from inspector.figures.diagnosis.recorded_prompt import RecordedPrompt, recorded_system_prompt
from inspector.model import entries as m
from inspector.session.session import Session

__all__ = [
    "FLAG_HIGH",
    "FLAG_LOW",
    "FLAG_MIN_TOKENS",
    "TIKTOKEN_ESTIMATOR",
    "TOKENIZER",
    "Attribution",
    "Calibration",
    "Misestimate",
    "attribute",
    "calibrate",
    "misestimated",
]

MIN_STEP_TOKENS = 200
MIN_STEPS = 3
MIN_RELATIVE_SPREAD = 0.1
TOLERANCE_RATIONALE = (
    "overhead is rising/falling only when its slope passes max(ratio spread, 10%) x the transcript's slope: a ratio "
    "off by d moves the overhead by d x the transcript; the 10% floor covers the per-message framing the tokenizer's "
    "count of the text misses (about 10 tokens a message on Anthropic: see overhead_per_message) and the content mix"
)
MAX_FLAGGED = 50
METHOD_TOKENIZER = "tokenizer_ratio"
METHOD_ESTIMATOR = "estimator_ratio"
METHODS = {
    METHOD_TOKENIZER: "the transcript counted with tiktoken {encoding} (images at the estimator's own figure), times the "
    "provider/tiktoken ratio measured on this session's calls (weighted median of Δ prompt / Δ transcript between "
    "consecutive calls); estimator error = that minus the estimate; overhead = prompt minus that (first call = "
    "baseline of system prompt and tools); trend: " + TOLERANCE_RATIONALE,
    METHOD_ESTIMATOR: "no tokenizer: the estimate times the prompt/estimate ratio measured on this session's calls; "
    "estimator error = that minus the estimate; overhead = prompt minus that; trend: " + TOLERANCE_RATIONALE,
}


@dataclass(frozen=True, slots=True)
class Calibration:
    """The provider's tokens per counted token, measured on the session's calls (`source` says how)."""

    ratio: float
    low: float
    high: float
    steps: int
    source: str

    @property
    def spread(self) -> float:
        """Half the interquartile range, relative to the ratio: how much the ratio varies with the content."""
        return (self.high - self.low) / 2 / self.ratio if self.ratio > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {"ratio": round(self.ratio, 4), "low": round(self.low, 4), "high": round(self.high, 4), "steps": self.steps, "source": self.source}


def _weighted_quantile(pairs: list[tuple[float, float]], q: float) -> float:
    """The `q` quantile of `(value, weight)` pairs (the first value whose cumulative weight reaches `q`)."""
    ordered = sorted(pairs)
    total = sum(w for _, w in ordered)
    acc = 0.0
    for value, weight in ordered:
        acc += weight
        if acc >= q * total:
            return value
    return ordered[-1][0]


def calibrate(calls: Sequence[CallPoint], counted: Sequence[int | float]) -> Calibration:
    """The ratio of recorded prompt growth to `counted` growth over consecutive calls of one compaction segment
    (module docstring, point 2); 1.0 (`source` "as_is") with fewer than `MIN_STEPS` such steps."""
    pairs: list[tuple[float, float]] = []
    for i in range(1, len(calls)):
        prev, cur = calls[i - 1], calls[i]
        grew = counted[i] - counted[i - 1]
        if cur.compaction_id != prev.compaction_id or grew < MIN_STEP_TOKENS or prev.prompt_tokens <= 0:
            continue
        pairs.append(((cur.prompt_tokens - prev.prompt_tokens) / grew, grew))
    if len(pairs) < MIN_STEPS:
        return Calibration(1.0, 1.0, 1.0, len(pairs), "as_is")
    ratio = _weighted_quantile(pairs, 0.5)
    if ratio <= 0:
        return Calibration(1.0, 1.0, 1.0, len(pairs), "as_is")
    return Calibration(ratio, _weighted_quantile(pairs, 0.25), _weighted_quantile(pairs, 0.75), len(pairs), "session_calls")


@dataclass(slots=True)
class Attribution:
    """The split of `not_in_transcript` over the calls (module docstring): how, and what it found."""

    method: str
    encoding: str | None
    estimator: str
    calibration: Calibration
    baseline_overhead: int | float | None
    latest_overhead: int | float | None
    latest_error: int | float | None
    overhead_trend: OverheadTrend
    error_trend: OverheadTrend
    misestimated: list[Misestimate] = field(default_factory=list)
    tokenizer_info: dict[str, Any] = field(default_factory=dict)
    tolerance: float = 0.0
    """The overhead slope (tokens per call) within which it is flat (module docstring, point 4)."""
    relative_tolerance: float = MIN_RELATIVE_SPREAD
    overhead_per_message: float | None = None
    recorded_prompt: RecordedPrompt | None = None
    """The system prompt the file records (Codex's `base_instructions`): part of the baseline overhead, its size
    known (`recorded_prompt`); None when the file records none."""
    """The least-squares slope of the overhead against the messages sent (tokens per message; point 4)."""

    @property
    def overhead_change(self) -> int | float | None:
        """Latest overhead minus the first call's."""
        if self.latest_overhead is None or self.baseline_overhead is None:
            return None
        return self.latest_overhead - self.baseline_overhead

    @property
    def verdict(self) -> str:
        """One line: what the gap between prompt and estimate is mostly made of, and whether the overhead moves."""
        if self.latest_overhead is None:
            return "no calls"
        trend = self.overhead_trend.direction
        moving = "flat" if trend == "flat" else f"{trend} ({self.overhead_change:+,.0f} since the first call)"
        return f"overhead {moving}; estimator error {self.latest_error:+,.0f} at the last call ({self.error_trend.direction})"

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "derived": True,
            "method": self.method,
            "method_text": METHODS[self.method].format(encoding=self.encoding),
            "estimator": self.estimator,
            "tokenizer": self.tokenizer_info,
            "calibration": self.calibration.to_json(),
            "baseline_overhead": self.baseline_overhead,
            "latest_overhead": self.latest_overhead,
            "overhead_change": self.overhead_change,
            "overhead_trend": self.overhead_trend.to_json(),
            "latest_estimator_error": self.latest_error,
            "estimator_error_trend": self.error_trend.to_json(),
            "trend_tolerance": {
                "tokens_per_call": round(self.tolerance, 2),
                "relative_to_transcript_slope": round(self.relative_tolerance, 4),
                "rationale": TOLERANCE_RATIONALE,
            },
            "overhead_per_message": self.overhead_per_message,
            "verdict": self.verdict,
            "misestimated": [x.to_json() for x in self.misestimated],
            **self._recorded_json(),
        }

    def _recorded_json(self) -> dict[str, Any]:
        """`recorded_system_prompt_tokens` (its estimate), its line and source, and the baseline overhead beyond it
        (tool schemas, injected context), when the file records a system prompt; nothing otherwise."""
        p = self.recorded_prompt
        if p is None:
            return {}
        beyond = None if self.baseline_overhead is None else self.baseline_overhead - p.tokens
        return {
            "recorded_system_prompt_tokens": p.tokens, "recorded_system_prompt_chars": p.chars,
            "recorded_system_prompt_line": p.line, "recorded_system_prompt_source": p.source,
            "baseline_overhead_beyond_recorded_prompt": beyond,
        }


def _replay(walk: CallWalk, size: Callable[[m.ContextMessage], int]) -> list[int]:
    """The sum of `size` over the context each call was sent (the walk's ledger replayed)."""
    sums: list[int] = []
    total = 0
    step = 0
    for call in checked(walk.calls):
        while step < call.ledger_at:
            reset, rows = walk.ledger[step]
            total = (0 if reset else total) + sum(size(r) for r in rows)
            step += 1
        sums.append(total)
    return sums


def _counts(session: Session, walk: CallWalk, estimator: str, tokenizer: str | None) -> tuple[dict[int, int] | None, dict[str, Any]]:
    """The tokenizer count of every row the walk sent, by entry index, images at the estimator's figure
    (`misestimates.tokenizer_counts`; None: no tokenizer)."""
    return tokenizer_counts(session, [r for _, rows in walk.ledger for r in rows], estimator, tokenizer)


def attribute(session: Session, walk: CallWalk, estimator: str = "pi", tokenizer: str | None = TOKENIZER) -> Attribution:
    """Split every call's `not_in_transcript` into `overhead_tokens` and `estimator_error_tokens` (set on the calls
    and their added messages in place); with `estimator` "tiktoken" the tokenizer is the estimate too. `tokenizer`:
    the tiktoken encoding (None: no tokenizer, the estimator is calibrated on the calls instead)."""
    if estimator == TIKTOKEN_ESTIMATOR and tokenizer is None:
        tokenizer = TOKENIZER
    counts, info = _counts(session, walk, estimator, tokenizer)
    calls = walk.calls
    if counts is not None:
        tokens = _replay(walk, lambda r: counts.get(r.entry_index, 0))
        index_of = {r.entry_id: r.entry_index for _, rows in walk.ledger for r in rows}
        for i, call in enumerate(calls):
            call.transcript_tokens = tokens[i]
            call.added = [_with_count(a, counts.get(index_of.get(a.entry_id, -1)), estimator == TIKTOKEN_ESTIMATOR) for a in call.added]
            if estimator == TIKTOKEN_ESTIMATOR:
                call.transcript_estimate = tokens[i]
        counted: list[int | float] = list(tokens)
        method = METHOD_TOKENIZER
    else:
        counted = [c.transcript_estimate for c in calls]
        method = METHOD_ESTIMATOR
    calibration = calibrate(calls, counted)
    for call, n in zip(calls, counted):
        in_tokens = round(calibration.ratio * n)
        call.overhead_tokens = call.prompt_tokens - in_tokens
        call.estimator_error_tokens = in_tokens - call.transcript_estimate
    used = [c for c in calls if c.prompt_tokens > 0]
    overhead = [float(c.overhead_tokens or 0) for c in used]
    transcript_slope = slope([calibration.ratio * n for c, n in zip(calls, counted) if c.prompt_tokens > 0]) or 0.0
    relative = max(calibration.spread, MIN_RELATIVE_SPREAD)
    tolerance = max(FLAT_SLOPE_TOKENS_PER_CALL, relative * abs(transcript_slope))
    return Attribution(
        method=method,
        encoding=info.get("encoding") if counts is not None else None,
        estimator=estimator,
        calibration=calibration,
        baseline_overhead=used[0].overhead_tokens if used else None,
        latest_overhead=used[-1].overhead_tokens if used else None,
        latest_error=used[-1].estimator_error_tokens if used else None,
        overhead_trend=overhead_trend(overhead, tolerance),
        error_trend=overhead_trend([float(c.estimator_error_tokens or 0) for c in used], tolerance),
        misestimated=_flagged(walk, counts) if counts is not None else [],
        tokenizer_info=info,
        tolerance=tolerance,
        relative_tolerance=relative,
        overhead_per_message=_per_message(used),
        recorded_prompt=recorded_system_prompt(session),
    )


def _per_message(calls: list[CallPoint]) -> float | None:
    """The least-squares slope of the calls' overhead against the messages each was sent (None: under two distinct
    message counts)."""
    xs = [float(c.context_messages) for c in calls]
    ys = [float(c.overhead_tokens or 0) for c in calls]
    if len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx, 2)


def _with_count(added: AddedMessage, count: int | None, as_estimate: bool) -> AddedMessage:
    """`added` with its tokenizer count (and that count as its estimate when the tokenizer is the estimator)."""
    if as_estimate:
        return dataclasses.replace(added, tokenizer_tokens=count, estimate_tokens=count or 0)
    return dataclasses.replace(added, tokenizer_tokens=count)


def _flagged(walk: CallWalk, counts: dict[int, int]) -> list[Misestimate]:
    """The sent messages the estimator gets far wrong, largest difference first (at most `MAX_FLAGGED`)."""
    estimates: dict[str | None, int] = {}
    for call in walk.calls:
        for a in call.added:
            estimates.setdefault(a.entry_id, a.tokens)
    seen: set[int] = set()
    found: list[Misestimate] = []
    for _, rows in walk.ledger:
        for r in rows:
            if r.entry_index in seen:
                continue
            seen.add(r.entry_index)
            estimate = estimates.get(r.entry_id)
            flagged = judge(r, estimate, counts.get(r.entry_index)) if estimate is not None else None
            if flagged is not None:
                found.append(flagged)
    found.sort(key=lambda x: (-abs(x.difference), x.line))
    return found[:MAX_FLAGGED]
