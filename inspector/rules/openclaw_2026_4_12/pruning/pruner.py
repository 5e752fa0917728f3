"""OpenClaw's `pruneContextMessages`, step for step, on AgentMessage dicts (spec §3.4).

Source: OpenClaw `src/agents/pi-hooks/context-pruning/pruner.ts` (2026.4). Nothing here mutates its input:
changed messages are shallow copies (`{...msg, content: [...]}`), unchanged ones are the same objects.
All lengths are JavaScript (UTF-16) lengths; head/tail cuts can leave lone surrogates, as in OpenClaw.
The size estimate is `inspector.rules.openclaw_2026_4_12.tokens.openclaw_prune_chars` (OpenClaw's `estimateMessageChars`), taken over
`dropThinkingBlocks(messages)` (`thinking.py`) when the transcript policy drops thinking blocks.

Where `estimateMessageChars` would throw a TypeError (content that is not iterable, a null block, a text block
whose `text` is not a string), the `context` handler throws, pi's extension runner logs the error and the
request goes out unpruned: stage `estimate_threw`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.js.jsjson import js_len
from inspector.js.utf16 import js_slice
from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings
from inspector.rules.openclaw_2026_4_12.pruning.thinking import drop_thinking_blocks
from inspector.rules.openclaw_2026_4_12.pruning.tools import make_tool_prunable_predicate
from inspector.rules.openclaw_2026_4_12.tokens import CHARS_PER_TOKEN_ESTIMATE, openclaw_prune_chars

PRUNED_CONTEXT_IMAGE_MARKER = "[image removed during context pruning]"

# What happens to a result, and where the algorithm stopped (`PruneResult.stage`): the shared words.
from inspector.rules.pruning_terms import (
    ACTION_HARD_CLEAR,
    ACTION_KEEP,
    ACTION_SOFT_TRIM,
    STAGE_BELOW_HARD_CLEAR_RATIO,
    STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS,
    STAGE_BELOW_SOFT_TRIM_RATIO,
    STAGE_ESTIMATE_THREW,
    STAGE_HARD_CLEAR_DISABLED,
    STAGE_HARD_CLEARED,
    STAGE_NO_CONTEXT_WINDOW,
    STAGE_TOO_FEW_ASSISTANTS,
)

Estimator = Callable[..., int]


def _as_text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _blocks(content: Any) -> list[Any]:
    """The content blocks OpenClaw would iterate (a non-list content has none that matter)."""
    return content if isinstance(content, list) else []


def _is_type(block: Any, kind: str) -> bool:
    return isinstance(block, dict) and block.get("type") == kind


def _text_of(block: dict[str, Any]) -> str:
    text = block.get("text")
    return text if isinstance(text, str) else ""


def collect_text_segments(content: Any) -> list[str]:
    """`collectTextSegments`: the text of each text block."""
    return [_text_of(b) for b in _blocks(content) if _is_type(b, "text")]


def collect_prunable_tool_result_segments(content: Any) -> list[str]:
    """`collectPrunableToolResultSegments`: text blocks' text; each image becomes the pruning marker."""
    parts: list[str] = []
    for b in _blocks(content):
        if _is_type(b, "text"):
            parts.append(_text_of(b))
        elif _is_type(b, "image"):
            parts.append(PRUNED_CONTEXT_IMAGE_MARKER)
    return parts


def has_image_blocks(content: Any) -> bool:
    """`hasImageBlocks`."""
    return any(_is_type(b, "image") for b in _blocks(content))


def estimate_joined_text_length(parts: Sequence[str]) -> int:
    """`estimateJoinedTextLength`: raw JS length of `parts.join("\\n")`."""
    if not parts:
        return 0
    return sum(js_len(p) for p in parts) + max(0, len(parts) - 1)


def take_head_from_joined_text(parts: Sequence[str], max_chars: int) -> str:
    """`takeHeadFromJoinedText`: the first `max_chars` UTF-16 units of `parts.join("\\n")`."""
    if max_chars <= 0 or not parts:
        return ""
    remaining = max_chars
    out: list[str] = []
    for i, p in enumerate(parts):
        if remaining <= 0:
            break
        if i > 0:
            out.append("\n")
            remaining -= 1
            if remaining <= 0:
                break
        n = js_len(p)
        if n <= remaining:
            out.append(p)
            remaining -= n
        else:
            out.append(js_slice(p, 0, remaining))
            remaining = 0
    return "".join(out)


def take_tail_from_joined_text(parts: Sequence[str], max_chars: int) -> str:
    """`takeTailFromJoinedText`: the last `max_chars` UTF-16 units of `parts.join("\\n")`."""
    if max_chars <= 0 or not parts:
        return ""
    remaining = max_chars
    out: list[str] = []
    for i in range(len(parts) - 1, -1, -1):
        if remaining <= 0:
            break
        p = parts[i]
        n = js_len(p)
        if n <= remaining:
            out.append(p)
            remaining -= n
        else:
            out.append(js_slice(p, n - remaining))
            remaining = 0
            break
        if remaining > 0 and i > 0:
            out.append("\n")
            remaining -= 1
    out.reverse()
    return "".join(out)


def soft_trim_note(head_chars: int, tail_chars: int, raw_len: int) -> str:
    """The note appended to a soft-trimmed result (shows the *configured* head/tail sizes)."""
    return f"\n\n[Tool result trimmed: kept first {head_chars} chars and last {tail_chars} chars of {raw_len} chars.]"


@dataclass(frozen=True, slots=True)
class SoftTrimSplit:
    """Where a soft trim cuts one tool result: the joined text (images as OpenClaw's marker) is `head` + `dropped`
    + `tail`, `total` UTF-16 units; `note` is the exact note OpenClaw appends to the trimmed text."""

    head: str
    dropped: str
    tail: str
    total: int
    note: str


def soft_trim_split(msg: dict[str, Any], settings: ContextPruningSettings) -> SoftTrimSplit | None:
    """The cut `soft_trim_tool_result` makes, or None when the text is kept whole (only images change, or
    nothing)."""
    content = msg.get("content")
    parts = collect_prunable_tool_result_segments(content) if has_image_blocks(content) else collect_text_segments(content)
    raw_len = estimate_joined_text_length(parts)
    soft = settings.soft_trim
    head_chars, tail_chars = max(0, soft.head_chars), max(0, soft.tail_chars)
    if raw_len <= soft.max_chars or head_chars + tail_chars >= raw_len:
        return None
    joined = "\n".join(parts)
    head = take_head_from_joined_text(parts, head_chars)
    tail = take_tail_from_joined_text(parts, tail_chars)
    dropped = js_slice(joined, js_len(head), raw_len - js_len(tail))
    return SoftTrimSplit(head, dropped, tail, raw_len, soft_trim_note(head_chars, tail_chars, raw_len))


def soft_trim_tool_result(msg: dict[str, Any], settings: ContextPruningSettings) -> dict[str, Any] | None:
    """`softTrimToolResultMessage`: the trimmed copy, or None when OpenClaw leaves the message as it is.

    With images, even a short result changes: its content becomes one text block, images as markers.
    """
    content = msg.get("content")
    has_images = has_image_blocks(content)
    parts = collect_prunable_tool_result_segments(content) if has_images else collect_text_segments(content)
    raw_len = estimate_joined_text_length(parts)
    soft = settings.soft_trim
    if raw_len <= soft.max_chars:
        return _with_content(msg, [_as_text("\n".join(parts))]) if has_images else None
    head_chars = max(0, soft.head_chars)
    tail_chars = max(0, soft.tail_chars)
    if head_chars + tail_chars >= raw_len:
        return _with_content(msg, [_as_text("\n".join(parts))]) if has_images else None
    head = take_head_from_joined_text(parts, head_chars)
    tail = take_tail_from_joined_text(parts, tail_chars)
    text = f"{head}\n...\n{tail}" + soft_trim_note(head_chars, tail_chars, raw_len)
    return _with_content(msg, [_as_text(text)])


def hard_clear_tool_result(msg: dict[str, Any], placeholder: str) -> dict[str, Any]:
    """The hard-cleared copy: content is one text block with the placeholder; every other field is kept."""
    return _with_content(msg, [_as_text(placeholder)])


def _with_content(msg: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, Any]:
    """`{...msg, content}`: same key order, `details`/`toolCallId`/`isError` kept."""
    out = dict(msg)
    out["content"] = content
    return out


def find_assistant_cutoff_index(messages: Sequence[dict[str, Any]], keep_last_assistants: int) -> int | None:
    """`findAssistantCutoffIndex`: index of the `keep_last_assistants`-th assistant from the end (None if too few)."""
    if keep_last_assistants <= 0:
        return len(messages)
    remaining = keep_last_assistants
    for i in range(len(messages) - 1, -1, -1):
        if _role(messages[i]) != "assistant":
            continue
        remaining -= 1
        if remaining == 0:
            return i
    return None


def find_first_user_index(messages: Sequence[dict[str, Any]]) -> int | None:
    """`findFirstUserIndex`."""
    for i, m in enumerate(messages):
        if _role(m) == "user":
            return i
    return None


def _js_text_throws(text: Any) -> bool:
    """`estimateStringChars(text)` throws for anything but a string (an empty array or `{length: 0}` gives 0)."""
    if isinstance(text, str):
        return False
    if isinstance(text, list):
        return len(text) != 0
    return not (isinstance(text, dict) and text.get("length") == 0 and not isinstance(text.get("length"), bool))


def _blocks_throw(content: Any) -> bool:
    """`estimateTextAndImageChars(content)` throws: not iterable, a null block, or a text block without string text."""
    if isinstance(content, str):
        return False  # iterates characters: none is a block
    if not isinstance(content, list):
        return True
    for block in content:
        if block is None:
            return True
        if isinstance(block, dict) and block.get("type") == "text" and _js_text_throws(block.get("text")):
            return True
    return False


def estimate_error(msg: Any) -> str | None:
    """Why OpenClaw's `estimateMessageChars(msg)` would throw a TypeError, or None when it returns a number."""
    if not isinstance(msg, dict):
        return "message is not an object" if msg is None else None
    role = msg.get("role")
    content = msg.get("content")
    if role == "user":
        if isinstance(content, str):
            return None
        return "user content is not iterable or holds a null block / non-string text" if _blocks_throw(content) else None
    if role == "assistant":
        ok = isinstance(content, (list, str))
        return None if ok else "assistant content is not iterable"
    if role == "toolResult":
        return "toolResult content is not iterable or holds a null block / non-string text" if _blocks_throw(content) else None
    return None


def _role(msg: Any) -> Any:
    return msg.get("role") if isinstance(msg, dict) else None


@dataclass(slots=True)
class PruneResult:
    """The outcome of `prune_context_messages`.

    `messages` is the list OpenClaw would send (the input list itself when nothing changed: `changed` False).
    `actions[i]` is `keep`, `soft_trim` or `hard_clear`; `chars_before[i]`/`chars_after[i]` are the per-message
    estimates; `total_chars_before`/`total_chars_after` are the running totals the algorithm compares with
    `char_window` (equal when it stopped early). `stage` names the branch where it stopped.
    """

    messages: list[dict[str, Any]]
    changed: bool
    stage: str
    actions: list[str]
    chars_before: list[int]
    chars_after: list[int]
    context_window_tokens: int | None
    char_window: int | None
    cutoff_index: int | None
    first_user_index: int | None
    prune_start_index: int | None
    total_chars_before: int
    total_chars_after: int
    prunable_indexes: list[int] = field(default_factory=list)
    prunable_tool_chars: int | None = None
    soft_trim_raw_lens: dict[int, int] = field(default_factory=dict)
    estimate_error: str | None = None

    @property
    def ratio_before(self) -> float | None:
        return self.total_chars_before / self.char_window if self.char_window else None

    @property
    def ratio_after(self) -> float | None:
        return self.total_chars_after / self.char_window if self.char_window else None


def prune_context_messages(
    messages: Sequence[dict[str, Any]],
    settings: ContextPruningSettings,
    *,
    context_window_tokens: int | None,
    is_tool_prunable: Callable[[Any], bool] | None = None,
    drop_thinking_blocks_for_estimate: bool = False,
    estimate: Estimator = openclaw_prune_chars,
) -> PruneResult:
    """Reproduce `pruneContextMessages({messages, settings, ctx, isToolPrunable, contextWindowTokensOverride,
    dropThinkingBlocksForEstimate})`.

    `estimate(msg)` is OpenClaw's `estimateMessageChars`. With `drop_thinking_blocks_for_estimate`, the
    whole-context total (and `chars_before`) is taken over `drop_thinking_blocks(messages)`: thinking blocks
    dropped from every assistant message but the latest one with array content, an emptied one counting 0.
    The per-message deltas of soft trim and hard clear are computed on the tool results themselves, as in
    OpenClaw. A message `estimateMessageChars` would throw on counts 0 in `chars_before`; if the algorithm
    reaches the estimate, it stops there (`estimate_threw`) and nothing changes.
    """
    msgs = list(messages)
    n = len(msgs)
    estimated = drop_thinking_blocks(msgs) if drop_thinking_blocks_for_estimate else msgs
    before = [0 if estimate_error(m) else estimate(m) for m in estimated]
    total_before = sum(before)
    window = context_window_tokens if context_window_tokens and context_window_tokens > 0 else None
    state = PruneResult(
        messages=msgs,
        changed=False,
        stage=STAGE_NO_CONTEXT_WINDOW,
        actions=[ACTION_KEEP] * n,
        chars_before=before,
        chars_after=list(before),
        context_window_tokens=window,
        char_window=None,
        cutoff_index=None,
        first_user_index=None,
        prune_start_index=None,
        total_chars_before=total_before,
        total_chars_after=total_before,
    )
    if window is None:
        return state
    char_window = window * CHARS_PER_TOKEN_ESTIMATE
    state.char_window = char_window
    state.cutoff_index = cutoff = find_assistant_cutoff_index(msgs, settings.keep_last_assistants)
    state.first_user_index = first_user = find_first_user_index(msgs)
    state.prune_start_index = prune_start = n if first_user is None else first_user
    if cutoff is None:
        state.stage = STAGE_TOO_FEW_ASSISTANTS
        return state
    for i, m in enumerate(estimated):
        error = estimate_error(m)
        if error is not None:
            state.stage = STAGE_ESTIMATE_THREW
            state.estimate_error = f"message {i}: {error}"
            return state
    prunable = is_tool_prunable or make_tool_prunable_predicate(settings.tools)

    total = total_before
    if total / char_window < settings.soft_trim_ratio:
        state.stage = STAGE_BELOW_SOFT_TRIM_RATIO
        return state

    out = list(msgs)
    for i in range(prune_start, cutoff):
        msg = msgs[i]
        if _role(msg) != "toolResult" or not prunable(msg.get("toolName")):
            continue
        state.prunable_indexes.append(i)
        updated = soft_trim_tool_result(msg, settings)
        if updated is None:
            continue
        state.soft_trim_raw_lens[i] = _raw_len(msg)
        delta = estimate(updated) - estimate(msg)
        total += delta
        state.chars_after[i] += delta
        out[i] = updated
        state.actions[i] = ACTION_SOFT_TRIM
        state.changed = True

    def done(stage: str) -> PruneResult:
        state.stage = stage
        state.total_chars_after = total
        if state.changed:
            state.messages = out
        return state

    ratio = total / char_window
    if ratio < settings.hard_clear_ratio:
        return done(STAGE_BELOW_HARD_CLEAR_RATIO)
    if not settings.hard_clear.enabled:
        return done(STAGE_HARD_CLEAR_DISABLED)
    state.prunable_tool_chars = sum(estimate(out[i]) for i in state.prunable_indexes)
    if state.prunable_tool_chars < settings.min_prunable_tool_chars:
        return done(STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS)

    for i in state.prunable_indexes:
        if ratio < settings.hard_clear_ratio:
            break
        msg = out[i]
        cleared = hard_clear_tool_result(msg, settings.hard_clear.placeholder)
        delta = estimate(cleared) - estimate(msg)
        out[i] = cleared
        state.actions[i] = ACTION_HARD_CLEAR
        state.chars_after[i] += delta
        total += delta
        ratio = total / char_window
        state.changed = True
    return done(STAGE_HARD_CLEARED)


def _raw_len(msg: dict[str, Any]) -> int:
    content = msg.get("content")
    parts = (
        collect_prunable_tool_result_segments(content) if has_image_blocks(content) else collect_text_segments(content)
    )
    return estimate_joined_text_length(parts)
