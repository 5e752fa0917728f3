"""A Claude Code session transcript, one line at a time, as pi v3 entries (`ClaudeCodeTranslator`).

Claude Code's file is a graph (spec `other-formats.md` §1): lines link by `uuid` -> `parentUuid`; a rewind gives a
line several children (the branch later in the file is the active one, as pi's last entry is its leaf); a
compaction writes a `system/compact_boundary` line with `parentUuid: null` and `logicalParentUuid` (the last line
before it), then a `user` line with `isCompactSummary` whose text is the summary. How each line is written:

- `user` and `assistant` lines are pi `message` entries (`id` = `uuid`). A `user` line holding `tool_result` blocks
  is a `toolResult` (its tool's name from the `tool_use` it answers); a line answering several (parallel) calls is
  one `toolResult` entry per result, in the line's order, on the same mirror line (`SEGMENT_SEPARATOR`: the line
  number stays the file's), ids `uuid`, `uuid#2`, ... chained, the last standing for the line (`tail_of`: a line
  whose parent is this one continues from it); a block beside the results (text, image) goes with the result before
  it (the first when none is). An API response split over several `assistant` lines (one per content block, the same
  `message.id` / `requestId`; streaming writes partial usage on the earlier ones) is several rows, and its usage is
  written once, on the row of its LAST line, from that line's `usage` (`totalTokens` is the prompt size,
  `input + cache_creation_input + cache_read_input`): while the message is the latest, the row holding its usage
  is `holder_line`, and a further line of the same message moves the usage there (the old row, without usage, is
  in `revisions`: the mirror writes it so, or marks the new line with the move when the row is already
  written, `inspector.read.usage_marks`). A line of an API message already closed (another came since) carries
  no usage. `model: "<synthetic>"` messages carry no usage (not a model call).
- The `isCompactSummary` line is a pi `compaction` entry: its `summary` is the summary text, `tokensBefore` the
  boundary's `compactMetadata.preTokens` (`details`: `trigger`, `preTokens` as recorded, the boundary's line), its
  `firstKeptEntryId` the boundary line (which holds no message): the context is the summary and what follows, as
  Claude Code sends it. The boundary line itself is a `custom` entry whose parent is `logicalParentUuid`, so the
  history before a compaction stays on the path (shown, not sent).
- An `attachment` line (Claude Code's out-of-band context: files read or edited, todo and plan-mode reminders, hook
  output, deferred-tool deltas...) whose kind Claude Code turns into a `<system-reminder>` user message
  (`SENT_ATTACHMENTS`) is a pi `custom_message` (`customType` `claude-code:attachment/<kind>`, sent as a user-role
  message: counted in the context; its text the attachment's `content` when it is text, else its JSON, an
  estimate of the reminder quoting it); any other kind (hook success / non-blocking error output, checkpoints,
  permissions: shown in Claude Code's UI only) is a `custom` entry of the same `customType`, metadata.
- Every other line is a `custom` entry (`customType` `claude-code:<type>[/<subtype>]`, `data` the line whole):
  `progress`, `system`, `attachment` and unknown types keep their place in the chain; lines without a `uuid`
  (`file-history-snapshot`, `queue-operation`, legacy `summary`, session metadata) hang off the current leaf;
  a `custom-title` / `ai-title` line is a pi `session_info` (the session's name).
- The lines of one API message and the results of its (parallel) calls are one chain in file order (`turn`);
  Claude Code parents each result on its own `tool_use` line, which would leave all but one call on side branches.
- Sidechain lines inside a main file (`isSidechain: true`, older subagents) are `custom` entries off the main path;
  in a subagent's own file (its first line is a sidechain) they are the conversation.
- A parent that is not in the file (an excerpt; a subagent file's first lines) is cleared; a duplicated `uuid` gets
  `#L<line>` appended; a `user`/`assistant` line with `parentUuid: null` after the first message (older hand-made
  files) continues the previous message.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.read.formats.pi_lines import (
    CUSTOM_PREFIX_CLAUDE,
    as_dict,
    as_list,
    as_str,
    custom,
    entry,
    image_block,
    iso_ms,
    text_block,
)

PROVIDER = "anthropic"
API = "anthropic-messages"
SYNTHETIC_MODEL = "<synthetic>"
_STOP = {"end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop", "refusal": "stop", "tool_use": "toolUse", "max_tokens": "length"}
_MESSAGE_TYPES = frozenset({"user", "assistant"})
_TITLE_KEYS = ("customTitle", "aiTitle", "title")
SENT_ATTACHMENTS = frozenset({
    "new_file", "new_directory", "edited_text_file", "edited_image_file", "file", "directory", "compact_file_reference",
    "selected_lines_in_ide", "opened_file_in_ide", "todo", "todo_reminder", "task_reminder", "plan_mode", "plan_mode_reentry",
    "plan_mode_exit", "output_style", "output_mode", "diagnostics", "mcp_resource", "nested_memory", "memory", "queued_command",
    "agent_mention", "critical_system_reminder", "ultramemory", "invoked_skills", "date_change", "hook_additional_context",
    "hook_blocking_error", "hook_stopped_continuation", "deferred_tools_delta", "async_hook_response",
})
"""Attachment kinds Claude Code sends to the model as a `<system-reminder>` user message (third-party deobfuscation
of the CLI: the attachment-to-message transform, e.g. `OC8` in 1.0.x and its successors; `claude-code-log`'s
attachment factory; spec `other-formats.md` §1.3: hook callbacks and deferred-tool deltas). Reverse-engineered, not
documented: a kind not listed is shown as metadata and not counted."""


def _int(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0


def usage_of(raw: Any) -> dict[str, Any] | None:
    """pi's usage from an Anthropic `usage` (None when it has no token count): `totalTokens` is the prompt size
    (`input + cacheRead + cacheWrite`, the context the call was sent with); the cost is left to the price table."""
    if not isinstance(raw, dict):
        return None
    inp, out = _int(raw.get("input_tokens")), _int(raw.get("output_tokens"))
    write, read = _int(raw.get("cache_creation_input_tokens")), _int(raw.get("cache_read_input_tokens"))
    if not (inp or out or write or read):
        return None
    return {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write, "totalTokens": inp + read + write}


def without_usage(row: dict[str, Any]) -> dict[str, Any]:
    """A message entry's copy whose message has no `usage`."""
    return {**row, "message": {k: v for k, v in row["message"].items() if k != "usage"}}


def _result_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [text_block(content)]
    blocks: list[dict[str, Any]] = []
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "image":
            src = as_dict(b.get("source"))
            blocks.append(image_block(src.get("media_type"), src.get("data")))
        elif isinstance(b, dict) and b.get("type") == "text":
            blocks.append(text_block(b.get("text")))
        elif b is not None:
            blocks.append(text_block(b.get("tool_name") if isinstance(b, dict) and b.get("type") == "tool_reference" else b))
    return blocks


def attachment_text(attachment: dict[str, Any]) -> str:
    """What an attachment puts before the model: its `content` when that is text (a list of lines joined), else its
    JSON (the reminder quotes its fields)."""
    content = attachment.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(x, str) for x in content):
        return "\n".join(content)
    return orjson.dumps(attachment).decode()


def _attachment(obj: dict[str, Any], entry_id: str, parent: str | None, ts: Any) -> dict[str, Any]:
    """An `attachment` line: a `custom_message` when its kind reaches the model (`SENT_ATTACHMENTS`), else metadata."""
    attachment = as_dict(obj.get("attachment"))
    kind = attachment.get("type")
    custom_type = f"{CUSTOM_PREFIX_CLAUDE}attachment/{kind}" if isinstance(kind, str) else f"{CUSTOM_PREFIX_CLAUDE}attachment"
    if not isinstance(kind, str) or kind not in SENT_ATTACHMENTS:
        return custom(custom_type, entry_id, parent, ts, obj)
    return entry("custom_message", entry_id, parent, ts, customType=custom_type, content=[text_block(attachment_text(attachment))],
                 display=False, details={"claudeCode": {k: v for k, v in obj.items() if k != "attachment"}})


class ClaudeCodeTranslator:
    """Translates a Claude Code transcript line by line (see the module docstring); `translate` takes the lines in
    file order, each once."""

    format = "claude-code"

    def __init__(self) -> None:
        self.line = 0
        self.ids: set[str] = set()
        self.tail_of: dict[str, str] = {}
        """The last entry of a line written as several (by the line's id)."""
        self.tool_names: dict[str, str] = {}
        self.closed: set[str] = set()
        """The API messages (`message.id` + `requestId`) whose usage is written and final."""
        self.open_key: str | None = None
        """The latest API message: its usage sits on the row of `holder_line` until a further line of it comes."""
        self.holder_line: int | None = None
        self.holder_row: dict[str, Any] | None = None
        self.turn: set[str] = set()
        """The lines of the latest API message and the results of its calls: Claude Code parents each result on the
        line of its own `tool_use` and the next block on the previous one, which would make parallel calls sibling
        branches; a line whose parent is in the turn continues from the latest line instead."""
        self.revisions: dict[int, dict[str, Any]] = {}
        """Rows of earlier lines written again (by line): the mirror takes them after each batch."""
        self.subagent_file: bool | None = None
        self.leaf: str | None = None
        self.boundary: dict[str, Any] | None = None
        self.window: int | None = None
        self.compactions: dict[int, dict[str, Any]] = {}
        """By the line of their summary: `trigger` and `tokens_before` as the boundary records them (None: not)."""

    def translate(self, obj: Any) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The pi entry for the next line's parsed value, or its entries when it is several (a line answering several
        tool calls); None: write the line as it is."""
        self.line += 1
        if not isinstance(obj, dict):
            return None
        kind = obj.get("type")
        uuid = obj.get("uuid")
        ts = obj.get("timestamp")
        if not isinstance(uuid, str) or not uuid:
            title = next((obj[k] for k in _TITLE_KEYS if isinstance(obj.get(k), str) and obj[k]), None)
            if kind in ("custom-title", "ai-title") and title is not None:
                return entry("session_info", f"L{self.line}", self.leaf, ts, name=title, claudeCode=obj)
            return custom(f"{CUSTOM_PREFIX_CLAUDE}{kind}", f"L{self.line}", self.leaf, ts, obj)
        entry_id = uuid if uuid not in self.ids else f"{uuid}#L{self.line}"
        self.ids.add(entry_id)
        side = obj.get("isSidechain") is True
        if self.subagent_file is None:
            self.subagent_file = side
        parent = self._parent(obj, kind)
        if side and not self.subagent_file:
            return custom(f"{CUSTOM_PREFIX_CLAUDE}sidechain", entry_id, parent if parent is not None else self.leaf, ts, obj)
        in_turn = self._in_turn(obj, kind)
        if in_turn:
            if parent in self.turn and self.leaf is not None:
                parent = self.leaf  # a later block of the message, or a result of its parallel calls: one conversation
            self.turn.add(entry_id)
        out: dict[str, Any] | list[dict[str, Any]]
        last = entry_id
        if kind == "user" and obj.get("isCompactSummary") is True:
            out = self._compaction(obj, entry_id, parent)
        elif kind in _MESSAGE_TYPES and isinstance(obj.get("message"), dict):
            messages = self._messages(obj, kind)
            out = entry("message", entry_id, parent, ts, message=messages[0])
            if self.holder_line == self.line:
                self.holder_row = out
            if len(messages) > 1:
                rows = [out]
                for n, message in enumerate(messages[1:], 2):
                    part_id = f"{entry_id}#{n}"
                    rows.append(entry("message", part_id, last, ts, message=message))
                    self.ids.add(part_id)
                    if in_turn:
                        self.turn.add(part_id)
                    last = part_id
                self.tail_of[entry_id] = last
                out = rows
        elif kind == "attachment":
            out = _attachment(obj, entry_id, parent, ts)
        else:
            subtype = obj.get("subtype")
            name = f"{kind}/{subtype}" if kind == "system" and isinstance(subtype, str) else str(kind)
            out = custom(f"{CUSTOM_PREFIX_CLAUDE}{name}", entry_id, parent, ts, obj)
            if kind == "system" and subtype == "compact_boundary":
                meta = obj.get("compactMetadata")
                self.boundary = {"id": entry_id, "line": self.line, "meta": meta if isinstance(meta, dict) else {}}
        if kind != "progress":
            self.leaf = last
        return out

    def _in_turn(self, obj: dict[str, Any], kind: Any) -> bool:
        """Whether the line belongs to the latest API message's turn (its lines, the results of its calls): a new
        API message starts a new turn."""
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return False
        if kind == "assistant":
            key = f"{msg.get('id')}\0{obj.get('requestId')}"
            if key != self.open_key:
                self.turn = set()
            return True
        content = msg.get("content")
        return kind == "user" and isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)

    def _parent(self, obj: dict[str, Any], kind: Any) -> str | None:
        parent = obj.get("parentUuid")
        if kind == "system" and obj.get("subtype") == "compact_boundary" and parent is None:
            parent = obj.get("logicalParentUuid")
        if isinstance(parent, str) and parent in self.ids:
            return self.tail_of.get(parent, parent)
        if parent is None and "parentUuid" in obj and kind in _MESSAGE_TYPES and self.leaf is not None:
            return self.leaf  # an older file whose every line is a root: the file's order is the conversation
        return None

    def _messages(self, obj: dict[str, Any], kind: str) -> list[dict[str, Any]]:
        """The line's pi message, or its messages (one per tool result)."""
        msg = obj["message"]
        ms = iso_ms(obj.get("timestamp"))
        if kind == "assistant":
            return [self._assistant(obj, msg, ms)]
        content = msg.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return self._tool_results(content, ms)
        if isinstance(content, list):
            blocks: list[dict[str, Any]] = []
            for b in content:
                if isinstance(b, dict) and b.get("type") == "image":
                    src = as_dict(b.get("source"))
                    blocks.append(image_block(src.get("media_type"), src.get("data")))
                else:
                    blocks.append(text_block(b.get("text") if isinstance(b, dict) and b.get("type") == "text" else b))
            content = blocks
        elif not isinstance(content, str):
            content = [text_block(content)] if content is not None else ""
        return [{"role": "user", "content": content, "timestamp": ms}]

    def _tool_results(self, content: list[Any], ms: int | None) -> list[dict[str, Any]]:
        """One pi `toolResult` per `tool_result` block (`content` holds one at least); another block goes with the
        result before it (the first when none is)."""
        before: list[dict[str, Any]] = []
        out: list[dict[str, Any]] = []
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                call_id = b.get("tool_use_id")
                call_id = call_id if isinstance(call_id, str) else ""
                out.append({
                    "role": "toolResult", "toolCallId": call_id, "toolName": self.tool_names.get(call_id, ""),
                    "content": _result_blocks(b.get("content")), "isError": b.get("is_error") is True, "timestamp": ms,
                })
            else:
                (out[-1]["content"] if out else before).extend(_result_blocks([b]))
        out[0]["content"][:0] = before
        return out

    def _assistant(self, obj: dict[str, Any], msg: dict[str, Any], ms: int | None) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        calls = False
        for b in as_list(msg.get("content")):
            t = b.get("type") if isinstance(b, dict) else None
            if t == "text":
                blocks.append(text_block(b.get("text")))
            elif t == "thinking":
                blocks.append({"type": "thinking", "thinking": b.get("thinking") or "", "thinkingSignature": b.get("signature") or ""})
            elif t == "redacted_thinking":
                blocks.append({"type": "thinking", "thinking": "", "thinkingSignature": b.get("data") or "", "redacted": True})
            elif t in ("tool_use", "server_tool_use") and isinstance(b, dict):
                call_id = as_str(b.get("id"))
                name = as_str(b.get("name"))
                self.tool_names[call_id] = name
                args = b.get("input")
                blocks.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args if isinstance(args, dict) else {"input": args}})
                calls = calls or t == "tool_use"
            else:
                blocks.append(text_block(b))
        model = msg.get("model") if isinstance(msg.get("model"), str) else None
        stop = msg.get("stop_reason")
        reason = _STOP.get(stop, "stop") if isinstance(stop, str) else ("toolUse" if calls else "stop")
        if obj.get("isApiErrorMessage") is True or obj.get("apiError") is not None:
            reason = "error"
        out: dict[str, Any] = {"role": "assistant", "content": blocks, "api": API, "provider": PROVIDER, "model": model}
        usage = usage_of(msg.get("usage")) if model != SYNTHETIC_MODEL else None
        if usage is not None:
            out["usage"] = usage
        out["stopReason"] = reason
        out["timestamp"] = ms
        mid, rid = msg.get("id"), obj.get("requestId")
        if usage is None or (mid is None and rid is None):
            return out
        key = f"{mid}\0{rid}"
        if key in self.closed:
            del out["usage"]  # a late line of a message already counted
        elif key == self.open_key and self.holder_row is not None and self.holder_line is not None:
            self.revisions[self.holder_line] = without_usage(self.holder_row)
        elif self.open_key is not None:
            self.closed.add(self.open_key)
        if key not in self.closed:
            self.open_key = key
            self.holder_line, self.holder_row = self.line, None  # the entry is made by `translate`
        return out

    def _compaction(self, obj: dict[str, Any], entry_id: str, parent: str | None) -> dict[str, Any]:
        content = obj["message"].get("content") if isinstance(obj.get("message"), dict) else None
        if isinstance(content, list):
            summary = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
        else:
            summary = content if isinstance(content, str) else ""
        boundary = self.boundary if self.boundary is not None and self.boundary["id"] == parent else None
        meta = boundary["meta"] if boundary else {}
        pre = meta.get("preTokens")
        trigger = meta.get("trigger")
        self.compactions[self.line] = {
            "trigger": trigger if trigger in ("manual", "auto") else None, "tokens_before": pre if type(pre) is int else None,
            "boundary_line": boundary["line"] if boundary else None,
        }
        details = {
            "format": "claude-code", "trigger": trigger if trigger in ("manual", "auto") else None,
            "preTokens": pre if type(pre) is int else None, "boundaryLine": boundary["line"] if boundary else None,
        }
        return entry(
            "compaction", entry_id, parent, obj.get("timestamp"), summary=summary,
            firstKeptEntryId=boundary["id"] if boundary else entry_id, tokensBefore=pre if type(pre) is int else 0, details=details,
        )
