"""OpenClaw 2026.9.6's `pruneExpiredCacheTtlToolResults`, step for step, on AgentMessage dicts.

Source: `src/agents/embedded-agent-runner/tool-result-truncation.ts`. What changed since 2026.4.12's
`pruneContextMessages`:

* the thresholds are built in: the 3 last assistant messages are kept, soft trim from 30 % of the char window,
  hard clear from 50 % with at least 50,000 prunable chars, soft trim of results over 4,000 chars to the first
  and last 1,500 (the settings' other values are ignored);
* the size estimate is `cacheTtlMessageChars` (`cache_ttl_message_chars`): an image counts 8,000, an assistant's
  thinking, signature and tool-call arguments count, a malformed text block of a user or tool result counts as
  its JSON, any other role counts 256; it never throws (no `estimate_threw` stage);
* the soft-trim cut is surrogate-safe (`sliceUtf16Safe`): no lone surrogate is left at either cut;
* what was pruned stays pruned: the projections recorded earlier (`projection.py`) are replayed first, whatever
  the gate; a result already hard-cleared is skipped, one already soft-trimmed is only a hard-clear candidate;
* no new round opens on the server-side clearing path (`new_rounds=False`): only the replay.

Same public names as 2026.4.12's pruner; new: `cache_ttl_message_chars`, `slice_utf16_safe`,
`soft_prune_cache_ttl_tool_result`, `PruneResult2026_9` (the replay: `replayed`, `replay_messages`,
`replay_chars`), `ACTION_REPLAYED_*`, and the projection names re-exported from `projection.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.js.jsjson import JSStringifyError, js_len, js_stringify
from inspector.js.utf16 import js_slice
from inspector.rules.openclaw_2026_4_12.pruning.pruner import (
    ACTION_HARD_CLEAR,
    ACTION_KEEP,
    ACTION_SOFT_TRIM,
    PRUNED_CONTEXT_IMAGE_MARKER,
    STAGE_BELOW_HARD_CLEAR_RATIO,
    STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS,
    STAGE_BELOW_SOFT_TRIM_RATIO,
    STAGE_HARD_CLEAR_DISABLED,
    STAGE_HARD_CLEARED,
    STAGE_NO_CONTEXT_WINDOW,
    STAGE_TOO_FEW_ASSISTANTS,
    PruneResult,
    SoftTrimSplit,
    find_first_user_index,
)
from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings
from inspector.rules.openclaw_2026_4_12.pruning.thinking import drop_thinking_blocks
from inspector.rules.openclaw_2026_4_12.pruning.tools import make_tool_prunable_predicate
from inspector.rules.openclaw_2026_4_12.tokens import CHARS_PER_TOKEN_ESTIMATE
from inspector.rules.openclaw_2026_9_6.pruning.projection import (
    CACHE_TTL_CUSTOM_TYPE,
    MODE_HARD,
    MODE_SOFT,
    MODE_TRIMMED,
    ProjectionSnapshot,
    ProjectionState,
    read_projection_snapshot,
    replay_projections,
)

__all__ = [
    "ACTION_HARD_CLEAR",
    "ACTION_KEEP",
    "ACTION_SOFT_TRIM",
    "CACHE_TTL_CUSTOM_TYPE",
    "KEEP_LAST_ASSISTANTS",
    "PRUNED_CONTEXT_IMAGE_MARKER",
    "ProjectionSnapshot",
    "ProjectionState",
    "PruneResult",
    "PruneResult2026_9",
    "cache_ttl_message_chars",
    "prune_context_messages",
    "read_projection_snapshot",
    "slice_utf16_safe",
    "soft_prune_cache_ttl_tool_result",
    "soft_trim_split",
]

KEEP_LAST_ASSISTANTS = 3
SOFT_TRIM_RATIO = 0.3
HARD_CLEAR_RATIO = 0.5
MIN_PRUNABLE_TOOL_CHARS = 50_000
SOFT_TRIM_MAX_CHARS = 4_000
SOFT_TRIM_HEAD_CHARS = 1_500
SOFT_TRIM_TAIL_CHARS = 1_500
CACHE_TTL_IMAGE_CHARS = 8_000
OTHER_ROLE_CHARS = 256
TOOL_CALL_UNSERIALIZABLE_CHARS = 128

STAGE_SERVER_SIDE_CLEARING = "server_side_clearing"
"""No new round: the request carries the server-side `clear_tool_uses_20250919` edit instead."""

ACTION_REPLAYED = {MODE_SOFT: "already_soft_trimmed", MODE_HARD: "already_hard_cleared", MODE_TRIMMED: "already_truncated"}
"""The row action of a projection replayed from an earlier round (what was pruned stays pruned)."""

Estimator = Callable[..., int]


def _string_chars(text: Any) -> int:
    """`estimateStringChars` of this release's `tokens` part (2026.4.12's until 2026.9.6 has its own)."""
    from inspector.rules.ruleset import rule_set

    return int(rule_set("openclaw-2026.9.6").tokens.estimate_string_chars(text))


def _is_record(value: Any) -> bool:
    return isinstance(value, dict)


def _text_of(block: Any, serialize_malformed: bool = True) -> str | None:
    """`cacheTtlText`: a text block's text, its JSON when `text` is not a string (unless told not to)."""
    if not _is_record(block) or block.get("type") != "text":
        return None
    if isinstance(block.get("text"), str):
        return str(block["text"])
    if not serialize_malformed:
        return None
    try:
        return js_stringify(block)
    except (TypeError, JSStringifyError):
        return "[malformed text block]"


def cache_ttl_message_chars(message: dict[str, Any], string_chars: Callable[[Any], int] | None = None) -> int:
    """`cacheTtlMessageChars`: the pruner's size estimate of one message (never throws)."""
    chars_of = string_chars or _string_chars
    role = message.get("role")
    content = message.get("content")
    if role == "user" and isinstance(content, str):
        return chars_of(content)
    if role not in ("user", "assistant", "toolResult"):
        return OTHER_ROLE_CHARS
    total = 0
    for block in content if isinstance(content, list) else []:
        if not _is_record(block):
            continue
        text = _text_of(block, role != "assistant")
        if text is not None:
            total += chars_of(text)
        elif block.get("type") == "image":
            total += CACHE_TTL_IMAGE_CHARS
        elif role != "assistant":
            continue
        elif block.get("type") in ("thinking", "redacted_thinking"):
            values = [block.get("thinking"), block.get("thinkingSignature")]
            if block.get("type") == "redacted_thinking":
                values.append(block.get("data"))
            total += sum(chars_of(v) for v in values if isinstance(v, str))
        elif block.get("type") == "toolCall":
            args = block.get("arguments")
            try:
                total += js_len(js_stringify({} if args is None else args))
            except (TypeError, JSStringifyError):
                total += TOOL_CALL_UNSERIALIZABLE_CHARS
    return total


def _is_high(unit: int) -> bool:
    return 0xD800 <= unit <= 0xDBFF


def _is_low(unit: int) -> bool:
    return 0xDC00 <= unit <= 0xDFFF


def _unit(s: str, i: int) -> int:
    return int.from_bytes(s.encode("utf-16-le", "surrogatepass")[2 * i : 2 * i + 2], "little")


def slice_utf16_safe(text: str, start: int, end: int | None = None) -> str:
    """`sliceUtf16Safe`: `text.slice(start, end)` in UTF-16 units, never cutting a surrogate pair in half (a cut
    inside one moves to keep the pair out)."""
    n = js_len(text)
    lo = max(n + start, 0) if start < 0 else min(start, n)
    hi = n if end is None else (max(n + end, 0) if end < 0 else min(end, n))
    if hi <= lo:
        return ""
    if 0 < lo < n and _is_low(_unit(text, lo)) and _is_high(_unit(text, lo - 1)):
        lo += 1
    if 0 < hi < n and _is_high(_unit(text, hi - 1)) and _is_low(_unit(text, hi)):
        hi -= 1
    return js_slice(text, lo, hi)


def soft_trim_note(raw_len: int) -> str:
    """The note appended to a soft-trimmed result."""
    return f"\n\n[Tool result trimmed: kept first {SOFT_TRIM_HEAD_CHARS} chars and last {SOFT_TRIM_TAIL_CHARS} chars of {raw_len} chars.]"


def soft_prune_cache_ttl_tool_result(message: dict[str, Any]) -> dict[str, Any]:
    """`softPruneCacheTtlToolResult`: the message itself when it has no image and at most 4,000 chars of text;
    else one text block (images as markers), trimmed to head + tail when longer."""
    raw = message.get("content")
    content: list[Any] = raw if isinstance(raw, list) else []
    has_image = any(_is_record(b) and b.get("type") == "image" for b in content)
    text = "\n".join(_soft_parts(message))
    raw_len = js_len(text)
    if not has_image and raw_len <= SOFT_TRIM_MAX_CHARS:
        return message
    if raw_len > SOFT_TRIM_MAX_CHARS:
        head = slice_utf16_safe(text, 0, SOFT_TRIM_HEAD_CHARS)
        tail = slice_utf16_safe(text, -SOFT_TRIM_TAIL_CHARS)
        text = f"{head}\n...\n{tail}" + soft_trim_note(raw_len)
    return {**message, "content": [{"type": "text", "text": text}]}


def soft_trim_split(msg: dict[str, Any], settings: ContextPruningSettings | None = None) -> SoftTrimSplit | None:
    """Where `soft_prune_cache_ttl_tool_result` cuts the joined text (its sizes are built in: `settings` are
    ignored), or None when the text is kept whole."""
    text = "\n".join(_soft_parts(msg))
    raw_len = js_len(text)
    if raw_len <= SOFT_TRIM_MAX_CHARS:
        return None
    head = slice_utf16_safe(text, 0, SOFT_TRIM_HEAD_CHARS)
    tail = slice_utf16_safe(text, -SOFT_TRIM_TAIL_CHARS)
    dropped = js_slice(text, js_len(head), raw_len - js_len(tail))
    return SoftTrimSplit(head, dropped, tail, raw_len, soft_trim_note(raw_len))


def soft_trim_tool_result(msg: dict[str, Any], settings: ContextPruningSettings | None = None) -> dict[str, Any] | None:
    """2026.4.12's name: the soft-trimmed copy, or None when the result stays as it is (`settings` are ignored:
    the sizes are built in)."""
    out = soft_prune_cache_ttl_tool_result(msg)
    return None if out is msg else out


@dataclass(slots=True)
class PruneResult2026_9(PruneResult):
    """2026.4.12's `PruneResult` (the gate open: replay + a new round) plus the replay alone.

    `replayed[i]` is `soft`, `hard` or `trimmed` for each message an earlier round's projection changes;
    `replay_messages` / `replay_chars` are the context with only those applied (what is sent while the gate is
    closed, on the server-side clearing path, or with pruning off); `keys` the projection key of each message.
    `new_rounds` False: no new round could open (server-side clearing)."""

    replayed: dict[int, str] = field(default_factory=dict)
    replay_messages: list[dict[str, Any]] = field(default_factory=list)
    replay_chars: list[int] = field(default_factory=list)
    keys: list[str | None] = field(default_factory=list)
    snapshot: ProjectionSnapshot | None = None
    new_rounds: bool = True

    @property
    def replay_total_chars(self) -> int:
        """The estimate of the replayed context (no new round)."""
        return sum(self.replay_chars)


def prune_context_messages(
    messages: Sequence[dict[str, Any]],
    settings: ContextPruningSettings,
    *,
    context_window_tokens: int | None,
    is_tool_prunable: Callable[[Any], bool] | None = None,
    drop_thinking_blocks_for_estimate: bool = False,
    estimate: Estimator = cache_ttl_message_chars,
    projections: ProjectionSnapshot | None = None,
    new_rounds: bool = True,
) -> PruneResult2026_9:
    """Reproduce `pruneExpiredCacheTtlToolResults` with the gate open (the caller decides the gate), after the
    replay of `projections` (the session's latest `openclaw.cache-ttl` snapshot, None for none).

    `chars_before` are the estimates of the messages as they are on disk (thinking dropped when asked);
    `chars_after` and `total_chars_after` those of the context sent. `actions` are the new round's; the
    replayed messages are in `replayed` (their action stays `keep` unless the new round hard-clears them).
    """
    msgs = list(messages)
    n = len(msgs)
    state = ProjectionState.restore(projections)
    projected, keys, replayed = replay_projections(msgs, state, soft_prune_cache_ttl_tool_result)

    def sizes(ms: list[dict[str, Any]]) -> list[int]:
        return [estimate(m) for m in (drop_thinking_blocks(ms) if drop_thinking_blocks_for_estimate else ms)]

    before = sizes(msgs)
    replay_chars = sizes(projected) if replayed else list(before)
    window = context_window_tokens if context_window_tokens and context_window_tokens > 0 else None
    result = PruneResult2026_9(
        messages=projected if replayed else msgs,
        changed=bool(replayed),
        stage=STAGE_NO_CONTEXT_WINDOW,
        actions=[ACTION_KEEP] * n,
        chars_before=before,
        chars_after=list(replay_chars),
        context_window_tokens=window,
        char_window=None,
        cutoff_index=None,
        first_user_index=None,
        prune_start_index=None,
        total_chars_before=sum(before),
        total_chars_after=sum(replay_chars),
        replayed=replayed,
        replay_messages=projected if replayed else msgs,
        replay_chars=replay_chars,
        keys=keys,
        snapshot=projections,
        new_rounds=new_rounds,
    )
    if window is None:
        return result
    char_window = window * CHARS_PER_TOKEN_ESTIMATE
    result.char_window = char_window
    if not new_rounds:
        result.stage = STAGE_SERVER_SIDE_CLEARING
        return result
    assistants = [i for i, m in enumerate(projected) if m.get("role") == "assistant"]
    cutoff = assistants[-KEEP_LAST_ASSISTANTS] if len(assistants) >= KEEP_LAST_ASSISTANTS else None
    first_user = find_first_user_index(projected)
    result.cutoff_index, result.first_user_index = cutoff, first_user
    result.prune_start_index = n if first_user is None else first_user
    if cutoff is None or first_user is None:
        result.stage = STAGE_TOO_FEW_ASSISTANTS
        return result
    prunable = is_tool_prunable or make_tool_prunable_predicate(settings.tools)
    chars = list(replay_chars)
    total = sum(chars)
    if total / char_window < SOFT_TRIM_RATIO:
        result.stage = STAGE_BELOW_SOFT_TRIM_RATIO
        return result
    out = list(projected)
    eligible: list[int] = []
    for i in range(first_user, cutoff):
        message = projected[i]
        name = message.get("toolName")
        if message.get("role") != "toolResult" or not prunable(name if isinstance(name, str) else ""):
            continue
        key = keys[i]
        previous = state.replacements[key][0] if key and key in state.replacements else None
        if previous == MODE_HARD:
            continue
        eligible.append(i)
        if previous == MODE_SOFT:
            continue
        source = msgs[i]
        trimmed = soft_prune_cache_ttl_tool_result(source)
        if trimmed is not source:
            size = estimate(trimmed)
            total += size - chars[i]
            chars[i] = size
            out[i] = trimmed
            result.actions[i] = ACTION_SOFT_TRIM
            result.soft_trim_raw_lens[i] = js_len("\n".join(_soft_parts(source)))
            result.changed = True
    result.prunable_indexes = eligible
    result.prunable_tool_chars = sum(chars[i] for i in eligible)

    def done(stage: str) -> PruneResult2026_9:
        result.stage = stage
        result.messages = out
        result.chars_after = chars
        result.total_chars_after = total
        return result

    if total / char_window < HARD_CLEAR_RATIO:
        return done(STAGE_BELOW_HARD_CLEAR_RATIO)
    if not settings.hard_clear.enabled:
        return done(STAGE_HARD_CLEAR_DISABLED)
    if result.prunable_tool_chars < MIN_PRUNABLE_TOOL_CHARS:
        return done(STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS)
    for i in eligible:
        if total / char_window < HARD_CLEAR_RATIO:
            break
        cleared = {**out[i], "content": [{"type": "text", "text": settings.hard_clear.placeholder}]}
        size = estimate(cleared)
        total += size - chars[i]
        chars[i] = size
        out[i] = cleared
        result.actions[i] = ACTION_HARD_CLEAR
        result.changed = True
    return done(STAGE_HARD_CLEARED)


def _soft_parts(message: dict[str, Any]) -> list[str]:
    """The texts the soft trim joins: each text block's (`cacheTtlText`), an image as its marker."""
    raw = message.get("content")
    content: list[Any] = raw if isinstance(raw, list) else []
    parts = []
    for block in content:
        text = _text_of(block)
        if text is not None:
            parts.append(text)
        elif _is_record(block) and block.get("type") == "image":
            parts.append(PRUNED_CONTEXT_IMAGE_MARKER)
    return parts
