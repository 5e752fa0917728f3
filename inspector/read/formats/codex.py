"""A Codex CLI rollout, one line at a time, as pi v3 entries (`CodexTranslator`).

A rollout is a list (spec `other-formats.md` §2): every line is `{timestamp, type, payload}`; each is written as
one pi entry whose parent is the entry before it (`id` `L<line>`). How:

- `response_item` `message`s: `user` a pi user message, `assistant` an assistant message, `developer` / `system`
  a `custom_message` (sent to the model as a user-role message); `reasoning` an assistant `thinking` block (its
  summary text; `encrypted_content` is never shown); `function_call` / `custom_tool_call` / `local_shell_call` an
  assistant `toolCall` (its `call_id`), their outputs `toolResult`s.
- `event_msg` `token_count` with `info.last_token_usage` measures the model request just answered: its usage is
  written on that response's last assistant row (`holder_line`; the row, with usage, is in `revisions`: the mirror
  writes it so, or marks the `token_count` line with it when the row is already written,
  `inspector.read.usage_marks`), `input` the uncached input (`input_tokens - cached_input_tokens`, cached being a
  subset), `cacheRead` the cached part, `totalTokens` the prompt (`input_tokens`). The `token_count` line itself is a
  `custom` row (metadata, never a message); one with no new response since the last (Codex repeats them, e.g. on a
  rate-limit update) is no new call. `model_context_window` (there and on `task_started`) is the window the file
  records (`window`).
- `turn_context` is a pi `model_change` (its `model`; the provider is `session_meta.model_provider`), the payload
  kept as `turnContext`.
- `compacted` is a pi `compaction`: the history Codex continues with is `replacement_history` when recorded (its
  items' text is the summary row), else the newest real user messages (up to `COMPACT_USER_MESSAGE_MAX_TOKENS`,
  chars/4; injected `<environment_context>` / `AGENTS.md` text and earlier summaries left out) and the summary
  message (`codex-rs/core/src/compact.rs`). Codex records neither a trigger nor the tokens before.
- `session_meta` is a `custom` entry (metadata, never sent as a message); its `base_instructions` (`{text}` in newer
  rollouts, a string in older ones, `instructions` in the oldest) are the hidden system prompt Codex sends before
  the transcript (`base_instructions`): the timeline's overhead attribution names their size
  (`inspector.figures.diagnosis.recorded_prompt`).
- Everything else (other events, `ghost_snapshot`, `compaction`, unknown types) is a `custom`
  entry (`codex:<type>[/<payload type>]`) holding the line whole.
- The oldest rollouts have no envelope (spec §2.1): a first line `{id, timestamp, instructions?}` (read as
  `session_meta`), then bare response items (`{type: "message", role, content}`...), and `{record_type: "state"}`
  lines; each bare item is read as a `response_item` whose payload is the line.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.read.formats.pi_lines import (
    CUSTOM_PREFIX_CODEX,
    as_dict,
    as_list,
    as_str,
    custom,
    data_url_image,
    entry,
    iso_ms,
    text_block,
)

API = "openai-responses"
COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000
"""Codex keeps the newest user messages up to this many tokens after a local compaction (`compact.rs`)."""
_INJECTED_PREFIXES = ("<environment_context>", "# AGENTS.md instructions", "<user_instructions>")
_TOOL_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
RESPONSE_ITEM_TYPES = frozenset({"message", "reasoning", "web_search_call", *_TOOL_CALLS, *_TOOL_OUTPUTS})
"""The `type`s of bare response items, the lines of the oldest (envelope-less) rollouts."""


def _int(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0


def usage_of(last: Any) -> dict[str, Any] | None:
    """pi's usage from a `token_count`'s `last_token_usage` (None when it has no tokens)."""
    if not isinstance(last, dict):
        return None
    inp, cached, out = _int(last.get("input_tokens")), _int(last.get("cached_input_tokens")), _int(last.get("output_tokens"))
    if not (inp or out):
        return None
    cached = min(cached, inp)
    return {"input": inp - cached, "output": out, "cacheRead": cached, "cacheWrite": 0, "totalTokens": inp}


SESSION_META_TYPE = f"{CUSTOM_PREFIX_CODEX}session_meta"
"""The `customType` of the `session_meta` row."""


def base_instructions(line: Any) -> str | None:
    """The system prompt a `session_meta` line records (`payload.base_instructions`, as `{text}` or a string, or the
    oldest rollouts' `instructions`); None when it records none."""
    payload = as_dict(as_dict(line).get("payload"))
    for key in ("base_instructions", "instructions"):
        value = payload.get(key)
        if isinstance(value, dict):
            value = value.get("text")
        if isinstance(value, str) and value:
            return value
    return None


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [text_block(content)]
    out: list[dict[str, Any]] = []
    for b in content if isinstance(content, list) else []:
        t = b.get("type") if isinstance(b, dict) else None
        if t in ("input_text", "output_text", "text", "summary_text"):
            out.append(text_block(b.get("text")))
        elif t == "input_image":
            out.append(data_url_image(b.get("image_url")) or text_block(f"[image {b.get('image_url')}]"))
        else:
            out.append(text_block(b))
    return out


def _enveloped(obj: dict[str, Any], line: int) -> dict[str, Any]:
    """A line of the oldest rollouts in the envelope of the newer ones (other lines as they are)."""
    if "payload" in obj:
        return obj
    if obj.get("type") in RESPONSE_ITEM_TYPES:
        return {"timestamp": obj.get("timestamp"), "type": "response_item", "payload": obj}
    if line == 1 and "type" not in obj and "id" in obj:
        return {"timestamp": obj.get("timestamp"), "type": "session_meta", "payload": obj}
    if "record_type" in obj and "type" not in obj:
        return {"timestamp": obj.get("timestamp"), "type": str(obj["record_type"]), "payload": obj}
    return obj


def _text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text")


class CodexTranslator:
    """Translates a Codex rollout line by line (see the module docstring); `translate` takes the lines in file
    order, each once."""

    format = "codex"

    def __init__(self) -> None:
        self.line = 0
        self.prev: str | None = None
        self.prev_is_message = False
        self.provider = "openai"
        self.model: str | None = None
        self.window: int | None = None
        self.tool_names: dict[str, str] = {}
        self.user_texts: list[str] = []
        self.holder_line: int | None = None
        """The last assistant row since the last `token_count`: the next `token_count`'s usage goes there."""
        self.holder_row: dict[str, Any] | None = None
        self.revisions: dict[int, dict[str, Any]] = {}
        """Rows of earlier lines written again (by line): the mirror takes them after each batch."""
        self.compactions: dict[int, dict[str, Any]] = {}
        """By line: `trigger` and `tokens_before` (Codex records neither: None)."""

    def translate(self, obj: Any) -> dict[str, Any] | None:
        """The pi entry for the next line's parsed value (None: write the line as it is)."""
        self.line += 1
        if not isinstance(obj, dict):
            return None
        entry_id = f"L{self.line}"
        out = self._entry(_enveloped(obj, self.line), entry_id)
        self.prev, self.prev_is_message = entry_id, out["type"] in ("message", "custom_message")
        if out["type"] == "message" and out["message"].get("role") == "assistant":
            self.holder_line, self.holder_row = self.line, out
        return out

    def _entry(self, obj: dict[str, Any], entry_id: str) -> dict[str, Any]:
        kind, ts = obj.get("type"), obj.get("timestamp")
        payload = as_dict(obj.get("payload"))
        ptype = payload.get("type")
        if kind == "session_meta" and isinstance(payload.get("model_provider"), str):
            self.provider = payload["model_provider"]
        if kind == "turn_context":
            model = payload.get("model")
            self.model = model if isinstance(model, str) else self.model
            return entry("model_change", entry_id, self.prev, ts, provider=self.provider, modelId=self.model, turnContext=payload)
        if kind == "response_item":
            msg = self._response_item(payload, iso_ms(ts))
            if msg is not None:
                return entry("message", entry_id, self.prev, ts, message=msg)
            if ptype == "message":
                return entry("custom_message", entry_id, self.prev, ts, customType=f"{CUSTOM_PREFIX_CODEX}{payload.get('role')}",
                             content=_blocks(payload.get("content")), display=True)
        if kind == "event_msg":
            window = payload.get("model_context_window")
            info = as_dict(payload.get("info"))
            window = info.get("model_context_window", window)
            if type(window) is int and window > 0:
                self.window = window
            usage = usage_of(info.get("last_token_usage")) if ptype == "token_count" else None
            if usage is not None and self.holder_row is not None and self.holder_line is not None:
                self.revisions[self.holder_line] = {**self.holder_row, "message": {**self.holder_row["message"], "usage": usage}}
                self.holder_line = self.holder_row = None
        if kind == "compacted":
            return self._compacted(payload, entry_id, ts)
        name = f"{kind}/{ptype}" if isinstance(ptype, str) and kind in ("event_msg", "response_item") else str(kind)
        return custom(f"{CUSTOM_PREFIX_CODEX}{name}", entry_id, self.prev, ts, obj)

    def _response_item(self, p: dict[str, Any], ms: int | None) -> dict[str, Any] | None:
        t = p.get("type")
        if t == "message" and p.get("role") in ("user", "assistant"):
            blocks = _blocks(p.get("content"))
            if p["role"] == "user":
                text = _text(blocks)
                if not text.lstrip().startswith(_INJECTED_PREFIXES):
                    self.user_texts.append(text)
                return {"role": "user", "content": blocks, "timestamp": ms}
            return self._assistant(blocks, ms)
        if t == "reasoning":
            summary = as_list(p.get("summary"))
            thinking = "\n".join(_text(_blocks(summary)).split("\n")) if summary else ""
            return self._assistant([{"type": "thinking", "thinking": thinking, "thinkingSignature": ""}], ms)
        if t in _TOOL_CALLS:
            call_id = as_str(p.get("call_id"), as_str(p.get("id")))
            name = as_str(p.get("name"), "local_shell" if t == "local_shell_call" else "")
            self.tool_names[call_id] = name
            raw = p.get("arguments") if t == "function_call" else p.get("input", p.get("action"))
            args: Any = raw
            if isinstance(raw, str) and t == "function_call":
                try:
                    args = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    args = raw
            args = args if isinstance(args, dict) else {"input": args}
            return self._assistant([{"type": "toolCall", "id": call_id, "name": name, "arguments": args}], ms, "toolUse")
        if t in _TOOL_OUTPUTS:
            call_id = as_str(p.get("call_id"))
            output = p.get("output")
            if isinstance(output, dict):
                output = output.get("content", output)
            error = isinstance(p.get("output"), dict) and p["output"].get("success") is False
            return {"role": "toolResult", "toolCallId": call_id, "toolName": self.tool_names.get(call_id, ""),
                    "content": _blocks(output), "isError": error, "timestamp": ms}
        return None

    def _assistant(self, blocks: list[dict[str, Any]], ms: int | None, stop: str = "stop") -> dict[str, Any]:
        return {"role": "assistant", "content": blocks, "api": API, "provider": self.provider, "model": self.model,
                "stopReason": stop, "timestamp": ms}

    def _compacted(self, payload: dict[str, Any], entry_id: str, ts: Any) -> dict[str, Any]:
        message = as_str(payload.get("message"))
        history = payload.get("replacement_history")
        if isinstance(history, list) and history:
            parts = []
            for item in history:
                if isinstance(item, dict):
                    msg = self._response_item(dict(item), None) if item.get("type") != "message" else None
                    blocks = _blocks(item.get("content")) if item.get("type") == "message" else (msg or {}).get("content") or []
                    parts.append(_text(blocks) or orjson.dumps(item).decode())
            summary, source = "\n\n".join(parts), "replacement_history"
        else:
            kept: list[str] = []
            budget = COMPACT_USER_MESSAGE_MAX_TOKENS * 4
            for text in reversed(self.user_texts):
                if budget <= 0:
                    break
                kept.append(text[:budget])
                budget -= len(text)
            summary, source = "\n\n".join([*reversed(kept), message]), "user_messages_and_summary"
        self.compactions[self.line] = {"trigger": None, "tokens_before": None}
        details = {"format": "codex", "trigger": None, "preTokens": None, "history": source}
        first_kept = self.prev if self.prev is not None and not self.prev_is_message else entry_id
        return entry("compaction", entry_id, self.prev, ts, summary=summary, firstKeptEntryId=first_kept, tokensBefore=0, details=details)
