// Differential oracle for OpenClaw 2026.9.6's summary quality guard: the safeguard's test API
// (`openclaw.compactionSafeguardTestApi`, published when VITEST is set) `extractOpaqueIdentifiers`,
// `auditSummaryQuality` and `resolveQualityGuardMaxRetries`. Cases on stdin: {"kind": "ids", "text"},
// {"kind": "audit", "params": {...}}, {"kind": "retries", "value"}. Usage: node oc_2026_9_quality.mjs DIST_DIR < cases.json
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const cases = JSON.parse(readFileSync(0, "utf8")); // before the bundle is loaded (it makes stdin non-blocking)
process.env.VITEST = "1";
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
const dist = process.argv[2];
const builtin = readdirSync(dist).find((f) => /^builtin-openclaw-[A-Za-z0-9_-]{8}\.mjs$/.test(f));
await import(pathToFileURL(join(dist, builtin)).href);
const T = globalThis[Symbol.for("openclaw.compactionSafeguardTestApi")];
const out = cases.map((c) => {
  if (c.kind === "ids") return T.extractOpaqueIdentifiers(c.text);
  if (c.kind === "retries") return T.resolveQualityGuardMaxRetries(c.value);
  const p = { ...c.params };
  for (const key of Object.keys(p)) if (p[key] === null) delete p[key];
  return T.auditSummaryQuality(p);
});
write(JSON.stringify(out), () => process.exit(0));
