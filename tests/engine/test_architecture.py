"""The engine must stay free of Textual and of the UI package (import-linter contract in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_import_linter_contract_holds():
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 broken" in result.stdout


def test_engine_does_not_import_textual_at_runtime():
    code = "import sys, inspector.session.session, inspector.figures.session_figures, inspector.cli; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_the_engine_reads_the_time_only_through_inspector_clock():
    """One clock: engine code takes a `Clock` (or an epoch-ms `now` made from one with `now_ms`)."""
    import re

    pattern = re.compile(r"datetime\.now\(|datetime\.utcnow\(|date\.today\(|time\.time\(|time\.time_ns\(")
    pending: set[str] = set()
    offenders = []
    for path in sorted((ROOT / "inspector").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "inspector/base/clock.py" or rel in pending:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith("#"):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []
