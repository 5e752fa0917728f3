"""Per-message sizes and running totals over a context, as compact arrays (the transcript's size columns and
`context --json`'s `cumulative_pi_tokens`).

Arrays of signed 64-bit ints (`array('q')`, unknown = `UNKNOWN`) rather than lists: on a 300k-message session
they are the only per-row containers, and arrays are invisible to the cyclic garbage collector. Every function
takes a `[start, stop)` slice of the context so a live append only computes the new rows.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any

from inspector.model import entries as m
from inspector.rules.ruleset import Estimator
from inspector.session.session import Session

UNKNOWN = -1
"""A size that is not known or does not apply (e.g. recorded usage on a tool result)."""

_nums = attrgetter("nums")


def index_estimators(session: Session) -> tuple[Estimator, ...]:
    """The estimators the session's index holds a value of for every message, in its order: those of the rule set
    the reader computed them with (the session's: `Session.rules_id`). The figures iterate these,
    never a list of their own."""
    estimators: tuple[Estimator, ...] = session.entries.layout.estimators
    return estimators


def int_array(values: Iterable[int] = ()) -> array:
    """An `array('q')` of `values`."""
    return array("q", values)


def estimate_sizes(messages: Sequence[m.ContextMessage], estimator: str, start: int = 0, stop: int | None = None) -> array:
    """The size of each message of `messages[start:stop]` under the estimator called `estimator` (`"pi"`: a name of
    `index_estimators`); 0 for a message without estimates. Read from the rows' packed numbers by their layout, the
    estimate's slot found once (`EstimateLayout.sizes`)."""
    rows = messages[start:stop]
    if not rows:
        return int_array()
    return rows[0].layout.sizes(map(_nums, rows), estimator)


def recorded_output_sizes(messages: Sequence[m.ContextMessage], start: int = 0, stop: int | None = None) -> array:
    """The recorded `usage.output` of each assistant message of `messages[start:stop]`; `UNKNOWN` elsewhere."""
    out = int_array()
    for r in messages[start:stop]:
        u = r.usage if r.role == "assistant" else None
        v = u.get("output") if isinstance(u, dict) else None
        out.append(v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else UNKNOWN)
    return out


def running_totals(sizes: array, start: int = 0, stop: int | None = None, carry: int = 0) -> array:
    """Inclusive running sums of `sizes[start:stop]` starting from `carry` (unknown sizes add nothing)."""
    total = carry if carry != UNKNOWN else 0
    out = int_array()
    for v in sizes[start:stop]:
        total += v if v > 0 else 0
        out.append(total)
    return out


def recorded_context_running(
    messages: Sequence[m.ContextMessage],
    calculate_context_tokens: Callable[[dict[str, Any]], int],
    start: int = 0,
    stop: int | None = None,
    carry: int = UNKNOWN,
) -> array:
    """The recorded context at each message of `messages[start:stop]`: the rules' `calculate_context_tokens(usage)`
    (pi's `calculateContextTokens`) of the latest assistant call with non-zero usage so far (`carry` before `start`;
    `UNKNOWN` before any)."""
    out = int_array()
    cur = carry
    for r in messages[start:stop]:
        if r.role == "assistant":
            u = r.usage
            if isinstance(u, dict):
                v = calculate_context_tokens(u)
                if v:
                    cur = v
        out.append(cur)
    return out
