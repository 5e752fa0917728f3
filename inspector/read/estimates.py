"""What the reader computes for each message at index time: a rule set's estimates, handed to it from above.

The reader (`records`, `column_runs`, `jsonl_reader`) is below the rules in the layers: it does not know which
release's estimators it runs. A `ReaderEstimates` carries them: the rule set's id (the index cache keys its
snapshots by it), the `EstimateLayout` rows are packed with, `estimate_all` (a message dict -> its estimates in the
layout's order) and, optionally, a fused record builder per role (`fused`: `role -> (obj, msg, note) ->
MessageRecord`, equal to the general path field for field, for speed). `inspector.rules.ruleset.RuleSet.reader_estimates`
makes one from a release's `tokens` part; the composition root (`inspector/__init__.py`) names the resolver
`reader_estimates(rules_id)` uses (`READER_ESTIMATES_RESOLVER`), so that code below the rules can name a rule set by
its id without importing the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.read.record_types import MessageRecord
from inspector.storage.estimate_layout import EstimateLayout

FusedBuilder = Callable[[dict[str, Any], dict[str, Any], "str | None"], MessageRecord]
"""A fused record builder: `(entry obj, its message dict, parse note) -> MessageRecord`."""


@dataclass(frozen=True, eq=False)
class ReaderEstimates:
    """A rule set's per-message estimates, as the reader needs them (see the module docstring).

    Pickles by reference (its functions are module-level), so worker processes get the same one."""

    rules_id: str
    layout: EstimateLayout
    estimate_all: Callable[[dict[str, Any]], tuple[int, ...]]
    fused: Mapping[str, FusedBuilder] = field(default_factory=dict)
    context_rebuild: Any = None
    extra_entry_types: frozenset[str] = frozenset()
    """Entry types these rules know beyond pi 0.66.1's (`model.KNOWN_ENTRY_TYPES`): not reported as unknown."""
    """The rule set's `context_rebuild` part (`build_context`, `continues_leaf`, `extend_context`, `follow_leaf`): how
    a session read under these rules rebuilds its context (None: the shared walk's defaults, pi 0.66.1's)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (reader_estimates, (self.rules_id,))


_resolver: Callable[[str | None], ReaderEstimates] | None = None
_resolved: dict[str | None, ReaderEstimates] = {}
"""What the resolver gave per id: the reader asks for its estimates per entry (a dict read, not a rule set lookup)."""


def register_resolver(resolve: Callable[[str | None], ReaderEstimates]) -> None:
    """Set how a rule set id (None: the default rule set) becomes its `ReaderEstimates` (instead of the composition
    root's `READER_ESTIMATES_RESOLVER`)."""
    global _resolver
    _resolver = resolve
    _resolved.clear()


def reader_estimates(rules_id: str | None = None) -> ReaderEstimates:
    """The reader estimates of the rule set `rules_id` (None: the default rule set)."""
    got = _resolved.get(rules_id)
    if got is not None:
        return got
    global _resolver
    if _resolver is None:
        import importlib

        from inspector import READER_ESTIMATES_RESOLVER

        module, name = READER_ESTIMATES_RESOLVER.split(":")
        _resolver = getattr(importlib.import_module(module), name)
    got = _resolved[rules_id] = _resolver(rules_id)
    return got
