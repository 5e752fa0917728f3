"""Generate `inspector/rules/openclaw_2026_9_6/model_catalog.json` from the installed OpenClaw 2026.9.6.

OpenClaw 2026.9.6 has no generated model table like pi-ai's: each bundled plugin's manifest
(`dist/extensions/<plugin>/openclaw.plugin.json`) declares `modelCatalog.providers.<provider>.models[]` (id,
`contextWindow`, optional `contextTokens`, `contextWindows` + `contextWindowDefault`, `maxTokens`, `cost` in USD per
million tokens, `status`) and `modelIdNormalization.providers` (the id aliases and prefixes the gateway applies when
it matches configured model rows). This script reads them (plain JSON: no node needed) and writes one row per model,
sorted by provider then id, with the plugins' normalization policies. Run it after installing the oracle
(`make oracle`):

    PYTHONPATH=. python tests/oracle/gen_model_catalog_2026_9.py [PACKAGE_DIR]

`build_catalog(package)` is the table without its extraction date; the test
`tests/engine/test_window_2026_9.py` checks that the committed file equals it.
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "inspector" / "rules" / "openclaw_2026_9_6" / "model_catalog.json"
DEFAULT_PACKAGE = Path.home() / ".cache" / "session-inspector" / "openclaw-2026.9" / "node_modules" / "openclaw"
COLUMNS = ["provider", "model", "contextWindow", "maxTokens", "input", "output", "cacheRead", "cacheWrite",
           "contextTokens", "defaultContextWindow", "status"]
PRICES = ("input", "output", "cacheRead", "cacheWrite")


def _default_window(model: dict[str, Any]) -> int | None:
    """The window of the `contextWindows` option `contextWindowDefault` names (`resolveModelContextWindowProfile`
    with no session choice), None when the model has none."""
    default = model.get("contextWindowDefault")
    for option in model.get("contextWindows") or []:
        if default and option.get("id") == default:
            return int(option["contextWindow"])
    return None


def _row(provider: str, model: dict[str, Any]) -> list[Any]:
    cost = model.get("cost") or {}
    return [
        provider,
        model["id"],
        model["contextWindow"],
        model["maxTokens"],
        *(cost.get(k, 0) for k in PRICES),
        model.get("contextTokens"),
        _default_window(model),
        model.get("status"),
    ]


def build_catalog(package: Path) -> dict[str, Any]:
    """The catalog file's content for the OpenClaw package at `package`, without `extracted`."""
    build = json.loads((package / "dist" / "build-info.json").read_text(encoding="utf-8"))
    rows: list[list[Any]] = []
    policies: dict[str, Any] = {}
    for manifest in sorted((package / "dist" / "extensions").glob("*/openclaw.plugin.json")):
        data = json.loads(manifest.read_text(encoding="utf-8"))
        for provider, entry in ((data.get("modelCatalog") or {}).get("providers") or {}).items():
            rows.extend(_row(provider, model) for model in entry.get("models") or [])
        policies.update((data.get("modelIdNormalization") or {}).get("providers") or {})
    rows.sort(key=lambda r: (r[0], r[1]))
    keys = [(r[0], r[1]) for r in rows]
    assert len(set(keys)) == len(keys), "a provider/model pair declared twice"
    return {
        "source": f"OpenClaw {build['version']}: modelCatalog.providers of its bundled plugins' manifests "
                  "(dist/extensions/*/openclaw.plugin.json); each model's cost field",
        "source_published": build["builtAt"][:10],
        "units": "USD per 1,000,000 tokens",
        "columns": COLUMNS,
        "refresh": "PYTHONPATH=. python tests/oracle/gen_model_catalog_2026_9.py (reads the installed openclaw package)",
        "model_id_normalization": dict(sorted(policies.items())),
        "models": rows,
    }


def render(catalog: dict[str, Any], extracted: str) -> str:
    """The file's text: `catalog` with its extraction date, one model per line."""
    head = {k: v for k, v in catalog.items() if k != "models"}
    head = {**dict(list(head.items())[:2]), "extracted": extracted, **dict(list(head.items())[2:])}
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    models = ",\n".join(f"    {json.dumps(r, ensure_ascii=False)}" for r in catalog["models"])
    return "{\n" + "\n".join(lines) + '\n  "models": [\n' + models + "\n  ]\n}\n"


def main(argv: list[str]) -> None:
    package = Path(argv[1]) if len(argv) > 1 else DEFAULT_PACKAGE
    TARGET.write_text(render(build_catalog(package), datetime.date.today().isoformat()), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main(sys.argv)
