"""The seam between the engine and an upstream release's rules: `RuleSet`, one per release folder, and the
registry of the releases the product carries.

A release folder (`inspector/rules/<release>/`) declares a `RELEASE` (`Release`: its id, the OpenClaw and pi
versions it reproduces, its estimators); `rule_set(id)` turns it into a `RuleSet`, whose parts (pruning,
compaction, window guard, config schema, model catalog, estimators) are that folder's modules, imported on
first use so that choosing a rule set costs nothing until a figure needs it. Code the releases share is imported
from one place, never copied into a second folder.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

RULES_PACKAGE = "inspector.rules"
RELEASE_FOLDERS: tuple[str, ...] = ("openclaw_2026_4_12", "openclaw_2026_9_6", "pi_0_73_1")
"""The release folders under `inspector/rules/`, oldest first. A new release adds its folder here."""
DEFAULT_RULES = "openclaw-2026.4.12"
"""The rule set a session gets when nothing says which release wrote it."""


@dataclass(frozen=True)
class Estimator:
    """One per-message size estimate a release computes at index time, by name (`pi`, `openclaw_prune`, ...).

    `field` is its key in `--json` (`pi_tokens`); `unit` is `tok` or `chars`."""

    name: str
    field: str
    unit: str
    label: str
    help: str
    title: str = ""
    """Its row heading in `stats`' estimates table (the label when empty)."""

    @property
    def heading(self) -> str:
        """`title`, else `label`."""
        return self.title or self.label


@dataclass(frozen=True)
class Release:
    """What a release folder declares about itself: the id users name it by and what it reproduces."""

    id: str
    title: str
    openclaw_version: str | None
    pi_version: str
    estimators: tuple[Estimator, ...]
    max_session_version: int
    """The newest session format version (the header's `version`) this release writes."""
    inherits: str | None = None
    """The release whose folder holds every rule part this one did not change (a part's module missing from this
    release's folder is that release's): a new release folder holds only what changed, nothing copied."""


class UnknownRulesError(ValueError):
    """`--rules` named no known rule set; the message lists the known ids."""

    def __init__(self, rules_id: str) -> None:
        super().__init__(f"unknown rules {rules_id!r}: known rule sets are {', '.join(known_rule_ids())}")
        self.rules_id = rules_id


@dataclass(frozen=True)
class RuleSet:
    """Everything that is one release's rule, the one way into it.

    Each part is a module of the release's folder, loaded on first use: `context_rebuild` (the context the model
    sees), `tokens` (estimators, their fused fast path, usage), `context_usage` (the context's size now), `pruning_settings`, `pruner`, `ttl`, `thinking`, `tool_guard`, `snippet` (context pruning),
    `compaction_settings`, `prepare` (cut point), `safeguard`, `chunking`, `stages`, `triggers`, `boundary`,
    `assembly`, `items`, `latest_request` (2026.9.6 on), `prompts` (compaction), `quality` (the summary audit), `heartbeat`, `window_guard`, `config_schema`, `model_catalog`.
    """

    release: Release
    package: str
    _loaded: dict[str, ModuleType] = field(default_factory=dict, compare=False, repr=False)
    _made: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    PARTS = {
        "context_rebuild": "context_rebuild",
        "tokens": "tokens",
        "context_usage": "tokens.context_usage",
        "pruning_settings": "pruning.settings",
        "pruner": "pruning.pruner",
        "ttl": "pruning.ttl",
        "thinking": "pruning.thinking",
        "tool_guard": "pruning.tool_guard",
        "tool_globs": "pruning.tools",
        "snippet": "pruning.snippet",
        "compaction_settings": "compaction.settings",
        "prepare": "compaction.prepare",
        "safeguard": "compaction.safeguard",
        "chunking": "compaction.chunking",
        "stages": "compaction.stages",
        "triggers": "compaction.triggers",
        "boundary": "compaction.boundary",
        "assembly": "compaction.assembly",
        "items": "compaction.items",
        "latest_request": "compaction.latest_request",
        "prompts": "compaction.prompts",
        "quality": "compaction.quality",
        "window_guard": "window_guard",
        "config_schema": "config_schema",
        "model_catalog": "model_catalog",
        "heartbeat": "heartbeat",
    }

    @property
    def id(self) -> str:
        """The id users name it by (`openclaw-2026.4.12`)."""
        return self.release.id

    @property
    def estimators(self) -> tuple[Estimator, ...]:
        """The per-message estimates this release computes, in the order the index keeps them."""
        return self.release.estimators

    def estimator(self, name: str) -> Estimator:
        """The estimator called `name`; KeyError when this release has none of that name."""
        for est in self.release.estimators:
            if est.name == name:
                return est
        raise KeyError(name)

    def part(self, name: str) -> ModuleType:
        """The module of this release that holds the rule part `name` (one of `PARTS`), imported once: this
        release's own, or, when its folder has none, the one of the release it `inherits` from."""
        mod = self._loaded.get(name)
        if mod is None:
            mod = self._own_part(name)
            if mod is None:
                if self.release.inherits is None:
                    raise ModuleNotFoundError(f"{self.id} has no rule part {name!r}")
                mod = rule_set(self.release.inherits).part(name)
            self._loaded[name] = mod
        return mod

    def has(self, name: str) -> bool:
        """Whether this release (or the one it inherits from) has the part `name` at all (a part new in a later
        release, such as 2026.9.6's `latest_request`, is missing from an older one)."""
        try:
            self.part(name)
        except ModuleNotFoundError:
            return False
        return True

    def owns(self, name: str) -> bool:
        """Whether this release's own folder holds the part `name` (False: it is inherited unchanged)."""
        return self._own_part(name) is not None

    def _own_part(self, name: str) -> ModuleType | None:
        module = f"{self.package}.{self.PARTS[name]}"
        if importlib.util.find_spec(module.rsplit(".", 1)[0]) is None:
            return None
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            return None
        return None if found is None else importlib.import_module(module)

    @property
    def reader_estimates(self) -> Any:
        """What the reader computes for each message under these rules (`inspector.read.estimates.ReaderEstimates`):
        the `tokens` part's `estimate_all`, its estimators' layout, its fused record builders (`FUSED_BY_ROLE`) when
        it has them, and the `context_rebuild` part the session rebuilds its context with."""
        got = self._made.get("reader_estimates")
        if got is None:
            from inspector.read.estimates import ReaderEstimates
            from inspector.storage.estimate_layout import estimate_layout

            tokens = self.tokens
            got = ReaderEstimates(
                self.id,
                estimate_layout(self.estimators),
                tokens.estimate_all,
                getattr(tokens, "FUSED_BY_ROLE", {}),
                self.context_rebuild,
                frozenset(getattr(self.context_rebuild, "EXTRA_ENTRY_TYPES", ())),
            )
            self._made["reader_estimates"] = got
        return got

    def __getattr__(self, name: str) -> Any:
        if name in RuleSet.PARTS:
            return self.part(name)
        raise AttributeError(name)


_RULE_SETS: dict[str, RuleSet] = {}


def _releases() -> dict[str, tuple[str, Release]]:
    found = {}
    for folder in RELEASE_FOLDERS:
        package = f"{RULES_PACKAGE}.{folder}"
        release: Release = importlib.import_module(package).RELEASE
        found[release.id] = (package, release)
    return found


def known_rule_ids() -> list[str]:
    """The ids of every rule set the product carries, oldest release first."""
    return list(_releases())


def openclaw_releases() -> list[Release]:
    """The releases of OpenClaw the product carries, oldest first (a pi-only rule set has no OpenClaw version): what
    a session's format version or an OpenClaw version is matched against."""
    return [release for release in releases() if release.openclaw_version is not None]


def releases() -> list[Release]:
    """Every release the product carries, oldest first."""
    return [release for _, release in _releases().values()]


def rule_set(rules_id: str = DEFAULT_RULES) -> RuleSet:
    """The rule set called `rules_id` (`UnknownRulesError` for an id the product does not carry)."""
    got = _RULE_SETS.get(rules_id)
    if got is None:
        known = _releases()
        if rules_id not in known:
            raise UnknownRulesError(rules_id)
        package, release = known[rules_id]
        got = _RULE_SETS[rules_id] = RuleSet(release, package)
    return got


def resolve_reader_estimates(rules_id: str | None) -> Any:
    """`rule_set(rules_id).reader_estimates` (None: the default rule set): registered by `inspector/__init__.py` as
    the reader's way from a rule set id to its estimators."""
    return rule_set(rules_id or DEFAULT_RULES).reader_estimates


@dataclass(frozen=True)
class RuleChoice:
    """Which rule set a session gets, and why (`--rules`, the session itself, the config, the installed
    OpenClaw, or the default): what the header and every `--json` show as `"rules"`."""

    id: str
    reason: str
    source: str = "default"
    """Which step decided: `flag` (--rules), `session`, `config`, `installed` or `default` (the header's word)."""

    def to_json(self) -> dict[str, str]:
        """`{"id": ..., "reason": ...}`."""
        return {"id": self.id, "reason": self.reason}

    @property
    def rules(self) -> RuleSet:
        """The chosen rule set."""
        return rule_set(self.id)


def parse_version(text: Any) -> tuple[int, ...] | None:
    """`"2026.4.12"` (or `"v2026.4.12-beta.1"`, `"OpenClaw 2026.4.12"`) -> (2026, 4, 12); None when no version."""
    if not isinstance(text, str):
        return None
    import re

    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return None
    return tuple(int(g) for g in match.groups() if g is not None)


def release_for_version(version: tuple[int, ...]) -> tuple[Release, bool]:
    """The newest known release not newer than `version`, and whether it is an exact match of its OpenClaw
    version; the oldest known release when `version` is older than all of them."""
    known = openclaw_releases()
    best = known[0]
    for release in known:
        own = parse_version(release.openclaw_version)
        if own is not None and own <= version:
            best = release
    return best, parse_version(best.openclaw_version) == version
