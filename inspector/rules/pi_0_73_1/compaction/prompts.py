"""pi 0.73.1's compaction prompts: pi 0.66.1's texts and OpenClaw's safeguard instructions (2026.4.12's module,
imported), with pi 0.73.1's reasoning rule.

pi-coding-agent 0.73.1 `dist/core/compaction/compaction.js`: `compact(preparation, model, apiKey, headers,
customInstructions, signal, thinkingLevel)` gets the session's thinking level (`AgentSession.thinkingLevel`) and
hands it to `generateSummary` and `generateTurnPrefixSummary`, which pass pi-ai `reasoning: thinkingLevel` when
`model.reasoning && thinkingLevel && thinkingLevel !== "off"`, and no reasoning option otherwise (0.66.1 passed a
fixed "high" to every reasoning model, and none on the turn-prefix call). Changed: `summary_reasoning`.
"""

from __future__ import annotations

from inspector.rules.openclaw_2026_4_12.compaction.prompts import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    DEFAULT_COMPACTION_INSTRUCTIONS,
    DEFAULT_SUMMARY_FALLBACK,
    IDENTIFIER_PRESERVATION_INSTRUCTIONS,
    MAX_INSTRUCTION_LENGTH,
    MAX_UNTRUSTED_INSTRUCTION_CHARS,
    MERGE_SUMMARIES_INSTRUCTIONS,
    POLICY_OFF_EXACT_IDENTIFIERS_INSTRUCTION,
    REQUIRED_SUMMARY_SECTIONS,
    STRICT_EXACT_IDENTIFIERS_INSTRUCTION,
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TOOL_RESULT_MAX_CHARS,
    TURN_PREFIX_INSTRUCTIONS,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
    IdentifierPolicy,
    SummaryPrompt,
    bash_execution_to_text,
    build_compaction_structure_instructions,
    build_compaction_summarization_instructions,
    build_structured_fallback_summary,
    compaction_thinking_level,
    compose_split_turn_instructions,
    convert_to_llm,
    has_required_summary_sections,
    history_prompt,
    merge_instructions,
    resolve_compaction_instructions,
    resolve_exact_identifier_section_instruction,
    resolve_identifier_preservation_instructions,
    safeguard_prompt,
    safeguard_structured_instructions,
    sanitize_for_prompt_literal,
    serialize_conversation,
    truncate_for_summary,
    turn_prefix_prompt,
    wrap_untrusted_prompt_data_block,
)

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "DEFAULT_COMPACTION_INSTRUCTIONS",
    "DEFAULT_SUMMARY_FALLBACK",
    "IDENTIFIER_PRESERVATION_INSTRUCTIONS",
    "MAX_INSTRUCTION_LENGTH",
    "MAX_UNTRUSTED_INSTRUCTION_CHARS",
    "MERGE_SUMMARIES_INSTRUCTIONS",
    "POLICY_OFF_EXACT_IDENTIFIERS_INSTRUCTION",
    "REQUIRED_SUMMARY_SECTIONS",
    "STRICT_EXACT_IDENTIFIERS_INSTRUCTION",
    "SUMMARIZATION_PROMPT",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "TOOL_RESULT_MAX_CHARS",
    "TURN_PREFIX_INSTRUCTIONS",
    "TURN_PREFIX_SUMMARIZATION_PROMPT",
    "UPDATE_SUMMARIZATION_PROMPT",
    "IdentifierPolicy",
    "SummaryPrompt",
    "bash_execution_to_text",
    "build_compaction_structure_instructions",
    "build_compaction_summarization_instructions",
    "build_structured_fallback_summary",
    "compaction_thinking_level",
    "compose_split_turn_instructions",
    "convert_to_llm",
    "has_required_summary_sections",
    "history_prompt",
    "merge_instructions",
    "resolve_compaction_instructions",
    "resolve_exact_identifier_section_instruction",
    "resolve_identifier_preservation_instructions",
    "safeguard_prompt",
    "safeguard_structured_instructions",
    "sanitize_for_prompt_literal",
    "serialize_conversation",
    "summary_reasoning",
    "truncate_for_summary",
    "turn_prefix_prompt",
    "wrap_untrusted_prompt_data_block",
]


def summary_reasoning(model_reasoning: bool, thinking_level: str | None = None) -> str | None:
    """The `reasoning` option pi 0.73.1's summary calls (history and turn prefix alike) hand pi-ai: the session's
    thinking level for a reasoning model, None when the model does not reason or the level is unset or "off"."""
    if model_reasoning and thinking_level and thinking_level != "off":
        return thinking_level
    return None
