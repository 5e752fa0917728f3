"""What keeps repeating on the active path, and the tokens each pattern costs.

Four kinds, read from the tool calls (assistant `toolCall` blocks) and their results (`toolResult` messages, paired
by `toolCallId`), in path order:

- `file_reread`: the `read` tool on the same path (its `path` argument, made absolute against the session's `cwd`)
  returning the same content (hash of the result's text and image blocks), with no `write`/`edit`/`apply_patch`
  of that path in between;
- `command_repeat`: the same command (`bash`/`exec` tool, `command` argument, surrounding whitespace ignored) run
  more than once;
- `error_repeat`: the same tool error (`isError` results of one tool whose text is equal once whitespace is
  collapsed and digit runs are replaced by `#`);
- `retry_after_failure`: an assistant re-issuing the same call (same tool name, same arguments as JSON with sorted
  keys) in the first assistant message after that call failed (`isError`); a chain of retries is one pattern.

For every pattern, `entry_ids` are its occurrences in order (the `toolResult` entries; for retries the assistant
entries that issued the attempts), `count` is how many there are, and `tokens` is what the repetition added:
pi's chars/4 estimate of the results of every occurrence but the first (the first read, run, error or attempt is
not a repeat). Patterns are ranked by `wasted_tokens`, then `tokens`, `count`, and their first line.

Repeats know the context: `earlier_in_context` says, per occurrence after the first, whether the previous copy was
still in the context when it came back, or had been summarized away by a compaction between the two (the previous
occurrence lies before the compaction's first kept entry). `wasted_tokens` counts only what was sent twice: the
occurrences whose previous copy was still there. `suggestion` is the usual fix for the kind (`SUGGESTIONS`).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.base.cancel import checked
from inspector.base.digests import sha256
from inspector.model import entries as m
from inspector.session.session import Session
from inspector.storage.entry_table import EntryTable

FILE_REREAD = "file_reread"
COMMAND_REPEAT = "command_repeat"
ERROR_REPEAT = "error_repeat"
RETRY_AFTER_FAILURE = "retry_after_failure"

READ_TOOLS = frozenset({"read"})
WRITE_TOOLS = frozenset({"write", "edit", "multiedit", "multi_edit", "apply_patch"})
COMMAND_TOOLS = frozenset({"bash", "exec"})
PATH_ARGS = ("path", "file_path", "filePath")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$", re.MULTILINE)
_DIGITS = re.compile(r"\d+")
ERROR_KEY_CHARS = 500
SUGGESTIONS = {
    FILE_REREAD: "read only the range needed (offset/limit), or use the copy already in the context",
    COMMAND_REPEAT: "cache the command's output (write it to a file once, then read a range or `tail` it)",
    ERROR_REPEAT: "fix the cause before running it again: the same error comes back",
    RETRY_AFTER_FAILURE: "change the call after a failure: the same call fails the same way",
}


@dataclass(slots=True)
class ToolUse:
    """One tool call on the path and, when it is on the path too, its result."""

    order: int
    call_entry: m.Entry
    call_id: str | None
    name: str
    arguments: Any
    result_entry: m.Entry | None = None
    result_hash: str | None = None
    result_text: str = ""
    is_error: bool = False

    @property
    def result_tokens(self) -> int:
        """pi's chars/4 estimate of the result message (0 without a result)."""
        if self.result_entry is None:
            return 0
        return self.result_entry.estimate("pi") or 0


@dataclass(slots=True)
class Repeat:
    """One repeating pattern: its kind, what repeats (`subject`, untrusted text) and its occurrences."""

    kind: str
    subject: str
    tool_name: str
    entry_ids: list[str | None] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    occurrence_tokens: list[int] = field(default_factory=list)
    entry_indices: list[int] = field(default_factory=list)
    earlier_in_context: list[bool | None] = field(default_factory=list)
    """Per occurrence: None for the first, else whether the previous copy was still in the context (`find_repeats`)."""

    @property
    def wasted_tokens(self) -> int:
        """What was sent twice: the occurrences whose previous copy was still in the context."""
        return sum(t for t, kept in zip(self.occurrence_tokens, self.earlier_in_context) if kept)

    @property
    def summarized_away(self) -> int:
        """How many occurrences came back after a compaction had summarized the previous copy away."""
        return sum(1 for kept in self.earlier_in_context if kept is False)

    @property
    def count(self) -> int:
        """How many occurrences."""
        return len(self.entry_ids)

    @property
    def tokens(self) -> int:
        """What the repetition added: the estimate of every occurrence but the first."""
        return sum(self.occurrence_tokens[1:])

    def add(self, entry: m.Entry, tokens: int) -> None:
        """Record one more occurrence (its entry and its pi tokens)."""
        self.entry_ids.append(entry.id)
        self.lines.append(entry.line)
        self.occurrence_tokens.append(tokens)
        self.entry_indices.append(entry.index)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "kind": self.kind,
            "count": self.count,
            "tokens": self.tokens,
            "entry_ids": list(self.entry_ids),
            "lines": list(self.lines),
            "occurrence_tokens": list(self.occurrence_tokens),
            "tool_name": self.tool_name,
            "subject": self.subject,
            "wasted_tokens": self.wasted_tokens,
            "earlier_in_context": list(self.earlier_in_context),
            "summarized_away": self.summarized_away,
            "suggestion": SUGGESTIONS[self.kind],
        }


# ------------------------------------------------------------------------------------------- reading the path


def _result_text_and_hash(message: dict[str, Any]) -> tuple[str, str]:
    content = message.get("content")
    parts: list[str] = []
    texts: list[str] = []
    if isinstance(content, str):
        parts.append("t:" + content)
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append("t:" + block["text"])
                texts.append(block["text"])
            elif block.get("type") == "image":
                parts.append(f"i:{block.get('mimeType')}:{block.get('data')}")
    digest = sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return "\n".join(texts), digest


def tool_uses(session: Session, path: Sequence[int]) -> list[ToolUse]:
    """Every tool call on `path`, in order, with its result when that is on the path (content read from disk)."""
    entries = session.entries
    uses: list[ToolUse] = []
    by_call_id: dict[str, ToolUse] = {}
    for idx in checked(path):
        etype, role = entries.shape_of(idx)[:2]
        if etype != m.MESSAGE or role not in ("assistant", "toolResult"):
            continue
        if role == "assistant" and not entries.tool_call_ids_of(idx):
            continue
        if role == "toolResult" and by_call_id.get(entries.tool_call_id_of(idx) or "") is None:
            continue
        e = entries[idx]
        if e.role == "assistant" and e.tool_call_ids:
            message = session.load_message(e) or {}
            for block in message.get("content") or ():
                if not isinstance(block, dict) or block.get("type") != "toolCall":
                    continue
                name = block.get("name")
                use = ToolUse(len(uses), e, block.get("id"), name if isinstance(name, str) else "", block.get("arguments"))
                uses.append(use)
                if isinstance(use.call_id, str):
                    by_call_id[use.call_id] = use
        elif e.role == "toolResult":
            use_for = by_call_id.get(e.tool_call_id) if e.tool_call_id else None
            if use_for is None or use_for.result_entry is not None:
                continue
            message = session.load_message(e) or {}
            use_for.result_entry = e
            text, use_for.result_hash = _result_text_and_hash(message)
            use_for.is_error = message.get("isError") is True
            # Only an error's text is compared (error_repeat); keeping every result's text would hold the whole
            # session's tool output in memory while the timeline is built.
            use_for.result_text = text if use_for.is_error else ""
    return uses


# ------------------------------------------------------------------------------------------- the four kinds


def _abs_path(raw: str, cwd: str | None) -> str:
    if cwd and not raw.startswith("/") and not raw.startswith("~"):
        raw = posixpath.join(cwd, raw)
    return posixpath.normpath(raw)


def _path_arg(arguments: Any) -> str | None:
    if not isinstance(arguments, dict):
        return None
    for key in PATH_ARGS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _written_paths(use: ToolUse, cwd: str | None) -> list[str]:
    if use.name.lower() not in WRITE_TOOLS:
        return []
    found: list[str] = []
    direct = _path_arg(use.arguments)
    if direct:
        found.append(_abs_path(direct, cwd))
    if isinstance(use.arguments, dict):
        for value in use.arguments.values():
            if isinstance(value, str) and "*** " in value:
                found.extend(_abs_path(p.strip(), cwd) for p in _PATCH_FILE.findall(value))
    return found


def file_rereads(uses: list[ToolUse], cwd: str | None) -> list[Repeat]:
    """Reads of an unchanged file: same path, same result hash, no write of that path in between."""
    open_groups: dict[tuple[str, str], Repeat] = {}
    done: list[Repeat] = []
    for use in uses:
        for written in _written_paths(use, cwd):
            for key in [k for k in open_groups if k[0] == written]:
                done.append(open_groups.pop(key))
        if use.name.lower() not in READ_TOOLS or use.result_entry is None or use.is_error:
            continue
        raw = _path_arg(use.arguments)
        if raw is None or use.result_hash is None:
            continue
        path = _abs_path(raw, cwd)
        key = (path, use.result_hash)
        group = open_groups.get(key)
        if group is None:
            group = open_groups[key] = Repeat(FILE_REREAD, path, use.name)
        group.add(use.result_entry, use.result_tokens)
    done.extend(open_groups.values())
    return [g for g in done if g.count > 1]


def command_repeats(uses: list[ToolUse]) -> list[Repeat]:
    """The same `bash`/`exec` command run more than once."""
    groups: dict[str, Repeat] = {}
    for use in uses:
        if use.name.lower() not in COMMAND_TOOLS or not isinstance(use.arguments, dict):
            continue
        command = use.arguments.get("command")
        if not isinstance(command, str) or not command.strip():
            continue
        key = command.strip()
        group = groups.get(key)
        if group is None:
            group = groups[key] = Repeat(COMMAND_REPEAT, key, use.name)
        target = use.result_entry or use.call_entry
        group.add(target, use.result_tokens)
    return [g for g in groups.values() if g.count > 1]


def normalize_error(text: str) -> str:
    """Error text as a key: whitespace collapsed, digit runs as `#`, at most 500 characters."""
    return _DIGITS.sub("#", " ".join(text.split()))[:ERROR_KEY_CHARS]


def error_repeats(uses: list[ToolUse]) -> list[Repeat]:
    """The same tool error (normalized text, same tool) more than once."""
    groups: dict[tuple[str, str], Repeat] = {}
    for use in uses:
        if not use.is_error or use.result_entry is None:
            continue
        key = (use.name, normalize_error(use.result_text))
        group = groups.get(key)
        if group is None:
            group = groups[key] = Repeat(ERROR_REPEAT, key[1], use.name)
        group.add(use.result_entry, use.result_tokens)
    return [g for g in groups.values() if g.count > 1]


def _call_key(use: ToolUse) -> str:
    try:
        args = json.dumps(use.arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        args = repr(use.arguments)
    return f"{use.name}\x00{args}"


def retries_after_failure(uses: list[ToolUse], path: Sequence[int], entries: EntryTable) -> list[Repeat]:
    """A failed call re-issued unchanged by the next assistant message on the path (chains are one pattern)."""
    position = {idx: pos for pos, idx in enumerate(path)}
    assistants = [pos for pos, idx in enumerate(path) if entries.shape_of(idx)[:2] == (m.MESSAGE, "assistant")]
    uses_by_entry: dict[int, list[ToolUse]] = {}
    for use in uses:
        uses_by_entry.setdefault(use.call_entry.index, []).append(use)
    chains: dict[int, Repeat] = {}  # id(ToolUse) of the latest attempt -> its chain
    out: list[Repeat] = []
    next_assistant = 0
    for use in uses:
        if not use.is_error or use.result_entry is None:
            continue
        result_pos = position[use.result_entry.index]
        while next_assistant < len(assistants) and assistants[next_assistant] <= result_pos:
            next_assistant += 1
        if next_assistant >= len(assistants):
            continue
        following = entries[path[assistants[next_assistant]]]
        key = _call_key(use)
        retry = next((u for u in uses_by_entry.get(following.index, ()) if _call_key(u) == key), None)
        if retry is None:
            continue
        chain = chains.pop(id(use), None)
        if chain is None:
            chain = Repeat(RETRY_AFTER_FAILURE, key.replace("\x00", " "), use.name)
            chain.add(use.call_entry, use.result_tokens)
            out.append(chain)
        chain.add(retry.call_entry, retry.result_tokens)
        chains[id(retry)] = chain
    return out


def _compaction_cuts(entries: EntryTable, path: Sequence[int]) -> list[tuple[int, int]]:
    """`(position, first kept position)` of every compaction on `path` (its first kept entry's first position on the
    path before it; the compaction's own position when that entry is not there: nothing before it is kept)."""
    first_pos: dict[str, int] = {}
    cuts: list[tuple[int, int]] = []
    for pos, idx in enumerate(path):
        entry_id = entries.ids[idx]
        if entry_id is not None:
            first_pos.setdefault(entry_id, pos)
        if entries.shape_of(idx)[0] == m.COMPACTION:
            first_kept = (entries[idx].data or {}).get("firstKeptEntryId")
            found = first_pos.get(first_kept) if isinstance(first_kept, str) else None
            cuts.append((pos, found if found is not None and found < pos else pos))
    return cuts


def mark_context(repeat: Repeat, position: dict[int, int], cuts: list[tuple[int, int]]) -> None:
    """Fill `repeat.earlier_in_context`: an occurrence's previous copy is gone when a compaction between the two
    kept only what comes after it."""
    marks: list[bool | None] = [None]
    for prev, cur in zip(repeat.entry_indices, repeat.entry_indices[1:]):
        p, q = position.get(prev), position.get(cur)
        if p is None or q is None:
            marks.append(None)
            continue
        marks.append(not any(p < c < q and p < kept for c, kept in cuts))
    repeat.earlier_in_context = marks


def find_repeats(session: Session, path: Sequence[int]) -> list[Repeat]:
    """Every repeating pattern on `path`, each knowing which earlier copies were still in the context; ranked by
    wasted tokens, then tokens, count, and where it starts."""
    uses = tool_uses(session, path)
    cwd = (session.header or {}).get("cwd")
    cwd = cwd if isinstance(cwd, str) and cwd.startswith("/") else None
    found = (
        file_rereads(uses, cwd)
        + command_repeats(uses)
        + error_repeats(uses)
        + retries_after_failure(uses, path, session.entries)
    )
    cuts = _compaction_cuts(session.entries, path)
    position = {idx: pos for pos, idx in enumerate(path)} if found else {}
    for repeat in found:
        mark_context(repeat, position, cuts)
    return sorted(found, key=lambda r: (-r.wasted_tokens, -r.tokens, -r.count, r.lines[0]))
