"""OpenClaw 2026.9.6's compaction preparation (its agent core's `prepareCompaction` / `findCutPoint`), on the index.

A port of `dist/compaction-*.mjs` (`packages/agent-core/src/harness/compaction/compaction.ts`) without the
foreground `budget` constraint (the pre-prompt budget route's own cut), on entry metadata as 2026.4.12's is.
What changed since pi 0.66.1:

- `keepRecentTokens` is divided by the usage / estimate ratio of the context (`triggerUnitScale = min(max(1,
  keep), max(1, usageTokens / Σ estimateTokens))`): when the provider measured more than the chars/4 estimate
  says, the kept tail is estimated in the provider's units and the cut point moves later (`scaled_keep`,
  `ScaledKeep`, the new names);
- every entry that projects to a message (`custom_message`, `branch_summary`, not only `message`) counts toward
  the kept tail and stops the walk that pulls metadata entries into the kept tail; a cut at a custom message,
  a branch summary or a `bashExecution` starts a turn (no split turn);
- a path ending on a compaction written by pi itself (not a hook) is planned again; a plan with nothing to
  summarize returns nothing;
- file operations: `file_path` / `filePath` arguments, tool names lower-cased with an `mcp__server__` prefix
  removed, and `apply_patch` results' `details.summary.added` / `modified`.

Not reproduced: `reset` entries and their kept prelude (the index has no such entry type yet), and the runtime
context carrier (`details.runtimeContextCarrier` custom messages are not cut points). Sizes are the index's
per-entry `pi` estimate (the estimator of the rule set the index was built with).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.base.cancel import checked
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.compaction.prepare import (
    DEFAULT_KEEP_RECENT_TOKENS,
    DEFAULT_RESERVE_TOKENS,
    CompactionSettings,
    CutPoint,
    FileOps,
    NothingToPlan,
    gather_file_ops,
    js_sort_key,
    js_sorted,
    resolve_boundary,
    summarized_positions,
)
from inspector.rules.openclaw_2026_4_12.compaction.prepare import Preparation as _AprilPreparation
from inspector.rules.openclaw_2026_4_12.tokens.context_usage import last_context_usage
from inspector.session.session import Session

__all__ = [
    "DEFAULT_KEEP_RECENT_TOKENS",
    "DEFAULT_RESERVE_TOKENS",
    "CompactionSettings",
    "CutPoint",
    "FileOps",
    "NothingToPlan",
    "js_sort_key",
    "js_sorted",
    "resolve_boundary",
]

MAX_SAFE_INTEGER = 2**53 - 1
_CUT_POINT_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"})
_TURN_START_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary", "user"})
_FILE_TOOLS = {"read": "read", "write": "written", "edit": "edited"}


@dataclass(frozen=True, slots=True)
class ScaledKeep:
    """`keepRecentTokens` as 2026.9 applies it: `configured / scale`, `scale = min(max(1, configured),
    max(1, usage_tokens / estimated_tokens))` (1 without a recorded usage or without an estimate)."""

    configured: int
    usage_tokens: int
    estimated_tokens: int
    scale: float
    keep_recent_tokens: float

    @property
    def scaled(self) -> bool:
        """Whether the ratio moved the cut point (the scale is above 1)."""
        return self.scale > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "configured": self.configured,
            "usage_tokens": self.usage_tokens,
            "estimated_tokens": self.estimated_tokens,
            "scale": self.scale,
            "keep_recent_tokens": self.keep_recent_tokens,
            "scaled": self.scaled,
        }


def scaled_keep(configured: int, usage_tokens: float, estimated_tokens: float) -> ScaledKeep:
    """`prepareCompaction`'s `triggerUnitScale` and the keep it gives (see `ScaledKeep`)."""
    if estimated_tokens > 0 and math.isfinite(estimated_tokens) and math.isfinite(usage_tokens):
        scale = min(max(1, configured), max(1, usage_tokens / estimated_tokens))
    else:
        scale = 1
    keep = min(MAX_SAFE_INTEGER, configured / scale)
    return ScaledKeep(configured, int(usage_tokens), int(estimated_tokens), scale, keep)


@dataclass(slots=True)
class Preparation(_AprilPreparation):
    """2026.4.12's `Preparation` plus `keep` (the scaled `keepRecentTokens` the cut point used)."""

    keep: ScaledKeep | None = None


def produces_message(entry: m.Entry) -> bool:
    """`getMessageFromEntryForCompaction` (`projectSessionEntryMessage`): messages not excluded from the context,
    custom messages and branch summaries (even empty); never a compaction."""
    if entry.type == m.MESSAGE:
        return entry.role is not None and not entry.excluded_from_context
    return entry.type == m.CUSTOM_MESSAGE or entry.type == m.BRANCH_SUMMARY


def _role(entry: m.Entry) -> str | None:
    if entry.type == m.CUSTOM_MESSAGE:
        return "custom"
    if entry.type == m.BRANCH_SUMMARY:
        return "branchSummary"
    return entry.role if produces_message(entry) else None


def is_cut_point(entry: m.Entry) -> bool:
    """`isCutPointMessage` of the entry's message: user, assistant, bashExecution, custom, summaries; never a tool result."""
    return _role(entry) in _CUT_POINT_ROLES


def is_turn_start(entry: m.Entry) -> bool:
    """`isTurnStartEntry`: user, bashExecution, custom and summary messages start a turn (not assistant, toolResult)."""
    return _role(entry) in _TURN_START_ROLES


def find_turn_start_index(entries: Sequence[m.Entry], path: Sequence[int], pos: int, start: int) -> int:
    """`findTurnStartIndex`: the nearest turn-start entry at or before `pos` (-1 when none)."""
    for i in range(pos, start - 1, -1):
        if is_turn_start(entries[path[i]]):
            return i
    return -1


def find_cut_point(entries: Sequence[m.Entry], path: Sequence[int], start: int, end: int, keep_recent_tokens: float) -> CutPoint:
    """`findCutPoint(entries, startIndex, endIndex, keepRecentTokens)` without constraints, on path positions.

    Walk back from the newest entry summing the estimate of every entry that projects to a message, moving the
    cut to each cut point met; stop once the sum reaches `keep_recent_tokens`. Then pull in the entries right
    before the cut that project to no message (stopping at a message, a message-producing entry or a
    compaction). A cut that does not start a turn splits one when a turn start exists before it.
    """
    cut = -1
    for i in checked(range(start, end)):
        if is_cut_point(entries[path[i]]):
            cut = i
    if cut < 0:
        return CutPoint(start, -1, False)
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        e = entries[path[i]]
        if not produces_message(e):
            continue
        if is_cut_point(e):
            cut = i
        accumulated += e.estimate("pi") or 0
        if accumulated >= keep_recent_tokens:
            break
    while cut > start:
        prev = entries[path[cut - 1]]
        if prev.type == m.COMPACTION or prev.type == "reset" or prev.type == m.MESSAGE or produces_message(prev):
            break
        cut -= 1
    starts = is_turn_start(entries[path[cut]])
    turn_start = -1 if starts else find_turn_start_index(entries, path, cut, start)
    return CutPoint(cut, turn_start, not starts and turn_start != -1)


def _normalize_tool_name(value: Any) -> str:
    """`normalizeFileToolName`: lower-cased, without an `mcp__server__` (or `server__`) prefix."""
    name = value.lower() if isinstance(value, str) else ""
    sep = name.find("__", 5 if name.startswith("mcp__") else 0)
    return name if sep < 0 else name[sep + 2 :]


def _record(value: Any) -> dict[str, Any] | None:
    return value if type(value) is dict else None


def _add_paths(target: dict[Any, None], value: Any) -> None:
    for path in value if type(value) is list else []:
        if type(path) is str:
            target.setdefault(path)


def extract_file_ops_from_message(message: Any, ops: FileOps) -> None:
    """2026.9 `extractFileOpsFromMessage`: read/write/edit tool calls (`path`, `file_path` or `filePath`) and
    `apply_patch` results (`details.summary.added` are written, `modified` edited)."""
    msg = _record(message)
    if msg is None:
        return
    if msg.get("role") == "toolResult":
        if _normalize_tool_name(msg.get("toolName")) != "apply_patch":
            return
        content = msg.get("content")
        for result in [msg, *(content if type(content) is list else [])]:
            summary = _record((_record((_record(result) or {}).get("details")) or {}).get("summary"))
            if summary is not None:
                _add_paths(ops.written, summary.get("added"))
                _add_paths(ops.edited, summary.get("modified"))
        return
    content = msg.get("content")
    if msg.get("role") != "assistant" or type(content) is not list:
        return
    for block in content:
        call = _record(block)
        if call is None or call.get("type") != "toolCall":
            continue
        args = _record(call.get("arguments")) or {}
        path = next((v for v in (args.get("path"), args.get("file_path"), args.get("filePath")) if type(v) is str), None)
        if not path:
            continue
        slot = _FILE_TOOLS.get(_normalize_tool_name(call.get("name")))
        if slot is not None:
            getattr(ops, slot).setdefault(path)


def may_have_file_ops(entry: m.Entry) -> bool:
    """Whether an entry's message could add a file operation (decided from metadata)."""
    if entry.type != m.MESSAGE:
        return False
    if entry.role == "toolResult":
        return _normalize_tool_name(entry.tool_name) == "apply_patch"
    if entry.role != "assistant" or "toolCall" not in entry.block_kinds:
        return False
    names = (entry.tool_name or "").lower()
    return any(t in names for t in _FILE_TOOLS)


def _previous_details(ops: FileOps, comp: m.Entry) -> None:
    """`parseCompactionDetails` of a previous compaction not written by a hook: both lists must hold strings only."""
    data = comp.data or {}
    if data.get("fromHook"):
        return
    details = _record(data.get("details"))
    if details is None:
        return
    read, modified = details.get("readFiles"), details.get("modifiedFiles")
    if type(read) is not list or type(modified) is not list:
        return
    if not all(type(f) is str for f in read) or not all(type(f) is str for f in modified):
        return
    _add_paths(ops.read, read)
    _add_paths(ops.edited, modified)


def prepare_compaction(session: Session, ctx: m.SessionContext, settings: CompactionSettings) -> Preparation | NothingToPlan:
    """2026.9 `prepareCompaction(pathEntries, settings)` for the context's path (see the module docstring).

    `NothingToPlan` where the agent core returns nothing: an empty path, a path ending on a hook's compaction,
    nothing to summarize, or a first kept entry without an id.
    """
    entries = session.entries
    path = ctx.path
    if not path:
        return NothingToPlan("the session has no entries", "empty")
    last = entries[path[-1]]
    if last.type == "reset":
        return NothingToPlan("the last entry on the path is a reset: there is nothing to compact", "last_is_reset")
    if last.type == m.COMPACTION and (last.data or {}).get("fromHook"):
        return NothingToPlan("the last entry on the path is a hook's compaction: there is nothing new to compact", "last_is_compaction")
    prev, boundary_start, previous_summary = resolve_boundary(entries, path)
    end = len(path)
    usage = last_context_usage(session, ctx)
    estimated = sum(r.estimate("pi") or 0 for r in ctx.messages)
    keep = scaled_keep(settings.keep_recent_tokens, usage["usage_tokens"], estimated)
    cut = find_cut_point(entries, path, boundary_start, end, keep.keep_recent_tokens)
    first_kept = entries[path[cut.first_kept_pos]] if 0 <= cut.first_kept_pos < end else None
    summarize_pos, prefix_pos = summarized_positions(entries, path, boundary_start, cut, produces_message)
    if first_kept is None or not first_kept.id:
        return NothingToPlan("the first kept entry has no id (the file needs migration)", "no_id")
    if not summarize_pos and not prefix_pos:
        return NothingToPlan("nothing before the cut point to summarize", "nothing_to_summarize")
    ops = gather_file_ops(session, path, prev, summarize_pos + prefix_pos, _previous_details, may_have_file_ops, extract_file_ops_from_message)
    return Preparation(
        first_kept_entry_id=first_kept.id,
        first_kept_pos=cut.first_kept_pos,
        is_split_turn=cut.is_split_turn,
        turn_start_pos=cut.turn_start_pos,
        boundary_start=boundary_start,
        tokens_before=int(usage["tokens"]),
        previous_summary=previous_summary,
        prev_compaction_pos=prev,
        summarize_pos=summarize_pos,
        turn_prefix_pos=prefix_pos,
        file_ops=ops,
        settings=settings,
        keep=keep,
    )
