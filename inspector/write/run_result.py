"""A compaction run's outcome: `RunResult` (what `compact --json` prints) and its `StageReport`s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.write.migrate import MigrationResult
from inspector.write.preflight import Check
from inspector.write.writer import CommitResult, PlanSnapshot


@dataclass
class StageReport:
    """One stage as it ran."""

    stage: str
    status: str
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    elapsed_ms: int = 0
    retries: int = 0
    fallbacks: list[str] = field(default_factory=list)
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return dict(self.__dict__)


@dataclass
class RunResult:
    """The outcome: `status` is `committed`, `dry_run`, `nothing_written` or `failed` (nothing written unless committed)."""

    path: str
    status: str
    reason: str = ""
    summarizer: str = "rules"
    model: str | None = None
    entry: dict[str, Any] | None = None
    commit: CommitResult | None = None
    tokens_before: int | float | None = None
    tokens_after: int | None = None
    stages: list[StageReport] = field(default_factory=list)
    fallback_summary: bool = False
    error: dict[str, Any] = field(default_factory=dict)
    snapshot: PlanSnapshot | None = None
    """The file as the plan saw it (a later commit of the same summary passes it as `since`)."""
    recovered: list[str] = field(default_factory=list)
    """What was done before the run to finish crashed writes (`recovery.recover_session`), and at commit."""
    migration: MigrationResult | None = None
    """The migration to version 3 done before the run (`RunOptions.migrate`), if any."""
    checks: list[Check] = field(default_factory=list)
    """The checks before any call (`preflight`: version, lock, summarizer) and of the summary (`summary_checks`:
    cap, quality); a failed one is a warning unless `blocking`."""

    @property
    def warnings(self) -> list[str]:
        """The failed checks' details, in order."""
        return [c.detail for c in self.checks if not c.ok]

    @property
    def retries(self) -> int:
        """Retries over all stages."""
        return sum(s.retries for s in self.stages)

    @property
    def fallbacks(self) -> list[str]:
        """Fallbacks over all stages, in order."""
        return [f for s in self.stages for f in s.fallbacks]

    @property
    def changed(self) -> bool:
        """True only when the file was written."""
        return self.status == "committed"

    def to_json(self) -> dict[str, Any]:
        """`compact --json`."""
        return {
            "path": self.path,
            "status": self.status,
            "changed": self.changed,
            "reason": self.reason,
            "summarizer": self.summarizer,
            "model": self.model,
            "entry": self.entry,
            "commit": self.commit.to_json() if self.commit else None,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "stages": [s.to_json() for s in self.stages],
            "retries": self.retries,
            "fallbacks": self.fallbacks,
            "fallback_summary": self.fallback_summary,
            "error": self.error or None,
            "recovered": self.recovered + list(self.commit.recovered if self.commit else ()),
            "checks": [c.to_json() for c in self.checks],
            "migrated": self.migration.to_json() if self.migration else None,
        }
