"""The messages an estimator gets far wrong, and the tokenizer's count of a message that images do not skew.

One home for the judgement the timeline's `attribution.misestimated` list and the transcript's flag both show:

- `tokenizer_counts(session, rows, estimator)`: per row, tiktoken's count of the text the model sees (`TOKENIZER`,
  remembered in `session.token_counts` as the other figures do) plus the *estimator's own image figure* for the row's
  image blocks. tiktoken does not count images; the provider does, and every estimator has its figure for one (pi's
  `estimateTokens` 1,200 tokens in a tool result, 0 in a user message; OpenClaw's pruner 8,000 chars...). Counting an
  image the same on both sides keeps images out of the estimator error and the overhead (an image is no more a sign
  of a mis-estimate than of a growing system prompt): the image figure of a row is the estimator's figure of the
  message minus its figure of the message without its image blocks (the rule set's own `estimate_all`, so every
  release's weights hold). Under the `tiktoken` estimator the rule set's first estimator (pi's) gives it.
  Only the rows whose entry has an image block (the index's block kinds) are read for it, once per entry and session
  (`counting.bulk.messages_containing`).
- `judge(row, estimate, tokenizer)`: a `Misestimate` when tokenizer / estimate is beyond `FLAG_HIGH` or `FLAG_LOW`
  and the two are at least `FLAG_MIN_TOKENS` apart (`misestimated`), else None.
- `row_misestimates(session, rows, estimator)`: both for a few rows (the transcript's rows on screen).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.counting.bulk import messages_containing, rows_line_jobs
from inspector.figures.diagnosis.calls import estimator_chars_per_token, row_estimate
from inspector.figures.session_figures import tiktoken_counts_of
from inspector.figures.sizes import index_estimators
from inspector.model import entries as m
from inspector.session.session import Session

TOKENIZER = "cl100k_base"
TIKTOKEN_ESTIMATOR = "tiktoken"
"""The timeline estimator name that makes the tokenizer the estimate too."""
FLAG_HIGH = 1.5
FLAG_LOW = 1 / 1.5
FLAG_MIN_TOKENS = 200
IMAGE_NEEDLE = b'"image"'
"""Bytes every line holding an image block has (`"type":"image"`)."""


@dataclass(frozen=True, slots=True)
class Misestimate:
    """A message the estimator gets far wrong: its estimate, the tokenizer's count and their ratio."""

    entry_id: str | None
    line: int
    role: str
    tool_name: str | None
    estimate: int
    tokenizer: int
    ratio: float | None
    """tokenizer / estimate, rounded to 2 places (None: the estimate is 0)."""

    @property
    def difference(self) -> int:
        """Tokenizer minus estimate (positive: the estimator undercounts)."""
        return self.tokenizer - self.estimate

    @property
    def direction(self) -> str:
        """`under` (the estimator undercounts) or `over`."""
        return "under" if self.difference > 0 else "over"

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "entry_id": self.entry_id,
            "line": self.line,
            "role": self.role,
            "tool_name": self.tool_name,
            "estimate_tokens": self.estimate,
            "tokenizer_tokens": self.tokenizer,
            "ratio": self.ratio,
            "difference": self.difference,
            "direction": self.direction,
        }


def misestimated(estimate: int, tokenizer: int | None) -> float | None:
    """tokenizer / estimate when the estimator is far off (beyond `FLAG_HIGH`/`FLAG_LOW` and `FLAG_MIN_TOKENS`
    apart), else None."""
    if tokenizer is None or abs(tokenizer - estimate) < FLAG_MIN_TOKENS:
        return None
    if estimate <= 0:
        return float("inf")
    ratio = tokenizer / estimate
    return round(ratio, 2) if ratio >= FLAG_HIGH or ratio <= FLAG_LOW else None


def judge(row: m.ContextMessage, estimate: int, tokenizer: int | None) -> Misestimate | None:
    """The row's `Misestimate` when `estimate` is far from `tokenizer` (`misestimated`), else None."""
    ratio = misestimated(estimate, tokenizer)
    if ratio is None or tokenizer is None:
        return None
    return Misestimate(row.entry_id, row.line, row.role, row.tool_name, estimate, tokenizer, ratio if ratio != float("inf") else None)


@dataclass(slots=True)
class _ImageMemo:
    """The image rows of one session's index already read: `estimate_all` of the message and of the message without
    its image blocks (None: the estimators do not count its images), by entry index."""

    table: Any
    figures: dict[int, tuple[tuple[int, ...], tuple[int, ...]] | None] = field(default_factory=dict)


_MEMOS: weakref.WeakKeyDictionary[Session, _ImageMemo] = weakref.WeakKeyDictionary()


def _without_images(msg: dict[str, Any]) -> dict[str, Any]:
    content = msg.get("content")
    if not isinstance(content, list):
        return msg
    return {**msg, "content": [b for b in content if not (isinstance(b, dict) and b.get("type") == "image")]}


def _image_memo(session: Session, rows: Sequence[m.ContextMessage]) -> _ImageMemo:
    """The session's memo, with every row of `rows` whose entry has an image block (the index's block kinds) read."""
    memo = _MEMOS.get(session)
    if memo is None or memo.table is not session.entries:
        memo = _MEMOS[session] = _ImageMemo(session.entries)
    shape_of = session.entries.shape_of
    todo = [r for r in rows if r.entry_index not in memo.figures and "image" in shape_of(r.entry_index)[6]]
    if not todo:
        return memo
    _, _, jobs = rows_line_jobs(session, todo, {})
    estimate_all = session.estimates.estimate_all
    found: dict[int, tuple[tuple[int, ...], tuple[int, ...]] | None] = dict.fromkeys((r.entry_index for r in todo), None)
    for pos, msg in messages_containing(str(session.path), jobs, session.version, IMAGE_NEEDLE):
        full, text = tuple(estimate_all(msg)), tuple(estimate_all(_without_images(msg)))
        if full != text:
            found[todo[pos].entry_index] = (full, text)
    # Published whole once read: another thread (the transcript's flags beside the timeline) never sees a row marked
    # read before its figures are in.
    memo.figures.update(found)
    return memo


def image_tokens(session: Session, rows: Sequence[m.ContextMessage], estimator: str) -> dict[int, int]:
    """The estimator's figure for the image blocks of each row that has one, in its tokens, by entry index (module
    docstring); `tiktoken` takes the rule set's first estimator's."""
    estimators = index_estimators(session)
    if not estimators:
        return {}
    name = estimators[0].name if estimator == TIKTOKEN_ESTIMATOR else estimator
    slot = next((k for k, est in enumerate(estimators) if est.name == name), None)
    if slot is None:
        raise ValueError(f"unknown estimator {estimator!r}")
    per_token = estimator_chars_per_token(session, name)
    memo = _image_memo(session, rows)
    out: dict[int, int] = {}
    for r in rows:
        got = memo.figures.get(r.entry_index)
        if got is None:
            continue
        full, text = got[0][slot], got[1][slot]
        tokens = (-(-full // per_token) - -(-text // per_token)) if per_token > 0 else full - text
        if tokens:
            out[r.entry_index] = int(tokens)
    return out


def tokenizer_counts(
    session: Session, rows: Sequence[m.ContextMessage], estimator: str, tokenizer: str | None = TOKENIZER,
) -> tuple[dict[int, int] | None, dict[str, Any]]:
    """Per distinct row (by entry index): tiktoken's count (encoding `tokenizer`) of its text plus `estimator`'s
    figure for its images (module docstring); None without a tokenizer (`tokenizer` None, or tiktoken unavailable).
    The info says which encoding counted and how images were counted."""
    unique = list({r.entry_index: r for r in rows}.values())
    counts, info = tiktoken_counts_of(session, unique, tokenizer)
    if counts is None or not info.get("enabled"):
        return None, info
    out = {r.entry_index: c or 0 for r, c in zip(unique, counts)}
    images = image_tokens(session, unique, estimator)
    for index, tokens in images.items():
        out[index] += tokens
    return out, {**info, "images": "counted as the estimator's own image figure on both sides", "image_messages": len(images)}


def row_misestimates(session: Session, rows: Sequence[m.ContextMessage], estimator: str = "pi") -> dict[int, Misestimate | None]:
    """`judge` of each row under the index's estimator `estimator` (or `tiktoken`: never off), by entry index: the
    figure the transcript flags a row with, the same the timeline lists. Empty without a tokenizer."""
    counts, _ = tokenizer_counts(session, rows, estimator)
    if counts is None:
        return {}
    per_token = 0.0 if estimator == TIKTOKEN_ESTIMATOR else estimator_chars_per_token(session, estimator)
    out: dict[int, Misestimate | None] = {}
    for r in rows:
        tok = counts.get(r.entry_index)
        estimate = tok or 0 if estimator == TIKTOKEN_ESTIMATOR else row_estimate(r, estimator, per_token)
        out[r.entry_index] = judge(r, estimate, tok)
    return out
