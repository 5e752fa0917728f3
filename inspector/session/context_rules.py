"""What differs between releases in the context walk (`inspector.session.context.build_context`), as data: the walk
is one implementation, each release's `context_rebuild` part gives it its `ContextRules`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from inspector.model import entries as m
from inspector.storage.entry_table import EntryTable

ResetKept = Callable[[EntryTable, Sequence[int]], set[int]]
"""Which of the entries (indices, in path order) between a reset's first kept entry and the reset stay in the context."""


@dataclass(frozen=True, slots=True)
class ContextRules:
    """What differs between releases in the context walk over a path (the path itself, chosen by the release's
    navigation, is given): which entry types are boundaries, whether excluded messages are left out, and which
    entries a `reset` keeps before it."""

    key: str
    """Names the rules in `EntryTable.per_shape` (the shapes' kinds depend on the boundary types)."""
    boundary_types: frozenset[str]
    """Entry types that start the context: the last one on the path wins (a compaction adds its summary row)."""
    skips_excluded: bool = False
    """Leave out `message` entries flagged `FLAG_EXCLUDE_TRUE` (`excludeFromContext === true`), except those a reset
    keeps."""
    reset_kept: ResetKept | None = None
    """For a `reset` boundary: the entries it keeps from `firstKeptEntryId` on (None: every message entry)."""
    first_kept: Callable[[EntryTable, int, object], object] | None = None
    """The `firstKeptEntryId` boundary `index` stands for, from the one it stores (None: as stored)."""


PI_0_66_CONTEXT = ContextRules("path_kinds", frozenset({m.COMPACTION}))
"""pi 0.66.1's `buildSessionContext` (OpenClaw 2026.4.12): the last compaction is the one boundary; unknown entry
types (a `reset`, a `leaf` row) are on the path but contribute nothing; nothing is left out."""
