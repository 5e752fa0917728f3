"""pi's compaction preparation, on the session index: `prepareCompaction`, `findCutPoint`, file operations.

A line-by-line port of pi-coding-agent 0.66.1 `dist/core/compaction/compaction.js` (`prepareCompaction`,
`findValidCutPoints`, `findTurnStartIndex`, `findCutPoint`, `extractFileOperations`) and
`compaction/utils.js` (`extractFileOpsFromMessage`, `computeFileLists`), working on entry metadata:

- sizes are the packed per-entry `pi` estimate (pi `estimateTokens`, computed at index time), so walking a
  300k-entry path reads nothing from disk;
- only the assistant messages whose tool calls may name `read`/`write`/`edit` in the summarized range are
  re-read, for the file operations.

Positions (`boundary_start`, `first_kept_pos`, ...) are positions in the path (`SessionContext.path`), as
pi's indexes are positions in `sessionManager.getBranch()`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.base.cancel import checked
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens.context_usage import last_context_usage
from inspector.session.session import Session

DEFAULT_RESERVE_TOKENS = 16384
"""pi `DEFAULT_COMPACTION_SETTINGS.reserveTokens`."""
DEFAULT_KEEP_RECENT_TOKENS = 20000
"""pi `DEFAULT_COMPACTION_SETTINGS.keepRecentTokens`."""

_CUT_POINT_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"})
_FILE_TOOLS = ("read", "write", "edit")


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """pi's `CompactionSettings`: `enabled`, `reserveTokens`, `keepRecentTokens`."""

    keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS
    reserve_tokens: int = DEFAULT_RESERVE_TOKENS
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class CutPoint:
    """pi `findCutPoint`'s result, as path positions (`turn_start_pos` is -1 when there is none)."""

    first_kept_pos: int
    turn_start_pos: int
    is_split_turn: bool


@dataclass(slots=True)
class FileOps:
    """pi `createFileOps()`: the paths read, written and edited (insertion-ordered, no duplicates)."""

    read: dict[Any, None] = field(default_factory=dict)
    written: dict[Any, None] = field(default_factory=dict)
    edited: dict[Any, None] = field(default_factory=dict)

    def lists(self) -> tuple[list[Any], list[Any]]:
        """pi `computeFileLists`: `(readFiles, modifiedFiles)`; read-only files exclude modified ones, both sorted."""
        modified = {**self.edited, **self.written}
        read_only = [f for f in self.read if f not in modified]
        return js_sorted(read_only), js_sorted(list(modified))


@dataclass(slots=True)
class Preparation:
    """pi `prepareCompaction`'s result, with path positions kept for the forecast.

    `summarize_pos` / `turn_prefix_pos` are the path positions of the entries whose messages are in
    `messagesToSummarize` / `turnPrefixMessages` (compaction entries and entries mapping to no message are
    left out, as pi does).
    """

    first_kept_entry_id: str
    first_kept_pos: int
    is_split_turn: bool
    turn_start_pos: int
    boundary_start: int
    tokens_before: int
    previous_summary: Any
    prev_compaction_pos: int
    summarize_pos: list[int]
    turn_prefix_pos: list[int]
    file_ops: FileOps
    settings: CompactionSettings


@dataclass(frozen=True, slots=True)
class NothingToPlan:
    """Why pi's `prepareCompaction` returns `undefined` (no compaction would run)."""

    reason: str
    code: str


def js_sort_key(value: Any) -> bytes:
    """The order of JavaScript's default `Array.prototype.sort`: by UTF-16 code units of `String(value)`."""
    from inspector.js.jsjson import js_stringify

    if isinstance(value, str):
        text = value
    elif value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float)):
        text = js_stringify(value)
    else:
        text = "[object Object]" if isinstance(value, dict) else ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return text.encode("utf-16-be", "surrogatepass")


def js_sorted(values: list[Any]) -> list[Any]:
    """`values.sort()` as JavaScript does it (stable, string comparison of UTF-16 code units)."""
    return sorted(values, key=js_sort_key)


def is_cut_point(entry: m.Entry) -> bool:
    """pi `findValidCutPoints`: user/assistant/bashExecution/custom/summary messages, `branch_summary`, `custom_message`.

    Never a `toolResult`: cutting at an assistant keeps the tool results that follow it.
    """
    if entry.type == m.MESSAGE:
        return entry.role in _CUT_POINT_ROLES
    return entry.type == m.BRANCH_SUMMARY or entry.type == m.CUSTOM_MESSAGE


def _message_tokens(entry: m.Entry) -> int:
    """pi `estimateTokens(entry.message)` from the packed estimate (0 for a message pi could not estimate)."""
    return entry.estimate("pi") or 0


def find_turn_start_index(entries: Sequence[m.Entry], path: Sequence[int], pos: int, start: int) -> int:
    """pi `findTurnStartIndex`: the user/bashExecution message, `branch_summary` or `custom_message` at or before `pos`."""
    for i in range(pos, start - 1, -1):
        e = entries[path[i]]
        if e.type == m.BRANCH_SUMMARY or e.type == m.CUSTOM_MESSAGE:
            return i
        if e.type == m.MESSAGE and e.role in ("user", "bashExecution"):
            return i
    return -1


def find_cut_point(entries: Sequence[m.Entry], path: Sequence[int], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """pi `findCutPoint(pathEntries, startIndex, endIndex, keepRecentTokens)` on path positions.

    Walk back from the newest entry summing `estimateTokens` of `message` entries; once the sum reaches
    `keep_recent_tokens`, cut at the first valid cut point at or after that entry (or keep everything from the
    first cut point when it never does); then pull in the non-message entries right before the cut, stopping
    at a message or a compaction. A cut that is not at a user message splits a turn when a turn start exists.
    """
    cut_points = [i for i in checked(range(start, end)) if is_cut_point(entries[path[i]])]
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        e = entries[path[i]]
        if e.type != m.MESSAGE:
            continue
        accumulated += _message_tokens(e)
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    while cut > start:
        prev = entries[path[cut - 1]]
        if prev.type == m.COMPACTION or prev.type == m.MESSAGE:
            break
        cut -= 1
    cut_entry = entries[path[cut]]
    is_user = cut_entry.type == m.MESSAGE and cut_entry.role == "user"
    turn_start = -1 if is_user else find_turn_start_index(entries, path, cut, start)
    return CutPoint(cut, turn_start, not is_user and turn_start != -1)


def produces_message(entry: m.Entry) -> bool:
    """pi `getMessageFromEntryForCompaction`: message entries with a message object, custom messages, branch summaries.

    Compactions are left out. A `branch_summary` counts even with an empty summary (unlike in the context).
    """
    if entry.type == m.MESSAGE:
        return entry.role is not None
    return entry.type == m.CUSTOM_MESSAGE or entry.type == m.BRANCH_SUMMARY


def extract_file_ops_from_message(message: Any, ops: FileOps) -> None:
    """pi `extractFileOpsFromMessage`: `read`/`write`/`edit` tool calls with a string `arguments.path`."""
    if type(message) is not dict or message.get("role") != "assistant":
        return
    content = message.get("content")
    if type(content) is not list:
        return
    for block in content:
        if type(block) is not dict or block.get("type") != "toolCall":
            continue
        if "arguments" not in block or "name" not in block:
            continue
        args = block["arguments"]
        if not _js_truthy(args) or type(args) is not dict:
            continue
        path = args.get("path")
        if type(path) is not str or not path:
            continue
        name = block["name"]
        if name == "read":
            ops.read.setdefault(path)
        elif name == "write":
            ops.written.setdefault(path)
        elif name == "edit":
            ops.edited.setdefault(path)


def _js_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def may_have_file_ops(entry: m.Entry) -> bool:
    """Whether an entry's message could hold a `read`/`write`/`edit` tool call (decided from metadata)."""
    if entry.type != m.MESSAGE or entry.role != "assistant" or "toolCall" not in entry.block_kinds:
        return False
    names = entry.tool_name
    return names is not None and any(t in names for t in _FILE_TOOLS)


def _previous_details(ops: FileOps, comp: m.Entry) -> None:
    """pi `extractFileOperations`: the previous compaction's `details`, when pi (not a hook) wrote it."""
    data = comp.data or {}
    if _js_truthy(data.get("fromHook")) or not _js_truthy(data.get("details")):
        return
    details = data["details"]
    if type(details) is not dict:
        return
    read = details.get("readFiles")
    if type(read) is list:
        for f in read:
            ops.read.setdefault(_hashable_value(f))
    modified = details.get("modifiedFiles")
    if type(modified) is list:
        for f in modified:
            ops.edited.setdefault(_hashable_value(f))


def _hashable_value(value: Any) -> Any:
    """File names are strings in practice; anything else is kept as its JSON text so it can sit in a set."""
    if isinstance(value, (str, int, float)) or value is None:
        return value
    from inspector.js.jsjson import js_stringify

    return js_stringify(value)


def summarized_positions(
    entries: Sequence[m.Entry], path: Sequence[int], boundary_start: int, cut: CutPoint, produces: Callable[[m.Entry], bool] = produces_message
) -> tuple[list[int], list[int]]:
    """The path positions of `messagesToSummarize` (the boundary up to the cut, or up to the split turn's start)
    and of `turnPrefixMessages` (the split turn's start up to the cut): the entries that `produces` a message."""
    history_end = cut.turn_start_pos if cut.is_split_turn else cut.first_kept_pos
    summarize_pos = [i for i in range(boundary_start, history_end) if produces(entries[path[i]])]
    prefix_pos = [i for i in range(cut.turn_start_pos, cut.first_kept_pos) if produces(entries[path[i]])] if cut.is_split_turn else []
    return summarize_pos, prefix_pos


def gather_file_ops(
    session: Session,
    path: Sequence[int],
    prev: int,
    positions: Sequence[int],
    previous_details: Callable[[FileOps, m.Entry], None] = _previous_details,
    may_have: Callable[[m.Entry], bool] = may_have_file_ops,
    extract: Callable[[Any, FileOps], None] = extract_file_ops_from_message,
) -> FileOps:
    """`extractFileOperations`: the previous compaction's lists (`previous_details`, when `prev >= 0`), then the
    file operations of the messages at `positions` (`extract`, loaded only where `may_have` says they could hold one)."""
    entries = session.entries
    ops = FileOps()
    if prev >= 0:
        previous_details(ops, entries[path[prev]])
    for i in checked(positions):
        e = entries[path[i]]
        if may_have(e):
            extract(session.load_message(e), ops)
    return ops


def resolve_boundary(entries: Sequence[m.Entry], path: Sequence[int]) -> tuple[int, int, Any]:
    """`(prev_compaction_pos, boundary_start, previous_summary)` as pi's `prepareCompaction` finds them.

    The boundary is the previous compaction's `firstKeptEntryId` (that tail is summarized again, with the
    previous summary passed along), or the entry after the compaction when the id is not on the path.
    """
    type_of = getattr(entries, "type_of", None)  # the entry table reads a type without building the entry
    prev = -1
    for i in range(len(path) - 1, -1, -1):
        if (type_of(path[i]) if type_of is not None else entries[path[i]].type) == m.COMPACTION:
            prev = i
            break
    if prev < 0:
        return -1, 0, None
    data = entries[path[prev]].data or {}
    first_kept = data.get("firstKeptEntryId")
    start = -1
    if first_kept is not None:
        start = _first_position_of(entries, path, first_kept)
    return prev, (start if start >= 0 else prev + 1), data.get("summary")


def _first_position_of(entries: Sequence[m.Entry], path: Sequence[int], entry_id: str) -> int:
    """The first position on `path` whose entry has id `entry_id` (pi's `findIndex`), -1 when none: on the entry
    table, a C-level pass over its ids (no entry built; a path of 300k entries costs a few ms)."""
    ids = getattr(entries, "ids", None)
    if ids is None:
        return next((i for i, idx in enumerate(path) if entries[idx].id == entry_id), -1)
    try:
        return list(map(ids.__getitem__, path)).index(entry_id)
    except ValueError:
        return -1


def prepare_compaction(session: Session, ctx: m.SessionContext, settings: CompactionSettings) -> Preparation | NothingToPlan:
    """pi `prepareCompaction(pathEntries, settings)` for the context's path.

    Returns `NothingToPlan` where pi returns `undefined`: an empty path, a path ending on a compaction, or a
    first kept entry without an id (a file that needs migration).
    """
    entries = session.entries
    path = ctx.path
    if not path:
        return NothingToPlan("the session has no entries", "empty")
    if entries[path[-1]].type == m.COMPACTION:
        return NothingToPlan("the last entry on the path is a compaction: there is nothing new to compact", "last_is_compaction")
    prev, boundary_start, previous_summary = resolve_boundary(entries, path)
    end = len(path)
    tokens_before = int(last_context_usage(session, ctx)["tokens"])
    cut = find_cut_point(entries, path, boundary_start, end, settings.keep_recent_tokens)
    first_kept = entries[path[cut.first_kept_pos]] if 0 <= cut.first_kept_pos < end else None
    if first_kept is None or not first_kept.id:
        return NothingToPlan("the first kept entry has no id (the file needs migration)", "no_id")
    summarize_pos, prefix_pos = summarized_positions(entries, path, boundary_start, cut)
    ops = gather_file_ops(session, path, prev, summarize_pos + prefix_pos)
    return Preparation(
        first_kept_entry_id=first_kept.id,
        first_kept_pos=cut.first_kept_pos,
        is_split_turn=cut.is_split_turn,
        turn_start_pos=cut.turn_start_pos,
        boundary_start=boundary_start,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        prev_compaction_pos=prev,
        summarize_pos=summarize_pos,
        turn_prefix_pos=prefix_pos,
        file_ops=ops,
        settings=settings,
    )
