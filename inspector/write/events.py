"""The events a compaction run emits: plain, frozen, typed; the CLI and the UI render them, neither decides.

Every event has a `kind` (its JSON tag), a `at_ms` (epoch milliseconds from the run's clock) and `to_json()`.
A run emits, in order: `StageStarted` / `StageProgress` / `TextStreamed` / `StageFinished` per stage (with
`RetryScheduled`, `FallbackUsed` and `BreakerChanged` as they happen), then exactly one of `Committed` (the file
was written), `NothingWritten` (a run that changed nothing: dry run, cancelled, fallback declined) or `Failed`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

StageName = Literal["history_share", "parts", "chunks", "merge", "split_turn_prefix", "assembly", "commit"]
StageStatus = Literal["done", "failed", "skipped", "cancelled", "fallback"]
FallbackKind = Literal["without_oversized", "summary_unavailable", "partial_summary", "structured_boundary", "provider_to_rules"]


@dataclass(frozen=True)
class RunEvent:
    """Base of every event."""

    kind: ClassVar[str] = "event"
    at_ms: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: `{"kind": ..., "at_ms": ..., <fields>}` (tuples as lists)."""
        return {"kind": self.kind, **{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}}


@dataclass(frozen=True)
class StageStarted(RunEvent):
    """A stage begins (`index` of `total` stages; `calls` LLM calls expected in it)."""

    kind: ClassVar[str] = "stage_started"
    stage: StageName
    index: int
    total: int
    label: str = ""
    calls: int = 0
    tokens_in: int = 0


@dataclass(frozen=True)
class StageProgress(RunEvent):
    """Progress inside a stage: `done` of `total` calls, tokens so far, and the estimated time left."""

    kind: ClassVar[str] = "stage_progress"
    stage: StageName
    done: int
    total: int
    tokens_in: int = 0
    tokens_out: int = 0
    elapsed_ms: int = 0
    eta_ms: int | None = None
    label: str = ""


@dataclass(frozen=True)
class TextStreamed(RunEvent):
    """A piece of summary text as it arrives (`call` numbers the call inside the stage)."""

    kind: ClassVar[str] = "text_streamed"
    stage: StageName
    text: str
    call: int = 0


@dataclass(frozen=True)
class StageFinished(RunEvent):
    """A stage ends, with its status and totals."""

    kind: ClassVar[str] = "stage_finished"
    stage: StageName
    status: StageStatus
    tokens_in: int = 0
    tokens_out: int = 0
    elapsed_ms: int = 0
    detail: str = ""


@dataclass(frozen=True)
class RetryScheduled(RunEvent):
    """A failed call will be tried again after `delay_ms` (attempt `attempt` of `max_attempts` just failed)."""

    kind: ClassVar[str] = "retry_scheduled"
    stage: StageName
    attempt: int
    max_attempts: int
    delay_ms: int
    error: str
    status: int | None = None


@dataclass(frozen=True)
class FallbackUsed(RunEvent):
    """OpenClaw's fallback chain moved on (without oversized messages, then "Summary unavailable")."""

    kind: ClassVar[str] = "fallback_used"
    stage: StageName
    fallback: FallbackKind
    reason: str
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class BreakerChanged(RunEvent):
    """A circuit changed state (`closed` / `open` / `half_open`)."""

    kind: ClassVar[str] = "breaker_changed"
    session: str
    provider: str
    old: str
    new: str
    failures: int
    retry_at_ms: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class Committed(RunEvent):
    """The compaction was written (`result` is `writer.CommitResult.to_json()`)."""

    kind: ClassVar[str] = "committed"
    path: str
    entry_id: str
    mode: str
    tokens_before: int | float
    summary_chars: int
    result: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NothingWritten(RunEvent):
    """The run ended without changing the file (dry run, cancelled, fallback declined, nothing to compact)."""

    kind: ClassVar[str] = "nothing_written"
    reason: str
    summary_chars: int = 0


@dataclass(frozen=True)
class Failed(RunEvent):
    """The run failed; nothing was written. `error` is scrubbed of keys (a `ProviderError.to_json()` when one)."""

    kind: ClassVar[str] = "failed"
    stage: str
    message: str
    error: dict[str, Any] = field(default_factory=dict)


EVENT_TYPES: tuple[type[RunEvent], ...] = (
    StageStarted,
    StageProgress,
    TextStreamed,
    StageFinished,
    RetryScheduled,
    FallbackUsed,
    BreakerChanged,
    Committed,
    NothingWritten,
    Failed,
)
