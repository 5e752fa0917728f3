"""OpenClaw's `truncateSessionAfterCompaction` (2026.4 `session-truncation.ts`), as a pure plan over raw lines.

Given the file's lines (with the new compaction entry as the leaf), on the active branch (leaf → root):

1. the latest `compaction` on the branch (none, or at the root: nothing to do);
2. `summarized` = branch entries before it, up to (not including) its `firstKeptEntryId` (all of them when
   that id is not on the branch);
3. removed: every `message` entry whose id is summarized (all lines with that id: OpenClaw filters by id);
   heartbeat user/ack pairs on the branch (OpenClaw's loop; see `_heartbeat_pairs`); then, in file order,
   `label`s whose `targetId` was removed and `branch_summary`s whose `parentId` was removed;
4. every kept entry whose parent was removed is re-parented to the nearest kept ancestor (or `null`).

Rendering keeps every other line byte for byte: the header, non-message entries, sibling branches, blank and
unparseable lines, unknown entry types and fields. Only re-parented lines are re-serialized (`js_stringify` of
the parsed object with `parentId` replaced, key order kept). OpenClaw re-serializes every entry and drops lines
it cannot parse; keeping them is the one difference, and it loses nothing pi would read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.js.utf16 import js_trim
from inspector.rules.ruleset import RuleSet, rule_set
from inspector.write.sessionfile import RawLine, SessionLines

HEARTBEAT_TASK_PROMPT_PREFIX = "Run the following periodic tasks (only those due based on their intervals):"
HEARTBEAT_TASK_PROMPT_ACK = "After completing all due tasks, reply HEARTBEAT_OK."


@dataclass(frozen=True)
class HeartbeatSettings:
    """The heartbeat prompt and ack length OpenClaw passes to the truncation (`resolveHeartbeatSummaryForAgent`)."""

    prompt: str
    ack_max_chars: int
    strip_heartbeat_token: Callable[..., Any]
    """The rules' `stripHeartbeatToken`."""

    @classmethod
    def from_config(cls, config: dict[str, Any] | None, rules: RuleSet) -> HeartbeatSettings:
        """`agents.defaults.heartbeat.prompt` / `.ackMaxChars` from an `openclaw.json` (the defaults of `rules`'
        heartbeat part otherwise)."""
        rule = rules.heartbeat
        hb = (((config or {}).get("agents") or {}).get("defaults") or {}).get("heartbeat") or {}
        if not isinstance(hb, dict):
            hb = {}
        prompt = hb.get("prompt")
        prompt = js_trim(prompt) if isinstance(prompt, str) else ""
        ack = hb.get("ackMaxChars")
        ack_n = int(ack) if isinstance(ack, (int, float)) and not isinstance(ack, bool) else rule.DEFAULT_HEARTBEAT_ACK_MAX_CHARS
        return cls(prompt or rule.HEARTBEAT_PROMPT, max(0, ack_n), rule.strip_heartbeat_token)


# --------------------------------------------------------------------------------------------------------------
# Heartbeat recognition (OpenClaw `heartbeat-filter.ts`; `stripHeartbeatToken` is the release's rule)
# --------------------------------------------------------------------------------------------------------------


def _message_text(content: Any) -> tuple[str, bool]:
    if isinstance(content, str):
        return content, False
    if not isinstance(content, list):
        return "", content is not None
    texts = []
    non_text = False
    for block in content:
        if not isinstance(block, dict) or "type" not in block or block.get("type") != "text" or not isinstance(block.get("text"), str):
            non_text = True
            continue
        texts.append(block["text"])
    return "".join(texts), non_text


def is_heartbeat_user_message(message: dict[str, Any], prompt: str | None) -> bool:
    """A user message that is the heartbeat prompt (or a periodic-task heartbeat)."""
    if message.get("role") != "user":
        return False
    trimmed = js_trim(_message_text(message.get("content"))[0])
    if not trimmed:
        return False
    p = js_trim(prompt) if prompt else ""
    if p and trimmed.startswith(p):
        return True
    return trimmed.startswith(HEARTBEAT_TASK_PROMPT_PREFIX) and HEARTBEAT_TASK_PROMPT_ACK in trimmed


def is_heartbeat_ok_response(message: dict[str, Any], ack_max_chars: int, strip_heartbeat_token: Callable[..., Any]) -> bool:
    """An assistant reply that is only `HEARTBEAT_OK` (plus at most `ack_max_chars` of text), by the rules'
    `strip_heartbeat_token`."""
    if message.get("role") != "assistant":
        return False
    text, non_text = _message_text(message.get("content"))
    if non_text:
        return False
    return strip_heartbeat_token(text, mode="heartbeat", max_ack_chars=ack_max_chars).should_skip


# --------------------------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------------------------


@dataclass
class TruncationPlan:
    """Which lines go, which are re-parented (line index → new parent id), or why nothing happens."""

    removed: set[int] = field(default_factory=set)
    reparented: dict[int, str | None] = field(default_factory=dict)
    removed_ids: set[Any] = field(default_factory=set)
    reason: str | None = None

    @property
    def applies(self) -> bool:
        """True when the rewrite would remove something."""
        return bool(self.removed)


def _heartbeat_pairs(branch: list[RawLine], summarized: set[Any], removed_ids: set[Any], hb: HeartbeatSettings) -> None:
    # OpenClaw's loop, condition for condition. Every summarized `message` is already in removed_ids at this
    # point, so the `not in removed_ids` tests fail for any message pair and the loop removes nothing in
    # 2026.4; it is kept so that the behaviour stays OpenClaw's if that changes.
    i = 0
    while i < len(branch) - 1:
        u, a = branch[i], branch[i + 1]
        if (
            u.type == "message"
            and a.type == "message"
            and u.id in summarized
            and a.id in summarized
            and u.id not in removed_ids
            and a.id not in removed_ids
            and is_heartbeat_user_message((u.obj or {}).get("message") or {}, hb.prompt)
            and is_heartbeat_ok_response((a.obj or {}).get("message") or {}, hb.ack_max_chars, hb.strip_heartbeat_token)
        ):
            removed_ids.add(u.id)
            removed_ids.add(a.id)
            i += 1
        i += 1


def plan_truncation(lines: SessionLines, heartbeat: HeartbeatSettings | None = None) -> TruncationPlan:
    """OpenClaw's truncation decisions for the file's current leaf (see the module docstring); `heartbeat` None:
    the default rule set's heartbeat defaults."""
    hb = heartbeat or HeartbeatSettings.from_config(None, rule_set())
    if lines.header is None:
        return TruncationPlan(reason="missing session header")
    leaf = lines.leaf
    branch = lines.branch(leaf.id) if leaf is not None else []
    if not branch:
        return TruncationPlan(reason="empty session")
    ci = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].type == "compaction"), -1)
    if ci < 0:
        return TruncationPlan(reason="no compaction entry found")
    if ci == 0:
        return TruncationPlan(reason="compaction already at root")
    first_kept = branch[ci].first_kept_entry_id
    summarized: set[Any] = set()
    for line in branch[:ci]:
        if first_kept and line.id == first_kept:
            break
        summarized.add(line.id)
    removed_ids: set[Any] = {e.id for e in lines.entries if e.id in summarized and e.type == "message"}
    _heartbeat_pairs(branch, summarized, removed_ids, hb)
    for e in lines.entries:
        if e.type == "label" and e.target_id in removed_ids:
            removed_ids.add(e.id)
            continue
        if e.type == "branch_summary" and e.parent_id is not None and e.parent_id in removed_ids:
            removed_ids.add(e.id)
    if not removed_ids:
        return TruncationPlan(reason="no entries to remove")
    plan = TruncationPlan(removed_ids=removed_ids)
    index_of = {id(line): i for i, line in enumerate(lines.lines)}
    for e in lines.entries:
        if e.id in removed_ids:
            plan.removed.add(index_of[id(e)])
            continue
        new_parent = nearest_kept_ancestor(lines, e.parent_id, removed_ids)
        if new_parent != e.parent_id:
            plan.reparented[index_of[id(e)]] = new_parent
    return plan


def nearest_kept_ancestor(lines: SessionLines, parent_id: Any, removed_ids: set[Any]) -> Any:
    """Walk up from `parent_id` past removed entries (`byId`, later duplicate wins); None at the root."""
    seen: set[Any] = set()
    while parent_id is not None and parent_id in removed_ids:
        if parent_id in seen:  # a parentId cycle among removed entries (OpenClaw would loop forever)
            return None
        seen.add(parent_id)
        parent = lines.by_id.get(parent_id)
        parent_id = parent.parent_id if parent is not None else None
    return parent_id


def render_truncation(lines: SessionLines, plan: TruncationPlan) -> bytes:
    """The rewritten file: kept lines byte for byte, re-parented ones re-serialized, each ending in `\\n`."""
    out = bytearray()
    for i, line in enumerate(lines.lines):
        if i in plan.removed:
            continue
        out += line.with_parent(plan.reparented[i]) if i in plan.reparented else line.raw
        out += b"\n"
    return bytes(out)
