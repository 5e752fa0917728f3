// Differential oracle for OpenClaw 2026.9.6's context-overflow classification of error texts: the agent core's
// `isContextOverflow` (an error assistant carrying the text) and `matchesContextOverflowMessage` per scope (from the
// bundled `@openclaw/ai`), and the failover classifier's `isLikelyContextOverflowError`, `isContextOverflowError`,
// `isContextOverflowErrorFromTables`, `looksLikeProviderContextOverflowCandidate`, `isRateLimitErrorMessage`,
// `isBillingErrorMessage`, `isProviderRequestSizeCeilingError`. Reads a JSON list of texts on stdin.
// Usage: node oc_2026_9_overflow.mjs DIST_DIR < texts.json
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lookup } from "./oc_2026_9_call.mjs";

const texts = JSON.parse(readFileSync(0, "utf8"));
const dist = process.argv[2];
const ai = await import(pathToFileURL(join(dist, "..", "..", "@openclaw", "ai", "dist", "internal", "runtime.mjs")).href);
const fns = {};
for (const [module, names] of Object.entries({
  classify: ["isLikelyContextOverflowError", "isContextOverflowError"],
  "classify-core": ["isContextOverflowErrorFromTables", "looksLikeProviderContextOverflowCandidate"],
  "message-patterns": ["isRateLimitErrorMessage", "isBillingErrorMessage", "isProviderRequestSizeCeilingError"],
})) for (const name of names) fns[name] = await lookup(module, name);
const scopes = ["assistant-error", "failover-explicit", "provider-fallback", "failover-hint", "context-window-too-small", "tpm-rate-limit-hint", "rate-limit-hint"];
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const out = texts.map((t) => ({
  agent: ai.isContextOverflow({ role: "assistant", stopReason: "error", errorMessage: t, usage, content: [] }, 200000),
  scopes: scopes.map((s) => ai.matchesContextOverflowMessage(t, s)),
  ...Object.fromEntries(Object.entries(fns).map(([name, f]) => [name, Boolean(f(t))])),
}));
process.stdout.write(JSON.stringify(out), () => process.exit(0));
