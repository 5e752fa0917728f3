"""Differential tests: our compaction forecast against pi 0.66.1's own functions (node + the npm package).

pi's `prepareCompaction`, `findCutPoint`, `estimateTokens`, `buildSessionContext`/`estimateContextTokens`
and `shouldCompact` run on copies of: the demo session, the pi corpus files, hand-built fixtures and
hypothesis-generated sessions, at several `keepRecentTokens`. Every field must agree (`oracle.pi_oracle.compare`).
Skips with the reason when node or the package is absent.
"""

from __future__ import annotations

from pathlib import Path

from conftest import (
    CORPUS,
    ROOT,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle.cases import write_all
from oracle.pi_oracle import compare, pi_oracle  # noqa: F401  (pi_oracle is a fixture)
from oracle.sessions import build_session, session_ops

from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.session.session import open_session

KEEPS = (20000, 4000, 700, 50, 1)
WINDOW = 200_000
RESERVE = 20_000


def _jobs(files: list[Path], keeps=KEEPS) -> list[dict]:
    return [{"file": str(f), "keepRecentTokens": k, "reserveTokens": RESERVE, "contextWindow": WINDOW} for f in files for k in keeps]


def _check_all(pi_oracle, files: list[Path], keeps=KEEPS) -> None:  # noqa: F811
    jobs = _jobs(files, keeps)
    results = pi_oracle.run(jobs)
    failures = []
    for job, res in zip(jobs, results):
        session = open_session(job["file"])
        plan = plan_compaction(
            session,
            session.context(),
            PlanOptions(config={}, context_window=WINDOW, keep_recent_tokens=job["keepRecentTokens"], reserve_tokens=RESERVE),
        )
        diffs = compare(session, plan, res)
        if diffs:
            failures.append(f"{job['file']} keep={job['keepRecentTokens']}: " + "; ".join(diffs[:4]))
    assert not failures, "\n".join(failures[:10])


def test_demo_and_pi_corpus_agree_with_pi(pi_oracle):  # noqa: F811
    files = [ROOT / "inspector" / "data" / "demo-session.jsonl"]
    files += sorted((CORPUS / "pi").glob("*.jsonl")) if (CORPUS / "pi").is_dir() else []
    before = {f: f.read_bytes() for f in files}
    _check_all(pi_oracle, files)
    assert {f: f.read_bytes() for f in files} == before  # pi only ever saw copies


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_generated_sessions_agree_with_pi(pi_oracle, tmp_path_factory, data):  # noqa: F811
    """Twenty generated sessions per example, all sent to one node process."""
    out = tmp_path_factory.mktemp("generated")
    files = []
    for n in range(20):
        ops = data.draw(session_ops(), label=f"session {n}")
        files.append(build_session(ops, out / f"s{n}.jsonl", seed=n))
    _check_all(pi_oracle, files, keeps=(3000, 300, 1))


def test_fixtures_and_extreme_keeps_agree_with_pi(pi_oracle, tmp_path):  # noqa: F811
    """Every fixture session of the compaction tests, at the keeps they use and at the extremes."""
    _check_all(pi_oracle, write_all(tmp_path), keeps=(1, 100, 150, 200, 2100, 10_100, 20_000, 10**9))
