"""What was pruned stays pruned: OpenClaw 2026.9.6's tool-result projections and their transcript marker.

Sources: `src/agents/embedded-agent-runner/tool-result-truncation.ts` (`getToolResultProjectionBaseKey`,
`getToolResultProjectionKeys`, `restoreCacheTtlToolResultProjections`, `materializeRestoredCacheTtl`,
`projectToolResultBranch`, `mergeProjectedToolResultMessage`, `hashToolResultText`) and
`session-prompt-state.ts` (`serializeCacheTtlToolResultProjections`).

A pruning round records each changed tool result by key (`tool:<toolCallId>:<timestamp>`, ...) and the
`openclaw.cache-ttl` custom entry written after the run carries the snapshot: `prunedToolResults` (soft: the
trim is re-derived from the result; hard: the placeholder), `frozenToolResults` (the source text's hash, and
for ordinary tool-result trims their texts) and `ambiguousToolResultBaseKeys`. After a restart the latest valid
snapshot on the active branch (none past a `reset` entry) is replayed on every request, whatever the TTL gate
and even with pruning turned off: `replay_projections`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.base.digests import sha256
from inspector.js.jsjson import js_stringify

CACHE_TTL_CUSTOM_TYPE = "openclaw.cache-ttl"
MODE_SOFT = "soft"
MODE_HARD = "hard"
MODE_TRIMMED = "trimmed"
"""A replayed ordinary tool-result trim (a frozen result with `texts`), not a cache-TTL pruning."""


def _is_record(value: Any) -> bool:
    return isinstance(value, dict)


def _js_number_key(value: Any) -> str | None:
    """`${timestamp}` for a JSON number (JavaScript's own digits), None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    text = js_stringify(value)
    return "NaN" if text == "null" else text  # (a JSON value is never NaN; kept total)


def projection_base_key(message: Any) -> str | None:
    """`getToolResultProjectionBaseKey`: `tool:<toolCallId>[:<timestamp>]`, else `timestamp:<timestamp>`."""
    if not _is_record(message) or message.get("role") != "toolResult":
        return None
    call_id = message.get("toolCallId")
    ts = _js_number_key(message.get("timestamp"))
    if isinstance(call_id, str) and call_id:
        return f"tool:{call_id}" + (f":{ts}" if ts is not None else "")
    return f"timestamp:{ts}" if ts is not None else None


def tool_result_texts(message: dict[str, Any]) -> list[str]:
    """`getToolResultTextBlocks`: each text block's text ("" when it is not a string)."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b["text"] if isinstance(b.get("text"), str) else "" for b in content if _is_record(b) and b.get("type") == "text"]


def hash_tool_result_text(texts: Sequence[str]) -> str:
    """`hashToolResultText`: base64url SHA-256 of `JSON.stringify(texts)`."""
    digest = sha256(js_stringify(list(texts)).encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


@dataclass(slots=True)
class ProjectionSnapshot:
    """One `openclaw.cache-ttl` marker's projection snapshot, as `cacheTtlProjectionSnapshotSchema` parses it."""

    pruned: dict[str, tuple[str, str | None]]
    """key -> (mode `soft`/`hard`, placeholder of a hard one); a later duplicate key wins, as in a JS Map."""
    ambiguous: list[str] = field(default_factory=list)
    frozen: list[tuple[str, str, list[str] | None]] = field(default_factory=list)
    """(key, sourceHash, texts or None), in the marker's order."""
    entry_id: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Where the snapshot came from and how much it holds."""
        return {
            "entry_id": self.entry_id,
            "line": self.line,
            "pruned_tool_results": len(self.pruned),
            "frozen_tool_results": len(self.frozen),
        }


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def parse_snapshot(data: Any) -> ProjectionSnapshot | None:
    """`cacheTtlProjectionSnapshotSchema.safeParse(data)`: None when it fails (a timestamp-only marker does)."""
    if not _is_record(data) or not isinstance(data.get("prunedToolResults"), list):
        return None
    pruned: dict[str, tuple[str, str | None]] = {}
    for item in data["prunedToolResults"]:
        if not _is_record(item) or not isinstance(item.get("key"), str):
            return None
        if item.get("mode") == MODE_SOFT:
            pruned[item["key"]] = (MODE_SOFT, None)
        elif item.get("mode") == MODE_HARD and isinstance(item.get("placeholder"), str):
            pruned[item["key"]] = (MODE_HARD, item["placeholder"])
        else:
            return None
    ambiguous = data.get("ambiguousToolResultBaseKeys", [])
    if "ambiguousToolResultBaseKeys" in data and not _str_list(ambiguous):
        return None
    frozen_raw = data.get("frozenToolResults", [])
    if "frozenToolResults" in data and not isinstance(frozen_raw, list):
        return None
    frozen: list[tuple[str, str, list[str] | None]] = []
    for item in frozen_raw:
        if not _is_record(item) or not isinstance(item.get("key"), str) or not isinstance(item.get("sourceHash"), str):
            return None
        texts = item.get("texts")
        if "texts" in item and not _str_list(texts):
            return None
        frozen.append((item["key"], item["sourceHash"], list(texts) if "texts" in item else None))
    return ProjectionSnapshot(pruned, list(ambiguous), frozen)


def read_projection_snapshot(branch: Iterable[Any]) -> ProjectionSnapshot | None:
    """`restoreCacheTtlToolResultProjections`: the latest valid snapshot on the branch (root -> leaf entries with
    `.type`, `.data`, `.id`, `.line`), none past a `reset` entry."""
    entries = branch if isinstance(branch, Sequence) else list(branch)
    for entry in reversed(entries):
        etype = getattr(entry, "type", None)
        if etype == "reset":
            return None
        parsed = getattr(entry, "data", None) or {}
        if etype != "custom" or parsed.get("customType") != CACHE_TTL_CUSTOM_TYPE:
            continue
        snapshot = parse_snapshot(parsed.get("data"))
        if snapshot is not None:
            snapshot.entry_id = getattr(entry, "id", None)
            snapshot.line = getattr(entry, "line", None)
            return snapshot
    return None


@dataclass(slots=True)
class ProjectionState:
    """OpenClaw's `ToolResultPromptProjectionState`, as far as a preview needs it."""

    replacements: dict[str, tuple[str | None, list[Any]]] = field(default_factory=dict)
    """key -> (cacheTtl mode or None for an ordinary trim, projected content)."""
    frozen: set[str] = field(default_factory=set)
    ambiguous: set[str] = field(default_factory=set)
    source_hash: dict[str, str] = field(default_factory=dict)
    restored: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    @classmethod
    def restore(cls, snapshot: ProjectionSnapshot | None) -> ProjectionState:
        """The state `restoreCacheTtlToolResultProjections` leaves in a fresh session (empty without a snapshot)."""
        state = cls()
        if snapshot is None:
            return state
        state.ambiguous.update(snapshot.ambiguous)
        for key, source_hash, texts in snapshot.frozen:
            if key in state.source_hash:
                continue
            state.source_hash[key] = source_hash
            state.frozen.add(key)
            if texts is not None:
                state.replacements[key] = (None, [{"type": "text", "text": t} for t in texts])
        for key, mark in snapshot.pruned.items():
            if not (key in state.replacements and state.replacements[key][0]):
                state.restored[key] = mark
        return state


def projection_keys(messages: Sequence[Any], state: ProjectionState) -> list[str | None]:
    """`getToolResultProjectionKeys`: the base key, or for an ambiguous one (shared by two results, or listed in
    the snapshot) `fallback:<base>:id:<id>` / `fallback:<base>:text:<hash>` with its occurrence."""
    bases = [projection_base_key(m) for m in messages]
    counts: dict[str, int] = {}
    for base in bases:
        if base:
            counts[base] = counts.get(base, 0) + 1
            if counts[base] > 1:
                state.ambiguous.add(base)
    occurrences: dict[str, int] = {}
    keys: list[str | None] = []
    for base, message in zip(bases, messages):
        if base and base not in state.ambiguous:
            keys.append(base)
            continue
        if not _is_record(message) or message.get("role") != "toolResult":
            keys.append(None)
            continue
        mid = message.get("id")
        texts_hash = hash_tool_result_text(tool_result_texts(message))
        identity = f"id:{mid}" if isinstance(mid, str) and mid else f"text:{texts_hash}"
        fallback = f"fallback:{base if base is not None else 'tool'}:{identity}"
        n = occurrences.get(fallback, 0)
        occurrences[fallback] = n + 1
        key = f"{fallback}:{n}"
        previous = state.source_hash.get(base) if base else None
        if base and previous and previous == texts_hash:
            if base in state.replacements:
                state.replacements[key] = state.replacements.pop(base)
            state.source_hash[key] = state.source_hash.pop(base)
            if base in state.frozen:
                state.frozen.discard(base)
                state.frozen.add(key)
        keys.append(key)
    return keys


def _merge(message: dict[str, Any], content: list[Any], source_hash: str | None, cache_ttl: str | None) -> dict[str, Any]:
    """`mergeProjectedToolResultMessage`: nothing replayed onto a result whose text changed since."""
    current = message.get("content")
    if not isinstance(current, list):
        return {**message, "content": content}
    projected_text = [b["text"] for b in content if _is_record(b) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    current_text = tool_result_texts(message)
    if source_hash and hash_tool_result_text(current_text) != source_hash:
        return message
    if cache_ttl:
        return {**message, "content": content}
    if len(current_text) != len(projected_text):
        return message
    merged: list[Any] = []
    it = iter(projected_text)
    for block in current:
        merged.append({**block, "text": next(it)} if _is_record(block) and block.get("type") == "text" else block)
    return {**message, "content": merged}


def replay_projections(
    messages: Sequence[dict[str, Any]],
    state: ProjectionState,
    soft_prune: Callable[[dict[str, Any]], dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[str | None], dict[int, str]]:
    """`projectToolResultBranch` after `materializeRestoredCacheTtl`: (the messages with every recorded projection
    applied, their keys, index -> `soft` / `hard` / `trimmed` for each message it changed). Mutates `state`."""
    keys = projection_keys(messages, state)
    if state.restored:
        for message, key in zip(messages, keys):
            if not key or message.get("role") != "toolResult" or (key in state.replacements and state.replacements[key][0]):
                continue
            base = projection_base_key(message)
            exact = state.restored.get(key)
            mark = exact if exact is not None else (state.restored.get(base) if base else None)
            if mark is None:
                continue
            if exact is None and base:
                state.restored.pop(base, None)
            mode, placeholder = mark
            projected = {**message, "content": [{"type": "text", "text": placeholder}]} if mode == MODE_HARD else soft_prune(message)
            state.replacements[key] = (mode, list(projected.get("content") or []))
            state.frozen.add(key)
            state.source_hash.setdefault(key, hash_tool_result_text(tool_result_texts(message)))
        state.restored.clear()
    out: list[dict[str, Any]] = []
    replayed: dict[int, str] = {}
    for i, (message, key) in enumerate(zip(messages, keys)):
        if key and key not in state.source_hash:
            state.source_hash[key] = hash_tool_result_text(tool_result_texts(message))
        replacement = state.replacements.get(key) if key else None
        if replacement is None or message.get("role") != "toolResult":
            out.append(message)
            continue
        cache_ttl, content = replacement
        merged = _merge(message, content, state.source_hash.get(key) if key else None, cache_ttl)
        out.append(merged)
        if merged is not message:
            replayed[i] = cache_ttl or MODE_TRIMMED
    return out, keys, replayed
