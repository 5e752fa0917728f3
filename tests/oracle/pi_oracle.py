"""Run pi 0.66.1's own compaction functions (the npm package, with node) and compare them with our plan.

The package is looked up in `$PI_ORACLE_DIR` (default `~/.cache/session-inspector/pi-oracle`, where
`make oracle` installs it); tests using the `pi_oracle` fixture skip with the reason when node or the
package is missing. Every file handed to pi is a temporary copy: `SessionManager.open` migrates old files in
place and rewrites files it cannot read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from inspector.figures.forecast.plan import CompactionPlan
from inspector.rules.openclaw_2026_4_12.compaction.triggers import should_compact
from inspector.rules.openclaw_2026_4_12.tokens.context_usage import last_context_usage
from inspector.session.session import Session

PI_VERSION = "0.66.1"
SCRIPT = Path(__file__).with_name("pi_prepare.mjs")
DEFAULT_DIR = Path.home() / ".cache" / "session-inspector" / "pi-oracle"


def oracle_dist() -> tuple[Path | None, str]:
    """`(dist directory, "")` of the installed pi-coding-agent, or `(None, why not)`."""
    if shutil.which("node") is None:
        return None, "node is not installed"
    base = Path(os.environ.get("PI_ORACLE_DIR") or DEFAULT_DIR).expanduser()
    pkg = base / "node_modules" / "@mariozechner" / "pi-coding-agent"
    try:
        version = json.loads((pkg / "package.json").read_text()).get("version")
    except (OSError, ValueError):
        return None, f"@mariozechner/pi-coding-agent is not installed in {base} (run `make oracle`)"
    if version != PI_VERSION:
        return None, f"{pkg} is version {version}, the oracle needs {PI_VERSION}"
    return pkg / "dist", ""


@dataclass
class PiOracle:
    """Runs `pi_prepare.mjs` on copies of session files, many per node process."""

    dist: Path
    workdir: Path

    def run(self, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`jobs`: `{"file", "keepRecentTokens", "reserveTokens", "contextWindow"}`; each file is copied first."""
        copies = []
        for n, job in enumerate(jobs):
            copy = self.workdir / f"job-{len(list(self.workdir.iterdir()))}-{n}.jsonl"
            shutil.copyfile(job["file"], copy)
            copies.append({**job, "file": str(copy)})
        proc = subprocess.run(
            ["node", str(SCRIPT), str(self.dist)], input=json.dumps(copies), capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr
        results = json.loads(proc.stdout)
        for res in results:
            assert "error" not in res, res.get("error")
        return results


@pytest.fixture(scope="session")
def pi_oracle(tmp_path_factory: pytest.TempPathFactory) -> PiOracle:
    """The pi oracle, or a skip naming what is missing."""
    dist, why = oracle_dist()
    if dist is None:
        pytest.skip(f"pi oracle unavailable: {why}")
    return PiOracle(dist, tmp_path_factory.mktemp("pi-oracle"))


def _snake(est: dict[str, Any]) -> dict[str, Any]:
    """pi's `estimateContextTokens` result under our JSON names."""
    return {
        "tokens": est["tokens"],
        "usage_tokens": est["usageTokens"],
        "trailing_tokens": est["trailingTokens"],
        "last_usage_index": est["lastUsageIndex"],
    }


def _index_of(session: Session, entry_id: str | None) -> int | None:
    e = session.entry_by_id(entry_id) if entry_id is not None else None
    return None if e is None else e.index


def compare(session: Session, plan: CompactionPlan, res: dict[str, Any]) -> list[str]:
    """Every difference between our plan and pi's own results (empty: they agree field by field)."""
    out: list[str] = []

    def check(name: str, ours: Any, theirs: Any) -> None:
        if ours != theirs:
            out.append(f"{name}: ours {ours!r} != pi {theirs!r}")

    entries = session.entries
    check("entry count", len(entries), len(res["entries"]))
    if len(entries) != len(res["entries"]):
        return out
    if session.version >= 3:
        check("entry ids", [e.id for e in entries], [e["id"] for e in res["entries"]])
    ctx = session.context(plan.leaf_id)
    check("path", list(ctx.path), res["path"])
    pi_tokens = [entries[i].estimate("pi") if entries[i].type == "message" else None for i in ctx.path]
    check("estimateTokens per path message", pi_tokens, res["pathTokens"])
    check("context messages", len(ctx.messages), res["contextMessages"])
    check("estimateContextTokens", last_context_usage(session, ctx), _snake(res["estimateContextTokens"]))
    # the context now: pi's getContextUsage; where it says unknown (no usage since the latest compaction), the estimate
    now = res["contextUsage"]
    check("getContextUsage", plan.context_tokens, now["estimate"] if now["tokens"] is None else now["tokens"])
    check("context basis is estimate where pi's getContextUsage is unknown", plan.context_basis == "estimate" or now["tokens"] is not None, True)
    prep = res["prepared"]
    if prep is None:
        check("nothing to plan", plan.nothing_to_plan is not None, True)
        return out
    if plan.nothing_to_plan is not None:
        out.append(f"we found nothing to plan ({plan.nothing_to_plan.reason}) but pi prepared a compaction")
        return out
    check("first kept entry", _index_of(session, plan.first_kept_entry_id), prep["firstKeptEntryIndex"])
    check("cutPoint.firstKeptEntryIndex", _index_of(session, plan.first_kept_entry_id), res["cutPoint"]["firstKeptEntryIndex"])
    check("isSplitTurn", plan.is_split_turn, prep["isSplitTurn"])
    check("tokensBefore", plan.tokens_before, prep["tokensBefore"])
    check("previousSummary", plan.previous_summary, prep["previousSummary"])
    check("boundary start", _index_of(session, (plan.boundary_start or {}).get("entry_id")), res["boundaryStart"])
    check("messagesToSummarize", [_index_of(session, r.entry_id) for r in plan.messages_to_summarize], prep["messagesToSummarize"])
    check("turnPrefixMessages", [_index_of(session, r.entry_id) for r in plan.turn_prefix_messages], prep["turnPrefixMessages"])
    check("estimateTokens of messagesToSummarize", [r.tokens for r in plan.messages_to_summarize], prep["summarizeTokens"])
    check("readFiles", plan.read_files, prep["readFiles"])
    check("modifiedFiles", plan.modified_files, prep["modifiedFiles"])
    th = plan.triggers.threshold
    if res["lastUsageTokens"] is not None and th.source == "usage":
        check("calculateContextTokens(last usage)", th.context_tokens, res["lastUsageTokens"])
        check("shouldCompact", th.would_compact, res["shouldCompact"])
    check("shouldCompact(tokensBefore)", should_compact(plan.tokens_before or 0, plan.context_window["tokens"], plan.settings.reserve_tokens), res["shouldCompactTokensBefore"])
    return out
