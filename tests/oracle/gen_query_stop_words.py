"""Generate `inspector/rules/openclaw_2026_4_12/compaction/stop_words.py` from the installed OpenClaw 2026.9.6.

OpenClaw's quality guard checks that a summary reflects the latest user ask by the ask's keywords
(`extractKeywords` of `packages/memory-host-sdk/src/host/query-expansion.ts`), which drops the stop words of seven
languages and strips Korean trailing particles. This script reads those lists from the compiled
`dist/query-expansion-*.mjs` (plain array literals: no node needed) and writes them as Python tuples, in the dist's
order. Run it after installing the oracle (`make oracle`):

    PYTHONPATH=. python tests/oracle/gen_query_stop_words.py [PACKAGE_DIR]

`stop_words_module(package)` is the module's text; `tests/engine/test_summary_quality.py` checks that the
committed file equals it (when the oracle is installed).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "inspector" / "rules" / "openclaw_2026_4_12" / "compaction" / "stop_words.py"
DEFAULT_PACKAGE = Path.home() / ".cache" / "session-inspector" / "openclaw-2026.9" / "node_modules" / "openclaw"
NAMES = ("STOP_WORDS_EN", "STOP_WORDS_ES", "STOP_WORDS_PT", "STOP_WORDS_AR", "STOP_WORDS_KO", "STOP_WORDS_JA", "STOP_WORDS_ZH",
         "KO_TRAILING_PARTICLES")
HEADER = '''"""The stop words and Korean particles of OpenClaw's `extractKeywords` (`query-expansion.ts`), generated.

Written by `tests/oracle/gen_query_stop_words.py` from OpenClaw 2026.9.6's `dist/query-expansion-*.mjs`; do not edit.
"""

# fmt: off
'''


def stop_words_module(package: Path) -> str:
    """The generated module's text."""
    source = next((package / "dist").glob("query-expansion-*.mjs")).read_text(encoding="utf-8")
    lists: dict[str, list[str]] = {}
    for m in re.finditer(r"const ([A-Z_]+) = (?:/\* @__PURE__ \*/ new Set\()?\[(.*?)\]", source, re.S):
        if m.group(1) in NAMES:
            lists[m.group(1)] = json.loads("[" + m.group(2).strip().rstrip(",") + "]")
    missing = [n for n in NAMES if n not in lists]
    if missing:
        raise SystemExit(f"not found in the dist: {', '.join(missing)}")
    out = [HEADER]
    for name in NAMES:
        words = lists[name]
        out.append(f"{name}: tuple[str, ...] = (\n")
        for i in range(0, len(words), 12):
            out.append("    " + " ".join(json.dumps(w, ensure_ascii=False) + "," for w in words[i:i + 12]) + "\n")
        out.append(")\n")
    return "".join(out)


if __name__ == "__main__":
    pkg = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PACKAGE
    TARGET.write_text(stop_words_module(pkg), encoding="utf-8")
    print(f"wrote {TARGET}")
