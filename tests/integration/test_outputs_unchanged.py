"""Every headless command prints what it printed before the refactor: the digests of `tests/golden/outputs.json`.

One test per input (a corpus file, the demo, a fixture session, a directory layout) runs all of that input's
commands (`tests/golden/record_outputs.py` defines them, their environment and the normalization) and compares each
normalized output with its recorded digest, once per entry of `ARG_VARIANTS` (extra arguments appended to every
command line: all variants must give the recorded output). Corpus inputs skip when ../shared/corpus is absent.

A failure names the differing cases; the diff shown is against another variant's output when one matched, or against
`$GOLDEN_BASELINE_DIR/<case>.txt` when that is set to an earlier `record_outputs.py --dump DIR` of the old code.
Re-record (only when an output change is intended): `PYTHONPATH=. python tests/golden/record_outputs.py`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from conftest import ROOT

ARG_VARIANTS: list[list[str]] = [[], ["--rules", "openclaw-2026.4.12"]]
"""Extra arguments appended to every command line; each variant is checked against the same digests."""


def _load_recorder():
    spec = importlib.util.spec_from_file_location("golden_record_outputs", ROOT / "tests" / "golden" / "record_outputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


rec = _load_recorder()
GOLDEN = rec.load_golden()
INPUTS = {i.name: i for i in rec.inputs()}
RECORDED = list(dict.fromkeys(case.split("__", 1)[0] for case in GOLDEN))


def _is_corpus(name: str) -> bool:
    return name.startswith("corpus-") or name == "dir-corpus"


def _params() -> list:
    names = list(INPUTS) + [n for n in RECORDED if n not in INPUTS]
    return [pytest.param(n, id=n, marks=[pytest.mark.corpus] if _is_corpus(n) else []) for n in names]


@pytest.mark.parametrize("input_name", _params())
def test_outputs_unchanged(input_name: str) -> None:
    inp = INPUTS.get(input_name)
    if inp is None:
        if _is_corpus(input_name) and not rec.corpus_files():
            pytest.skip(f"corpus not available: {rec.CORPUS}")
        pytest.fail(f"{input_name} is recorded in {rec.GOLDEN.name} but no longer an input of record_outputs.py")
    baseline = os.environ.get("GOLDEN_BASELINE_DIR")
    failures: list[str] = []
    outputs: dict[tuple[str, ...], dict[str, object]] = {}
    for n, extra in enumerate(ARG_VARIANTS):
        outcome = rec.run_input(inp, extra, warm=n == 0)  # the warm-cache rerun once: the variants share its code path
        outputs[tuple(extra)] = outcome.results
        messages = rec.compare(inp, outcome, GOLDEN, Path(baseline) if baseline else None)
        failures.extend(f"[args {extra}] {m}" for m in messages)
    if failures:
        differing = sorted(
            {
                c.removeprefix(f"{input_name}__")
                for c in inp.case_names()
                for extra in outputs
                if c not in outputs[extra] or outputs[extra][c].record() != GOLDEN.get(c)
            }
        )
        hint = "" if baseline else "\n\n(for diffs: set GOLDEN_BASELINE_DIR to a `record_outputs.py --dump DIR` of the old code)"
        pytest.fail(
            f"{input_name}: differs from {rec.GOLDEN.name} in {', '.join(differing) or 'its runs'}:\n\n"
            + "\n".join(failures)
            + _variant_diffs(inp, outputs)
            + hint,
            pytrace=False,
        )


def _variant_diffs(inp, outputs: dict[tuple[str, ...], dict]) -> str:
    """Diffs between a variant whose output matches the recording and one whose output does not, per case."""
    parts = []
    for case in inp.case_names():
        good = [(k, r[case]) for k, r in outputs.items() if case in r and r[case].record() == GOLDEN.get(case)]
        bad = [(k, r[case]) for k, r in outputs.items() if case in r and r[case].record() != GOLDEN.get(case)]
        if good and bad:
            (gk, g), (bk, b) = good[0], bad[0]
            parts.append(f"{case}:\n" + rec.diff_text(g, b, f"args {list(gk)}", f"args {list(bk)}"))
    return ("\n\nDiffs between variants:\n" + "\n\n".join(parts)) if parts else ""
