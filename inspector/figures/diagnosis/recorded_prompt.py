"""The system prompt a session file records, when it records one (`recorded_system_prompt`): Codex's
`session_meta.base_instructions`, the hidden baseline sent before the transcript on every call. Not a message of the
transcript (never counted in it); the timeline's overhead attribution names its size beside the overhead it measures.
OpenClaw and Claude Code files record no system prompt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import js_len
from inspector.model import entries as m
from inspector.read.formats.codex import SESSION_META_TYPE, base_instructions
from inspector.rules.ruleset import DEFAULT_RULES, rule_set
from inspector.session.session import Session

HEAD_ENTRIES = 16
"""Entries looked at from the start (`session_meta` is a rollout's first line)."""


@dataclass(frozen=True, slots=True)
class RecordedPrompt:
    """A system prompt the file records: where, how long, and its estimate (the session's rules' pi estimator, as
    for a user message of that text)."""

    line: int
    chars: int
    tokens: int
    source: str = "session_meta.base_instructions"


def prompt_of_row(data: Any, rules_id: str | None = None) -> tuple[int, int] | None:
    """A metadata row's (`custom` entry `data`) recorded system prompt: its (chars, estimate) under `rules_id`'s
    estimator (None: the default rules); None when the row records none."""
    if not isinstance(data, dict) or data.get("customType") != SESSION_META_TYPE:
        return None
    text = base_instructions(data.get("data"))
    if text is None:
        return None
    return js_len(text), rule_set(rules_id or DEFAULT_RULES).tokens.pi_estimate_tokens({"role": "user", "content": text})


def recorded_system_prompt(session: Session) -> RecordedPrompt | None:
    """The system prompt the file records (None: it records none)."""
    entries = session.entries
    for i in range(min(HEAD_ENTRIES, len(entries))):
        e = entries[i]
        if e.type == m.CUSTOM and isinstance(e.data, dict) and e.data.get("customType") == SESSION_META_TYPE:
            found = prompt_of_row(e.data, session.rules_id)
            return None if found is None else RecordedPrompt(e.line, *found)
    return None
