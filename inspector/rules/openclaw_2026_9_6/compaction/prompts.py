"""The summarization prompts as OpenClaw 2026.9.6's safeguard and agent core build them.

Agent core (`packages/agent-core/src/harness/compaction/compaction.ts`, `utils.ts`, `summarization-completion.ts`,
`messages.ts`), what changed since pi 0.66.1 (`inspector.rules.openclaw_2026_4_12.compaction.prompts`):

* `SUMMARIZATION_SYSTEM_PROMPT` speaks of "an AI assistant" and tells how to read a user line's `sender={...}`;
* `convert_to_llm`: a custom message with `excludeFromContext` is dropped, a runtime-context carrier is marked;
* `serialize_conversation`: no `[Assistant thinking]:` lines; a user line carries its persisted sender
  (`[User sender={...}]:`); images and other non-text blocks leave `[... omitted from summary input]` lines (at most
  8 messages, then one overflow line); a tool result is cut keeping its head surrogate-safe and, when the cut loses
  an error / exception / traceback..., a 600-unit tail from it (`truncate_for_summary`);
* `generateSummary` with a safeguard `summaryPrompt`: the prompt is the stage's instructions (the structured
  instructions, or pi's split-turn prompt for a turn prefix), led by "Update the previous summary..." when there is
  a previous summary, and `Additional focus: ` follows it; the output budget is `floor(0.8 x reserve)` (0.5 for a
  turn prefix); reasoning follows the compaction's thinking level (`reasoning_option`; the level, its per-model clamp
  and the request fields that carry it: `compaction.reasoning`, re-exported here as `compaction_thinking_level` and
  `summary_request_reasoning`).

Safeguard (`src/agents/compaction.ts`, `agent-hooks/compaction-safeguard*.ts`):

* the previous summary is not sent in `<previous-summary>` but re-distilled: a first user message
  `<previous-compaction-summary>` (`previous_summary_message`) in front of the messages; within a stage the rolling
  summary of the chunks so far is still the next chunk's `<previous-summary>`;
* `IDENTIFIER_PRESERVATION_INSTRUCTIONS` no longer names tokens and API keys;
* `build_compaction_structure_instructions` adds two rules (completed requests, re-distilling) and, for a run
  answering a pending request, the latest unresolved request as an untrusted-data block;
* a stage's own focus text is only the quality guard's corrective text (none here); the merge's is
  `MERGE_SUMMARIES_INSTRUCTIONS`; the split-turn prefix's is the /compact text as an untrusted-data block. The
  engine keeps passing one string per stage: these functions return a `StageInstructions` (a `str`, the stage's
  instructions) that also carries the kind of call and its focus text.

`wrap_untrusted_prompt_data_block` cuts surrogate-safe now. Unchanged texts and helpers are 2026.4.12's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from inspector.js.jsjson import js_len
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.compaction import prompts as _P4
from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    DEFAULT_COMPACTION_INSTRUCTIONS as DEFAULT_COMPACTION_INSTRUCTIONS,
)
from inspector.rules.openclaw_2026_4_12.compaction.prompts import MAX_INSTRUCTION_LENGTH as MAX_INSTRUCTION_LENGTH
from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    MAX_UNTRUSTED_INSTRUCTION_CHARS as MAX_UNTRUSTED_INSTRUCTION_CHARS,
)
from inspector.rules.openclaw_2026_4_12.compaction.prompts import MERGE_SUMMARIES_INSTRUCTIONS as MERGE_SUMMARIES_INSTRUCTIONS
from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    POLICY_OFF_EXACT_IDENTIFIERS_INSTRUCTION as POLICY_OFF_EXACT_IDENTIFIERS_INSTRUCTION,
)
from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    STRICT_EXACT_IDENTIFIERS_INSTRUCTION as STRICT_EXACT_IDENTIFIERS_INSTRUCTION,
)
from inspector.rules.openclaw_2026_4_12.compaction.prompts import SUMMARIZATION_PROMPT as SUMMARIZATION_PROMPT
from inspector.rules.openclaw_2026_4_12.compaction.prompts import TOOL_RESULT_MAX_CHARS as TOOL_RESULT_MAX_CHARS
from inspector.rules.openclaw_2026_4_12.compaction.prompts import TURN_PREFIX_INSTRUCTIONS as TURN_PREFIX_INSTRUCTIONS
from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    TURN_PREFIX_SUMMARIZATION_PROMPT as TURN_PREFIX_SUMMARIZATION_PROMPT,
)
from inspector.rules.openclaw_2026_4_12.compaction.prompts import UPDATE_SUMMARIZATION_PROMPT as UPDATE_SUMMARIZATION_PROMPT
from inspector.rules.openclaw_2026_4_12.compaction.prompts import IdentifierPolicy as IdentifierPolicy
from inspector.rules.openclaw_2026_4_12.compaction.prompts import SummaryPrompt as _SummaryPrompt_4_12
from inspector.rules.openclaw_2026_4_12.compaction.prompts import _object_entries, _template
from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    resolve_compaction_instructions as resolve_compaction_instructions,
)
from inspector.rules.openclaw_2026_4_12.compaction.prompts import sanitize_for_prompt_literal as sanitize_for_prompt_literal
from inspector.rules.openclaw_2026_4_12.tokens.text import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    bash_execution_to_text,
)
from inspector.rules.openclaw_2026_9_6.compaction.assembly import truncate_utf16_safe
from inspector.rules.openclaw_2026_9_6.compaction.boundary import DEFAULT_SUMMARY_FALLBACK as DEFAULT_SUMMARY_FALLBACK
from inspector.rules.openclaw_2026_9_6.compaction.boundary import REQUIRED_SUMMARY_SECTIONS as REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_9_6.compaction.boundary import (
    build_structured_fallback_summary as build_structured_fallback_summary,
)
from inspector.rules.openclaw_2026_9_6.compaction.boundary import has_required_summary_sections as has_required_summary_sections
from inspector.rules.openclaw_2026_9_6.compaction.boundary import normalize_previous_summary
from inspector.rules.openclaw_2026_9_6.compaction.reasoning import SummaryModel as SummaryModel
from inspector.rules.openclaw_2026_9_6.compaction.reasoning import compaction_thinking_level as compaction_thinking_level
from inspector.rules.openclaw_2026_9_6.compaction.reasoning import summary_request_reasoning as summary_request_reasoning
from inspector.rules.openclaw_2026_9_6.pruning.pruner import slice_utf16_safe
from inspector.rules.openclaw_2026_9_6.tokens.estimators import (
    IMAGE_OMITTED_PLACEHOLDER,
    NON_TEXT_OMITTED_PLACEHOLDER,
    _stringify_compaction_value,
    persisted_sender_suffix,
)

# ---------------------------------------------------------------------------------------------- texts

SUMMARIZATION_SYSTEM_PROMPT = (
    "You are a context summarization assistant. Your task is to read a conversation between a user and an AI "
    "assistant, then produce a structured summary following the exact format specified.\n\n"
    "When a conversation line includes sender={...}, that JSON identifies the author of that user turn. The id is "
    "authoritative; name and username are readable labels only. Preserve attribution for material facts, preferences, "
    "instructions, decisions, and disagreements; never transfer them to another sender or an anonymous user. A user "
    "line without sender={...} is unattributed: preserve its facts as unattributed and do not assign them to a known "
    "sender.\n\n"
    "Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured "
    "summary."
)
UPDATE_PREVIOUS_SUMMARY_INSTRUCTION = (
    "Update the previous summary with the new conversation. Preserve relevant facts, decisions, and unresolved asks; "
    "remove stale or duplicate detail. Use the format below."
)
IDENTIFIER_PRESERVATION_INSTRUCTIONS = (
    "Preserve all opaque identifiers exactly as written (no shortening or reconstruction), including UUIDs, hashes, "
    "IDs, hostnames, IPs, ports, URLs, and file names."
)
PREVIOUS_SUMMARY_REDISTILL_PREFIX = (
    "Previous compaction summary to re-distill with the current conversation. Prune stale, duplicate, or superseded "
    "details instead of preserving it verbatim."
)
MAX_OMISSION_MESSAGES = 8
OMISSION_OVERFLOW = "[More image/non-text data omitted from summary input]"
DEFAULT_THINKING_LEVEL = "low"
"""The thinking level a session without one summarizes with."""

StageKind = Literal["custom", "turn-prefix"]


# ---------------------------------------------------------------------------------------------- agent core


def convert_to_llm(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Agent core `convertToLlm`: AgentMessages → the user/assistant/toolResult messages a model sees."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        role, ts = m.get("role"), m.get("timestamp")
        if role in ("bashExecution", "custom") and m.get("excludeFromContext"):
            continue
        if role == "bashExecution":
            out.append({"role": "user", "content": [{"type": "text", "text": bash_execution_to_text(m)}], "timestamp": ts})
        elif role == "custom":
            content = m.get("content")
            msg = {"role": "user", "content": [{"type": "text", "text": content}] if isinstance(content, str) else content, "timestamp": ts}
            details = m.get("details")
            if isinstance(details, dict) and details.get("runtimeContextCarrier") is True:
                msg["runtimeContextCarrier"] = True
            out.append(msg)
        elif role == "branchSummary":
            text = BRANCH_SUMMARY_PREFIX + _template(m.get("summary")) + BRANCH_SUMMARY_SUFFIX
            out.append({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts})
        elif role == "compactionSummary":
            text = COMPACTION_SUMMARY_PREFIX + _template(m.get("summary")) + COMPACTION_SUMMARY_SUFFIX
            out.append({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts})
        elif role in ("user", "assistant", "toolResult"):
            out.append(m)
    return out


_IMPORTANT_TAIL = re.compile("(error|exception|failed|fatal|traceback|panic|stack trace|errno|exit code)", re.IGNORECASE | re.ASCII)
_STRONG = re.compile("(?:error|exception|fatal|panic|errno)", re.IGNORECASE | re.ASCII)


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """Agent core `truncateForSummary`: the head cut surrogate-safe, and a diagnostic tail kept when the cut would
    lose the last error / exception / ... of the text's final `max_chars` units (UTF-16 lengths)."""
    n = js_len(text)
    if n <= max_chars:
        return text
    tail_chars = min(math.floor(max_chars * 0.3), 600)
    search = slice_utf16_safe(text, -max_chars)
    matches = list(_IMPORTANT_TAIL.finditer(search))
    strong = [mt for mt in matches if _STRONG.fullmatch(mt.group(0))]
    match = strong[-1] if strong else (matches[-1] if matches else None)
    if match is not None:
        head = truncate_utf16_safe(text, max_chars - tail_chars)
        head_len = js_len(head)
        displaced = slice_utf16_safe(text, max(0, head_len - 32), max_chars)
        if not _IMPORTANT_TAIL.search(displaced):
            offset = n - js_len(search) + js_len(search[: match.start()])
            tail_start = min(offset, n - tail_chars)
            if tail_start >= head_len:
                tail = slice_utf16_safe(text, tail_start, tail_start + tail_chars)
                where = "middle/trailing" if tail_start + js_len(tail) < n else "more"
                return f"{head}\n\n[... {n - head_len - js_len(tail)} {where} characters truncated]\n\n{tail}"
    sliced = truncate_utf16_safe(text, max_chars)
    return f"{sliced}\n\n[... {n - js_len(sliced)} more characters truncated]"


def _content_text(content: Any) -> tuple[str, str]:
    """utils.ts `getCompactionContent`: the text and the omission lines."""
    if isinstance(content, str):
        return content, ""
    texts: list[str] = []
    omissions: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        btype, text = block.get("type"), block.get("text")
        value = ""
        if btype in ("text", "toolResult", "tool_result") and text:
            value = _template(text)
        elif btype in ("toolResult", "tool_result") and isinstance(block.get("content"), str):
            value = block["content"]
        if btype != "text" and not value:
            note = IMAGE_OMITTED_PLACEHOLDER if btype == "image" else NON_TEXT_OMITTED_PLACEHOLDER
            if note not in omissions:
                omissions.append(note)
        if value:
            texts.append(value)
    return "\n".join(texts), "\n".join(omissions)


def serialize_conversation(messages: list[dict[str, Any]]) -> str:
    """Agent core `serializeConversation` of already-converted messages (see the module docstring)."""
    parts: list[str] = []
    omission_messages = 0
    for msg in messages:
        role = msg.get("role")
        if role == "user" and msg.get("runtimeContextCarrier") is True:
            continue
        if role in ("user", "toolResult"):
            text, omission = _content_text(msg.get("content"))
            if omission:
                if omission_messages == MAX_OMISSION_MESSAGES:
                    parts.append(OMISSION_OVERFLOW)
                omission_messages += 1
            body = [omission if omission_messages <= MAX_OMISSION_MESSAGES else "", truncate_for_summary(text) if role == "toolResult" else text]
            content = "\n".join(b for b in body if b)
            if content:
                speaker = "Tool result" if role == "toolResult" else f"User{persisted_sender_suffix(msg)}"
                parts.append(f"[{speaker}]: {content}")
        elif role == "assistant":
            texts: list[Any] = []
            calls: list[str] = []
            for block in msg.get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    texts.append(block.get("text"))
                elif block.get("type") == "toolCall":
                    args = ", ".join(f"{k}={_stringify_compaction_value(v)}" for k, v in _object_entries(block.get("arguments")))
                    calls.append(f"{_template(block.get('name'))}({args})")
            if texts:
                parts.append(f"[Assistant]: {chr(10).join('' if t is None else _template(t) for t in texts)}")
            if calls:
                parts.append(f"[Assistant tool calls]: {'; '.join(calls)}")
    return "\n\n".join(parts)


@dataclass(frozen=True)
class SummaryPrompt(_SummaryPrompt_4_12):
    """What an LLM summarizer sends (2026.4.12's fields) plus `reasoning_effort`: the session's thinking level the
    agent core asks a reasoning model for (`reasoning_option`; None: no reasoning option)."""

    reasoning_effort: str | None = None


def reasoning_option(thinking_level: str | None) -> str | None:
    """`resolveAgentReasoningOption(model, thinkingLevel)` for a model without a per-level map: the level itself,
    none for `off` (`createSummarizationOptions` sets it only on reasoning models: the summarizer decides that)."""
    level = thinking_level or DEFAULT_THINKING_LEVEL
    return None if level == "off" else level


def summary_reasoning(model_reasoning: bool, thinking_level: str | None = None) -> str | None:
    """The `reasoning` option a summary call hands a model (None: none): `reasoning_option` of the compaction's
    thinking level (`compaction_thinking_level`), for a reasoning model only (`createSummarizationOptions`)."""
    return reasoning_option(thinking_level) if model_reasoning else None


@dataclass(frozen=True)
class _Stage:
    kind: StageKind
    prompt: str
    focus: str
    compact_text: str


class StageInstructions(str):
    """A stage's instructions (the `str`: the prompt after the conversation) with what the call needs besides:
    `kind` (`custom` or `turn-prefix`), `focus` (the stage's own custom instructions, before the identifier rule is
    added) and `compact_text` (the resolved /compact text, for the split-turn prefix)."""

    stage: _Stage

    def __new__(cls, kind: StageKind, prompt: str, focus: str = "", compact_text: str = "") -> StageInstructions:
        obj = super().__new__(cls, prompt)
        obj.stage = _Stage(kind, prompt, focus, compact_text)
        return obj


def _stage_of(instructions: str) -> _Stage:
    return instructions.stage if isinstance(instructions, StageInstructions) else _Stage("custom", instructions, "", "")


def history_prompt(
    messages: list[dict[str, Any]],
    reserve_tokens: int,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
    *,
    reasoning: bool = False,
    summary_prompt: str | None = None,
    turn_prefix: bool = False,
    thinking_level: str | None = None,
) -> SummaryPrompt:
    """Agent core `generateSummary`'s request: without `summary_prompt` (and not `turn_prefix`) pi's own prompts."""
    if summary_prompt is None and not turn_prefix:
        prompt = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    else:
        selected = TURN_PREFIX_SUMMARIZATION_PROMPT if turn_prefix else summary_prompt
        prompt = "\n\n".join(p for p in (UPDATE_PREVIOUS_SUMMARY_INSTRUCTION if previous_summary else "", selected) if p)
    text = f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    text += prompt
    if custom_instructions:
        text += f"\n\nAdditional focus: {custom_instructions}"
    share = 0.5 if turn_prefix else 0.8
    max_tokens = math.floor(share * reserve_tokens) if reserve_tokens >= 0 else 0
    return SummaryPrompt(SUMMARIZATION_SYSTEM_PROMPT, text, max_tokens, reasoning, reasoning_option(thinking_level))


def turn_prefix_prompt(messages: list[dict[str, Any]], reserve_tokens: int) -> SummaryPrompt:
    """Agent core `generateSummary` with the turn-prefix prompt (no previous summary, no focus)."""
    return history_prompt(messages, reserve_tokens, turn_prefix=True)


# ---------------------------------------------------------------------------------------------- safeguard


def wrap_untrusted_prompt_data_block(label: str, text: str, max_chars: int = 0) -> str:
    """OpenClaw 2026.9 `wrapUntrustedPromptDataBlock`: 2026.4.12's, cut surrogate-safe."""
    return _P4.wrap_untrusted_prompt_data_block(label, text, max_chars, cut=truncate_utf16_safe)


def _untrusted(label: str, text: str) -> str:
    """`wrapUntrustedInstructionBlock`."""
    return wrap_untrusted_prompt_data_block(label, text, MAX_UNTRUSTED_INSTRUCTION_CHARS)


def resolve_identifier_preservation_instructions(policy: IdentifierPolicy = "strict", custom: str | None = None) -> str | None:
    """OpenClaw 2026.9 `resolveIdentifierPreservationInstructions` (its identifier rule)."""
    return _P4.resolve_identifier_preservation_instructions(policy, custom, default=IDENTIFIER_PRESERVATION_INSTRUCTIONS)


def build_compaction_summarization_instructions(
    custom_instructions: str | None, policy: IdentifierPolicy = "strict", identifier_instructions: str | None = None
) -> str | None:
    """OpenClaw 2026.9 `buildCompactionSummarizationInstructions`: the identifier rule and the stage's focus text."""
    return _P4.build_compaction_summarization_instructions(custom_instructions, policy, identifier_instructions,
                                                           default=IDENTIFIER_PRESERVATION_INSTRUCTIONS)


def resolve_exact_identifier_section_instruction(policy: IdentifierPolicy = "strict", identifier_instructions: str | None = None) -> str:
    """OpenClaw 2026.9 `resolveExactIdentifierSectionInstruction` (the policy text cut surrogate-safe)."""
    return _P4.resolve_exact_identifier_section_instruction(policy, identifier_instructions, cut=truncate_utf16_safe)


def build_compaction_structure_instructions(
    custom_instructions: str | None,
    policy: IdentifierPolicy = "strict",
    identifier_instructions: str | None = None,
    latest_unresolved_request: str | None = None,
) -> str:
    """OpenClaw 2026.9 `buildCompactionStructureInstructions`."""
    sections = "\n".join(
        [
            "Produce a compact, factual summary with these exact section headings:",
            *REQUIRED_SUMMARY_SECTIONS,
            resolve_exact_identifier_section_instruction(policy, identifier_instructions),
            "Do not omit unresolved asks from the user.",
            "Record completed requests outside ## Pending user asks; list only unresolved user requests there.",
            "When prior compaction summaries are present, re-distill them with new messages and remove stale duplicate detail.",
        ]
    )
    block = _untrusted("Latest unresolved user request", latest_unresolved_request) if latest_unresolved_request else ""
    request = "\n".join(
        [
            "Make the exact request below the first item in ## Pending user asks.",
            "Its run owner will resume it after compaction, so summary prose cannot mark it complete.",
            block,
        ]
    ) if block else ""
    custom = js_trim(custom_instructions) if custom_instructions else ""
    compact = _untrusted("Additional context from /compact", custom) if custom else ""
    return "\n\n".join(p for p in (sections, request, compact) if p)


def safeguard_structured_instructions(
    custom_instructions: str | None = None,
    runtime_instructions: str | None = None,
    policy: IdentifierPolicy = "strict",
    identifier_instructions: str | None = None,
    latest_unresolved_request: str | None = None,
) -> StageInstructions:
    """The `structuredInstructions` every history / dropped-history stage is prompted with (`custom` kind)."""
    resolved = resolve_compaction_instructions(custom_instructions, runtime_instructions)
    text = build_compaction_structure_instructions(resolved, policy, identifier_instructions, latest_unresolved_request)
    return StageInstructions("custom", text, "", resolved)


def merge_instructions(custom_instructions: str | None) -> StageInstructions:
    """The merge call of `summarizeInStages`: the same prompt, `MERGE_SUMMARIES_INSTRUCTIONS` (and the stage's own
    focus text, none here) as its focus."""
    stage = _stage_of(custom_instructions or "")
    focus = js_trim(stage.focus)
    return StageInstructions(stage.kind, stage.prompt, f"{MERGE_SUMMARIES_INSTRUCTIONS}\n\n{focus}" if focus else MERGE_SUMMARIES_INSTRUCTIONS,
                             stage.compact_text)


def compose_split_turn_instructions(turn_prefix_instructions: str, resolved_instructions: str) -> StageInstructions:
    """The split-turn prefix call: pi's turn-prefix prompt, the /compact text as an untrusted-data block for focus
    (`turn_prefix_instructions`, 2026.4.12's, is no longer sent)."""
    stage = _stage_of(resolved_instructions)
    compact = stage.compact_text if isinstance(resolved_instructions, StageInstructions) else resolved_instructions
    return StageInstructions("turn-prefix", TURN_PREFIX_SUMMARIZATION_PROMPT, _untrusted("Additional context from /compact", compact), compact)


def previous_summary_message(previous_summary: str | None) -> dict[str, Any] | None:
    """`prependPreviousSummaryForRedistill`'s message for a previous summary (normalized as the safeguard does), or
    None when there is none: the runner puts it before a stage's messages and passes no previous summary."""
    summary = normalize_previous_summary(previous_summary)
    if not summary:
        return None
    text = f"<previous-compaction-summary>\n{PREVIOUS_SUMMARY_REDISTILL_PREFIX}\n\n{summary}\n</previous-compaction-summary>"
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}


def safeguard_prompt(
    messages: list[dict[str, Any]],
    reserve_tokens: int,
    stage_instructions: str,
    previous_summary: str | None = None,
    *,
    policy: IdentifierPolicy = "strict",
    identifier_instructions: str | None = None,
    reasoning: bool = False,
    thinking_level: str | None = None,
) -> SummaryPrompt:
    """One `summarizeChunks` call of the safeguard: `generateSummary` with the stage's prompt and focus text.

    `stage_instructions`: `safeguard_structured_instructions(...)` for the history and its chunks,
    `merge_instructions(structured)` for the merge, `compose_split_turn_instructions(TURN_PREFIX_INSTRUCTIONS,
    structured)` for the split-turn prefix (a plain string is taken as a `custom` stage's prompt).
    `previous_summary` is the rolling summary of the chunks before (the stage's previous summary goes in front of its
    messages: `previous_summary_message`).
    """
    stage = _stage_of(stage_instructions)
    focus = build_compaction_summarization_instructions(stage.focus, policy, identifier_instructions)
    turn_prefix = stage.kind == "turn-prefix"
    return history_prompt(messages, reserve_tokens, focus, previous_summary, reasoning=reasoning,
                          summary_prompt=None if turn_prefix else stage.prompt, turn_prefix=turn_prefix, thinking_level=thinking_level)
