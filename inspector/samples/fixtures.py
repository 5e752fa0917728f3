"""Write realistic OpenClaw / pi-coding-agent v3 session transcripts, byte for byte as pi serializes them.

`SessionBuilder` is the small API tests (and the demo and benchmark generators) use to produce JSONL:

    b = SessionBuilder(seed=7)                 # clock starts at DEFAULT_START, ids derive from the seed
    b.header(cwd="/home/mara/project")
    u = b.user("List the files")
    a = b.assistant([b.tool_call("exec", {"command": "ls"})])     # usage computed automatically
    b.tool_result(b.last_tool_call_ids[0], "exec", "README.md\\nsrc")
    b.assistant("Two entries: README.md and src.")
    b.cache_ttl()
    b.write(tmp_path / "s.jsonl")

Faithfulness (spec §1.2, §1.3, §2): entry keys in pi's order (`type, id, parentId, timestamp, <payload>`; `custom` and
`custom_message` put their payload first and `id, parentId, timestamp` last), message keys in pi-ai's order, each
line written by `inspector.read.encode` (JavaScript's `JSON.stringify`, byte for byte), `\\n` endings.
Absent optional fields are omitted, never written as `null`. Ids are 8 hex chars derived from the seed (unique within a
builder); ISO timestamps (`2026-01-02T03:04:05.678Z`, `toISOString()` via `inspector.js.timeutil`) come from an injected
clock; `message.timestamp` is epoch ms.

Every append returns the new entry's id and makes it the leaf (like pi's `SessionManager`), except
`delivery_mirror()`, which models OpenClaw's unlocked second writer and leaves the leaf where it was.

The payloads given to it come from `inspector.samples.usage` (`make_usage`, `zero_usage`; also the token counts of its
automatic usage) and `inspector.samples.png` (`png_base64`).
"""

from __future__ import annotations

import base64
import math
import random
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from inspector.js.timeutil import iso_from_ms, ms_from_iso
from inspector.read.encode import encode_entry_text
from inspector.rules.ruleset import rule_set
from inspector.samples.png import png_base64
from inspector.samples.usage import approx_tokens, content_tokens, make_usage, zero_usage

__all__ = ["DEFAULT_START", "SessionBuilder"]

DEFAULT_START = "2026-01-02T03:04:05.678Z"

_MISSING: Any = object()
_AUTO: Any = object()
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# --------------------------------------------------------------------------------------------------------------------
# The builder


class SessionBuilder:
    """Append-only writer of one OpenClaw/pi v3 session file, mirroring pi's `SessionManager` append API.

    Args:
        seed: makes ids, tool-call ids, signatures and token jitter deterministic.
        start: the clock's start (ISO string or epoch ms). The clock only moves forward: every append takes a few ms,
            assistants take `duration_ms`, tool results `duration_ms` of execution; `wait(ms)` adds think time.
        provider, model, api: defaults for `assistant()` and `cache_ttl()`; `model_change()` updates them.
        sink: a text file to stream lines to instead of keeping them (for very large files; `text()` is then unavailable).
        track_context: keep a per-entry context-size estimate so `assistant(usage=None)` can synthesize realistic usage.
        system_prompt_tokens: tokens of system prompt + tool schemas assumed in front of every request.
        prompt_cache_ttl_ms: a request within this time of the previous one on the path reads the prompt cache.
        prices: USD per million tokens for automatic usage cost.
    """

    def __init__(
        self,
        seed: int = 0,
        start: str | int = DEFAULT_START,
        *,
        provider: str = "anthropic",
        model: str = "claude-sonnet-4-5",
        api: str = "anthropic-messages",
        sink: IO[str] | None = None,
        track_context: bool = True,
        system_prompt_tokens: int = 14_500,
        prompt_cache_ttl_ms: int = 300_000,
        prices: dict | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.now_ms: int = ms_from_iso(start) if isinstance(start, str) else int(start)
        self.provider, self.model, self.api = provider, model, api
        self.system_prompt_tokens = system_prompt_tokens
        self.prompt_cache_ttl_ms = prompt_cache_ttl_ms
        self.prices = prices
        self.session_id: str | None = None
        self.leaf_id: str | None = None
        self.entries: list[dict] = []  # header and entries as written (empty when streaming to a sink)
        self.last_tool_call_ids: list[str] = []  # toolCall ids of the last assistant() that moved the leaf
        self._lines: list[str] = []
        self._sink = sink
        self._track = track_context
        self._ctx: dict[str, tuple[float, float, float, int]] = {}  # id -> (ctx tokens, own tokens, cached prompt, req ms)
        self._id_base = self.rng.getrandbits(32)
        self._id_counter = 0

    # ---- ids, clock, output -----------------------------------------------------------------------------------------

    def _new_id(self) -> str:
        # murmur3 fmix32 is a bijection on 32 bits: distinct counters give distinct ids, no collision set needed.
        h = (self._id_base + self._id_counter) & 0xFFFFFFFF
        self._id_counter += 1
        h ^= h >> 16
        h = (h * 0x85EBCA6B) & 0xFFFFFFFF
        h ^= h >> 13
        h = (h * 0xC2B2AE35) & 0xFFFFFFFF
        h ^= h >> 16
        return f"{h:08x}"

    def new_uuid(self) -> str:
        """A random (seeded) UUIDv4 string, e.g. for run ids in custom entries."""
        b = bytearray(self.rng.randbytes(16))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        h = b.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def _b62(self, n: int) -> str:
        return "".join(self.rng.choices(_B62, k=n))

    def wait(self, ms: int) -> None:
        """Move the clock forward (user think time, a long tool run, a pause between runs)."""
        self.now_ms += int(ms)

    def _tick(self, ms: int = 1) -> str:
        self.now_ms += ms
        return iso_from_ms(self.now_ms)

    def _emit(self, obj: dict | None, line: str) -> None:
        if self._sink is not None:
            self._sink.write(line + "\n")
        else:
            self._lines.append(line)
            if obj is not None:
                self.entries.append(obj)

    def text(self) -> str:
        """The whole file: one JSON object per line, each ended by `\\n`."""
        if self._sink is not None:
            raise RuntimeError("text() is unavailable when streaming to a sink")
        return "".join(line + "\n" for line in self._lines)

    def write(self, path: str | Path) -> Path:
        """Write `text()` to `path` (UTF-8, `\\n` line endings) and return the path."""
        path = Path(path)
        path.write_bytes(self.text().encode("utf-8"))
        return path

    # ---- content blocks ----------------------------------------------------------------------------------------------

    def tool_call(self, name: str, arguments: dict, call_id: str | None = None) -> dict:
        """A `toolCall` block (`type, id, name, arguments`) with an Anthropic-style id `toolu_01…` unless given."""
        return {"type": "toolCall", "id": call_id or "toolu_01" + self._b62(22), "name": name, "arguments": arguments}

    def thinking(self, text: str = "", *, redacted: bool = False, signature: str | None = None) -> dict:
        """A `thinking` block with an opaque signature; `redacted=True` gives pi's redacted form (payload in the signature)."""
        if signature is None:
            size = 360 + self.rng.randrange(240) if not redacted else 900 + self.rng.randrange(600)
            signature = base64.b64encode(self.rng.randbytes(size)).decode("ascii")
        if redacted:
            return {"type": "thinking", "thinking": text or "[Reasoning redacted]", "thinkingSignature": signature, "redacted": True}
        return {"type": "thinking", "thinking": text, "thinkingSignature": signature}

    @staticmethod
    def image(data: str | None = None, mime_type: str = "image/png") -> dict:
        """An `image` block (`type, data, mimeType`); without data, a tiny valid 2x2 PNG."""
        if data is None:
            data = png_base64(2, 2, [[0, 1], [1, 0]], [(255, 255, 255), (30, 30, 30)])
        return {"type": "image", "data": data, "mimeType": mime_type}

    @staticmethod
    def text_block(text: str) -> dict:
        """A `text` block."""
        return {"type": "text", "text": text}

    # ---- entries -----------------------------------------------------------------------------------------------------

    def header(
        self,
        cwd: str = "/home/user/.openclaw/workspace",
        version: int | None = 3,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
    ) -> str:
        """The `session` header line; returns the session id (a UUIDv4 from the seed unless given). `version=None` omits it."""
        self.session_id = session_id or self.new_uuid()
        obj: dict[str, Any] = {"type": "session"}
        if version is not None:
            obj["version"] = version
        obj.update(id=self.session_id, timestamp=iso_from_ms(self.now_ms), cwd=cwd)
        if parent_session is not None:
            obj["parentSession"] = parent_session
        self._emit(obj, encode_entry_text(obj))
        self._tick()
        return self.session_id

    def raw_line(self, line: str) -> None:
        """Append `line` verbatim (corrupt JSON, a blank line, a stray second header...). Ids and the leaf are untouched."""
        self._emit(None, line)

    def _append(self, entry_type: str, payload: dict, *, payload_first: bool = False, parent: Any = _MISSING,
                advance_leaf: bool = True, tokens: float = 0.0) -> str:
        eid = self._new_id()
        parent_id = self.leaf_id if parent is _MISSING else parent
        timestamp = self._tick()
        base = {"id": eid, "parentId": parent_id, "timestamp": timestamp}
        obj = {"type": entry_type, **payload, **base} if payload_first else {"type": entry_type, **base, **payload}
        self._emit(obj, encode_entry_text(obj))
        if self._track:
            p = self._ctx.get(parent_id) if parent_id is not None else None
            ctx, cached, req = (p[0], p[2], p[3]) if p else (0.0, 0.0, 0)
            self._ctx[eid] = (ctx + tokens, tokens, cached, req)
        if advance_leaf:
            self.leaf_id = eid
        return eid

    def entry(self, entry_type: str, fields: dict) -> str:
        """Any entry type (e.g. one pi does not know yet): base keys first, then `fields` in their order."""
        return self._append(entry_type, dict(fields))

    def message(self, message: dict, *, advance_leaf: bool = True, side: bool = False) -> str:
        """A `message` entry carrying `message` as given (for roles without a helper, e.g. `bashExecution`, `custom`);
        `side=True` adds OpenClaw 2026.9's `appendMode: "side"` and leaves the leaf where it was."""
        tokens = 0.0
        if self._track:
            tokens = content_tokens(message.get("content", "")) if message.get("role") != "bashExecution" else \
                approx_tokens(str(message.get("command", "")) + str(message.get("output", "")))
        payload: dict[str, Any] = {"message": message, "appendMode": "side"} if side else {"message": message}
        return self._append("message", payload, advance_leaf=advance_leaf and not side, tokens=tokens)

    def reset(self, reason: str = "reset", first_kept_entry_id: str | None = None) -> str:
        """OpenClaw 2026.9's `reset` entry (`reason`, `firstKeptEntryId?`): a context boundary without a summary."""
        payload: dict[str, Any] = {"reason": reason}
        if first_kept_entry_id is not None:
            payload["firstKeptEntryId"] = first_kept_entry_id
        return self._append("reset", payload)

    def leaf(self, target_id: str | None, *, append_parent_id: Any = _MISSING, append_mode: str | None = None) -> str:
        """OpenClaw 2026.9's `leaf` row (`targetId, appendParentId?, appendMode?`; its parent: the current leaf): the
        target becomes the active leaf, and the next append a child of `append_parent_id` (default: the target)."""
        payload: dict[str, Any] = {"targetId": target_id}
        payload.update({} if append_parent_id is _MISSING else {"appendParentId": append_parent_id})
        payload.update({} if append_mode is None else {"appendMode": append_mode})
        eid = self._append("leaf", payload, advance_leaf=False)
        self.leaf_id = target_id if append_parent_id is _MISSING else append_parent_id
        return eid

    def user(self, content: str | Iterable[dict | str], *, provenance: dict | None = None) -> str:
        """A user message. A string stays a string (`content: "..."`); a list becomes text/image blocks."""
        if not isinstance(content, str):
            content = [self.text_block(c) if isinstance(c, str) else c for c in content]
        msg: dict[str, Any] = {"role": "user", "content": content, "timestamp": self.now_ms}
        if provenance is not None:
            msg["provenance"] = provenance
        return self.message(msg)

    def assistant(
        self,
        blocks: str | Iterable[dict | str],
        *,
        usage: dict | None = None,
        provider: str | None = None,
        model: str | None = None,
        api: str | None = None,
        stop_reason: str | None = None,
        error_message: str | None = None,
        response_id: str | None = _AUTO,
        duration_ms: int | None = None,
        output_tokens: int | None = None,
        parent: Any = _MISSING,
        advance_leaf: bool = True,
        extra: dict | None = None,
    ) -> str:
        """An assistant message in pi-ai's key order.

        `blocks`: a string (one text block) or blocks/strings. `usage=None` synthesizes Anthropic-like usage from the
        context on the path (prompt-cache reads within `prompt_cache_ttl_ms`, writes for the new part, a few uncached input
        tokens, output from the content or `output_tokens`). Token counts there are a tokenizer stand-in (3 ASCII chars
        per token, 1.1 tokens per other character, width*height/750 per PNG), not one of the spec's estimators. `stop_reason` defaults to `toolUse` when there are tool calls,
        `error` when `error_message` is given, else `stop`. `message.timestamp` is the request start; the entry's own
        timestamp is `duration_ms` later. `extra` fields are appended after the standard ones.
        """
        content = [self.text_block(blocks)] if isinstance(blocks, str) else \
            [self.text_block(b) if isinstance(b, str) else b for b in blocks]
        call_ids = [b["id"] for b in content if b.get("type") == "toolCall"]
        if advance_leaf:
            self.last_tool_call_ids = call_ids
        provider, model, api = provider or self.provider, model or self.model, api or self.api
        if stop_reason is None:
            stop_reason = "error" if error_message else ("toolUse" if call_ids else "stop")
        own_tokens = content_tokens(content) if (self._track or output_tokens is None) else 0.0
        out_tokens = output_tokens if output_tokens is not None else max(1, round(own_tokens * 1.04) + 2)
        request_ms = self.now_ms
        parent_id = self.leaf_id if parent is _MISSING else parent
        if usage is None:
            usage = self._auto_usage(parent_id, out_tokens, request_ms)
        if duration_ms is None:
            duration_ms = 700 + out_tokens * 14 + self.rng.randrange(400)
        msg: dict[str, Any] = {
            "role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
            "usage": usage, "stopReason": stop_reason, "timestamp": request_ms,
        }
        if response_id is _AUTO:
            response_id = self._response_id(api)
        if response_id is not None:
            msg["responseId"] = response_id
        if error_message is not None:
            msg["errorMessage"] = error_message
        if extra:
            msg.update(extra)
        self.now_ms += duration_ms
        eid = self._append("message", {"message": msg}, parent=parent, advance_leaf=advance_leaf, tokens=own_tokens)
        if self._track and usage.get("totalTokens"):
            prompt = usage["input"] + usage["cacheRead"] + usage["cacheWrite"]
            ctx, own, _, _ = self._ctx[eid]
            self._ctx[eid] = (ctx, own, float(prompt), request_ms)
        return eid

    def _response_id(self, api: str) -> str | None:
        if api == "anthropic-messages":
            return "msg_01" + self._b62(22)
        if api in ("openai-responses", "openai-codex-responses"):
            return "resp_" + self.rng.getrandbits(192).to_bytes(24, "big").hex()
        if api == "openai-completions":
            return "chatcmpl-" + self.new_uuid()
        return None

    def _auto_usage(self, parent_id: str | None, output: int, request_ms: int) -> dict:
        if not self._track:
            raise RuntimeError("automatic usage needs track_context=True; pass usage= explicitly")
        state = self._ctx.get(parent_id) if parent_id is not None else None
        ctx, cached, last_req = (state[0], state[2], state[3]) if state else (0.0, 0.0, 0)
        prompt = self.system_prompt_tokens + math.ceil(ctx)
        cache_read = int(cached) if cached and request_ms - last_req <= self.prompt_cache_ttl_ms else 0
        cache_read = min(cache_read, prompt)
        uncached = 3 + self.rng.randrange(9)
        cache_write = max(0, prompt - cache_read - uncached)
        return make_usage(min(uncached, prompt - cache_read), output, cache_read, cache_write, prices=self.prices)

    def delivery_mirror(self, text: str, *, parent: str | None = None) -> str:
        """OpenClaw's delivery-mirror assistant (provider `openclaw`, model `delivery-mirror`, zero usage).

        It is written by a second, unlocked `SessionManager`, so it becomes a child of `parent` (default: the current
        leaf) while this builder's leaf stays put: the live run's next entry becomes its sibling.
        """
        return self.assistant(
            text, usage=zero_usage(), provider="openclaw", model="delivery-mirror", api="openai-responses",
            stop_reason="stop", response_id=None, duration_ms=3, parent=parent or self.leaf_id, advance_leaf=False,
        )

    def tool_result(
        self,
        tool_call_id: str,
        tool_name: str,
        content: str | Iterable[dict | str],
        *,
        details: Any = _MISSING,
        is_error: bool = False,
        duration_ms: int = 120,
    ) -> str:
        """A toolResult message (`role, toolCallId, toolName, content, details?, isError, timestamp`).

        `content` as a string becomes one text block. `details` is omitted unless given. The clock first advances by
        `duration_ms` (the tool's run time).
        """
        blocks = [self.text_block(content)] if isinstance(content, str) else \
            [self.text_block(c) if isinstance(c, str) else c for c in content]
        self.now_ms += duration_ms
        msg: dict[str, Any] = {"role": "toolResult", "toolCallId": tool_call_id, "toolName": tool_name, "content": blocks}
        if details is not _MISSING:
            msg["details"] = details
        msg["isError"] = is_error
        msg["timestamp"] = self.now_ms
        return self.message(msg)

    def model_change(self, provider: str, model_id: str, *, api: str | None = None) -> str:
        """A `model_change` entry; later `assistant()`/`cache_ttl()` calls default to this model."""
        self.provider, self.model = provider, model_id
        if api is not None:
            self.api = api
        return self._append("model_change", {"provider": provider, "modelId": model_id})

    def thinking_level_change(self, thinking_level: str) -> str:
        """A `thinking_level_change` entry (`off`, `minimal`, `low`, `medium`, `high`, `xhigh`)."""
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        *,
        details: Any = _MISSING,
        from_hook: bool | None = None,
    ) -> str:
        """A `compaction` entry (`summary, firstKeptEntryId, tokensBefore, details?, fromHook?`).

        For automatic usage, the context after it is the summary plus the entries from `first_kept_entry_id` on, and the
        prompt cache starts cold.
        """
        payload: dict[str, Any] = {"summary": summary, "firstKeptEntryId": first_kept_entry_id, "tokensBefore": tokens_before}
        if details is not _MISSING:
            payload["details"] = details
        if from_hook is not None:
            payload["fromHook"] = from_hook
        parent_id = self.leaf_id
        eid = self._append("compaction", payload)
        if self._track:
            kept = 0.0
            parent_state = self._ctx.get(parent_id) if parent_id else None
            first = self._ctx.get(first_kept_entry_id)
            if parent_state and first and first_kept_entry_id != eid:
                kept = parent_state[0] - (first[0] - first[1])
            own = approx_tokens(rule_set().tokens.compaction_summary_text(summary))
            self._ctx[eid] = (own + kept, own, 0.0, 0)
        return eid

    def branch(self, entry_id: str | None) -> None:
        """Move the leaf to `entry_id` (pi `branch`); the next append becomes its child. `None` = pi `resetLeaf`."""
        self.leaf_id = entry_id

    def branch_summary(
        self, from_id: str | None, summary: str, *, details: Any = _MISSING, from_hook: bool | None = None
    ) -> str:
        """pi `branchWithSummary`: move the leaf to `from_id`, then append a `branch_summary` child of it.

        `fromId` is `from_id`, or `"root"` when `from_id` is None (the summary becomes a root entry).
        """
        self.leaf_id = from_id
        payload: dict[str, Any] = {"fromId": from_id if from_id is not None else "root", "summary": summary}
        if details is not _MISSING:
            payload["details"] = details
        if from_hook is not None:
            payload["fromHook"] = from_hook
        tokens = approx_tokens(rule_set().tokens.branch_summary_text(summary)) if summary else 0.0
        return self._append("branch_summary", payload, tokens=tokens)

    def custom(self, custom_type: str, data: Any = _MISSING) -> str:
        """A `custom` entry (extension state; not in the LLM context). `data` is omitted unless given."""
        payload: dict[str, Any] = {"customType": custom_type}
        if data is not _MISSING:
            payload["data"] = data
        return self._append("custom", payload, payload_first=True)

    def cache_ttl(self, timestamp_ms: int | None = None, provider: str | None = None, model_id: str | None = None) -> str:
        """OpenClaw's `openclaw.cache-ttl` custom entry: data `{timestamp, provider, modelId}` (defaults: now, current model)."""
        data = {
            "timestamp": self.now_ms if timestamp_ms is None else timestamp_ms,
            "provider": provider or self.provider,
            "modelId": model_id or self.model,
        }
        return self.custom("openclaw.cache-ttl", data)

    def custom_message(
        self, custom_type: str, content: str | Iterable[dict | str], *, display: bool = True, details: Any = _MISSING
    ) -> str:
        """A `custom_message` entry (`customType, content, display, details?`, then `id, parentId, timestamp`)."""
        if not isinstance(content, str):
            content = [self.text_block(c) if isinstance(c, str) else c for c in content]
        payload: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not _MISSING:
            payload["details"] = details
        return self._append("custom_message", payload, payload_first=True, tokens=content_tokens(content))

    def label(self, target_id: str, label: str | None) -> str:
        """A `label` entry; `label=None` writes no `label` key (clears the label)."""
        payload: dict[str, Any] = {"targetId": target_id}
        if label is not None:
            payload["label"] = label
        return self._append("label", payload)

    def session_info(self, name: str | None) -> str:
        """A `session_info` entry; the name is trimmed like pi does, `None` writes no `name` key."""
        return self._append("session_info", {} if name is None else {"name": name.strip()})

    # ---- inspection helpers ------------------------------------------------------------------------------------------

    def by_id(self, entry_id: str) -> dict:
        """The entry object appended with this id (not available when streaming to a sink)."""
        for e in reversed(self.entries):
            if e.get("id") == entry_id and e.get("type") != "session":
                return e
        raise KeyError(entry_id)

    def path(self, leaf_id: str | None = None) -> list[dict]:
        """Entries from the root to `leaf_id` (default: the current leaf), following `parentId`."""
        index = {e["id"]: e for e in self.entries if e.get("type") != "session"}
        out: list[dict] = []
        current = index.get(leaf_id or self.leaf_id or "")
        while current is not None:
            out.append(current)
            current = index.get(current["parentId"]) if current["parentId"] else None
        return out[::-1]
