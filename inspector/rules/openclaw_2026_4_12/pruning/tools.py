"""Which tool results may be pruned: OpenClaw's `makeToolPrunablePredicate` and glob matching.

Sources: OpenClaw `src/agents/pi-hooks/context-pruning/tools.ts` and `src/agents/glob-pattern.ts`.
Names and patterns are trimmed and lower-cased; `*` matches any run of characters; deny wins; an empty
`allow` list means every tool is prunable. Non-string patterns normalize to "" and are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.globmatch import GlobMatcher
from inspector.js.utf16 import js_trim

# JavaScript's `.` (no `s` flag) matches anything but these line terminators.
_JS_DOT_STAR = "[^\\n\\r\\u2028\\u2029]*"


def normalize_glob(value: Any) -> str:
    """`normalizeLowercaseStringOrEmpty`: trimmed, lower-cased string, or "" for anything else."""
    if not isinstance(value, str):
        return ""
    return js_trim(value).lower()


@dataclass(frozen=True, slots=True)
class CompiledGlobPattern:
    """One compiled pattern: `kind` is `all`, `exact` or `regex`."""

    kind: str
    value: str = ""
    regex: re.Pattern[str] | None = None
    matcher: GlobMatcher | None = None

    def matches(self, name: str) -> bool:
        """True when the (already normalized) `name` matches this pattern."""
        if self.kind == "all":
            return True
        if self.kind == "exact":
            return name == self.value
        if self.matcher is not None:  # linear time: the regex backtracks on `*t*x*` against long names
            return self.matcher.matches(name)
        assert self.regex is not None
        return self.regex.fullmatch(name) is not None


def compile_glob_pattern(raw: Any) -> CompiledGlobPattern:
    """`compileGlobPattern` with OpenClaw's tool-name normalizer."""
    normalized = normalize_glob(raw)
    if not normalized:
        return CompiledGlobPattern("exact", "")
    if normalized == "*":
        return CompiledGlobPattern("all")
    if "*" not in normalized:
        return CompiledGlobPattern("exact", normalized)
    body = _JS_DOT_STAR.join(re.escape(piece) for piece in normalized.split("*"))
    return CompiledGlobPattern("regex", normalized, re.compile(body), GlobMatcher(normalized))


def compile_glob_patterns(raw: Any) -> list[CompiledGlobPattern]:
    """`compileGlobPatterns`: anything but a list compiles to no patterns; empty exact patterns are dropped."""
    if not isinstance(raw, list):
        return []
    compiled = [compile_glob_pattern(item) for item in raw]
    return [p for p in compiled if p.kind != "exact" or p.value]


def matches_any_glob_pattern(value: str, patterns: Sequence[CompiledGlobPattern]) -> bool:
    """`matchesAnyGlobPattern`."""
    return any(p.matches(value) for p in patterns)


def make_tool_prunable_predicate(tools: dict[str, Any] | None) -> Callable[[Any], bool]:
    """`makeToolPrunablePredicate(settings.tools)`: deny wins, empty allow means everything is prunable."""
    tools = tools if isinstance(tools, dict) else {}
    deny = compile_glob_patterns(tools.get("deny"))
    allow = compile_glob_patterns(tools.get("allow"))

    def is_tool_prunable(tool_name: Any) -> bool:
        normalized = normalize_glob("" if tool_name is None else tool_name)
        if matches_any_glob_pattern(normalized, deny):
            return False
        if not allow:
            return True
        return matches_any_glob_pattern(normalized, allow)

    return is_tool_prunable
