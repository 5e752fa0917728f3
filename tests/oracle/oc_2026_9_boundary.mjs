// Differential oracle for OpenClaw 2026.9.6's "anything real to summarize?" decision: runs the real safeguard
// handler (`compactionSafeguardExtension`, reached through `buildEmbeddedExtensionFactories` with mode safeguard,
// the quality guard off, no preserved turns) on each case, with a fake session manager whose branch is the case's
// entries and a stub summarizer (`setSummarizeInStagesForTest`) that records what it is asked to summarize.
// Cases: {"branch": [entries], "summarize": [msgs], "prefix": [msgs], "firstKeptEntryId", "isSplitTurn"}.
// Prints per case {"boundary": bool, "summary"?, "summarized"?: [[role, text]...]}.
// Usage: node oc_2026_9_boundary.mjs DIST_DIR < cases.json
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8")); // before the bundle is loaded (it makes stdin non-blocking)
process.env.VITEST = "1";
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true; // the safeguard's log lines go to stdout: keep it for the result
const dist = process.argv[2];
const builtin = readdirSync(dist).find((f) => /^builtin-openclaw-[A-Za-z0-9_-]{8}\.mjs$/.test(f));
await import(pathToFileURL(join(dist, builtin)).href);
const T = globalThis[Symbol.for("openclaw.compactionSafeguardTestApi")];
const buildEmbeddedExtensionFactories = await lookup("builtin-openclaw", "buildEmbeddedExtensionFactories");

const key = (m) => [m.role, m.content ?? m.summary ?? `${m.command}\n${m.output}`];
const cfg = { agents: { defaults: { compaction: { mode: "safeguard", qualityGuard: { enabled: false }, recentTurnsPreserve: 0 } } } };
const model = { api: "openai-completions", provider: "x", id: "m", contextWindow: 200000, maxTokens: 8192, reasoning: false };
const out = [];
for (const c of cases) {
  const sessionManager = { getBranch: () => c.branch, getSessionId: () => "s" };
  const [factory] = buildEmbeddedExtensionFactories({ cfg, sessionManager, contextTokenBudget: 200000, model });
  let handler;
  factory({ on: (name, h) => { if (name === "session_before_compact") handler = h; } });
  const calls = [];
  T.setSummarizeInStagesForTest(async (params) => { calls.push(params.messages.map(key)); return "## Decisions\nok"; });
  const preparation = {
    firstKeptEntryId: c.firstKeptEntryId, messagesToSummarize: c.summarize, turnPrefixMessages: c.prefix,
    isSplitTurn: c.isSplitTurn, tokensBefore: undefined, previousSummary: undefined,
    fileOps: { read: new Set(), written: new Set(), edited: new Set() }, settings: { reserveTokens: 16384 },
  };
  const ctx = { sessionManager, model, modelRegistry: { getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", headers: {} }) } };
  const res = await handler({ preparation, customInstructions: undefined, signal: new AbortController().signal }, ctx);
  const boundary = Boolean(res?.compaction && !res.compaction.details);
  out.push(boundary ? { boundary, summary: res.compaction.summary } : { boundary, summarized: calls[0] ?? [], cancel: Boolean(res?.cancel) });
}
write(JSON.stringify(out), () => process.exit(0));
