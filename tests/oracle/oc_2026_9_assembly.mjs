// Differential oracle for OpenClaw 2026.9.6's summary assembly. Reads cases on stdin, prints one result per case.
// The safeguard's helpers come from its test API (`openclaw.compactionSafeguardTestApi`, published when VITEST is
// set); `assembleSuffix` is not in it and is copied below verbatim from compaction-safeguard.ts. The agent core's
// `compact` and `prepareCompaction` run for real with a fake completion function.
// Cases: {"kind": "safeguard", "history", "prefix" | null, "preserved": [msgs], "failures": [msgs], "read", "modified"}
//        {"kind": "cap", "summary", "max", "suffix"}, {"kind": "files", "read", "modified"},
//        {"kind": "core", "history", "prefix" | null, "read", "modified", "request" | null, "thinkingLevel", "reasoning"}
//        {"kind": "request", "entries": [...]}. Usage: node oc_2026_9_assembly.mjs DIST_DIR < cases.json
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8")); // before the bundle is loaded (it makes stdin non-blocking)
process.env.VITEST = "1";
const dist = process.argv[2];
const builtin = readdirSync(dist).find((f) => /^builtin-openclaw-[A-Za-z0-9_-]{8}\.mjs$/.test(f));
await import(pathToFileURL(join(dist, builtin)).href);
const T = globalThis[Symbol.for("openclaw.compactionSafeguardTestApi")];
const capCore = await lookup("compaction", "capCompactionSummary");
const fit = await lookup("compaction", "fitCompactionSummary");
const fileOpsCore = await lookup("compaction", "formatFileOperations");
const compact = await lookup("compaction", "compact");
const prepareCompaction = await lookup("compaction", "prepareCompaction");

// compaction-safeguard.ts assembleSuffix (not exported), verbatim
function assembleSuffix(parts) {
  let text = "";
  const contextRanges = [];
  for (const part of Object.values(parts)) {
    const section = typeof part === "string" ? part : part?.text;
    if (!section) continue;
    const leadingTrim = text ? 0 : section.length - section.trimStart().length;
    const appended = leadingTrim > 0 ? section.slice(leadingTrim) : section;
    const start = text.length;
    text = T.appendSummarySection(text, section);
    if (typeof part !== "string") contextRanges.push({
      start, end: start + appended.length,
      segmentStarts: part.segmentStarts.filter((s) => s >= leadingTrim).map((s) => start + s - leadingTrim),
    });
  }
  if (text && !/^\s/.test(text)) {
    text = `\n\n${text}`;
    for (const range of contextRanges) {
      range.start += 2; range.end += 2; range.segmentStarts = range.segmentStarts.map((s) => s + 2);
    }
  }
  return { text, contextRanges };
}

// the safeguard's quality-guard-off finalization (compactionSafeguardExtension, no quality retention)
function safeguard(c) {
  const heading = "**Turn Context (split turn):**\n\n";
  const split = c.prefix === null ? "" :
    `${heading}${T.capCompactionSummary(c.prefix.replace(/^##(?=[ \t]+\S)/gmu, "###"), T.MAX_SPLIT_TURN_CONTEXT_CHARS - heading.length)}`;
  const body = T.appendSummarySection(c.history, split ? `\n\n${split}` : "");
  const preserved = T.buildPreservedTurnsSection(c.preserved);
  const suffix = assembleSuffix({
    splitTurnSection: undefined, generatedSplitTurnSection: undefined, preservedTurnsSection: preserved,
    toolFailureSection: T.formatToolFailuresSection(T.collectToolFailures(c.failures)),
    fileOpsSummary: T.formatFileOperations(c.read, c.modified), workspaceContext: "",
  });
  const fitted = fit(undefined, (maxChars) => T.budgetCompactionSummary(body, suffix, maxChars));
  return { summary: capCore(fitted.value.summary), preserved: preserved.text, suffix: suffix.text };
}

async function core(c) {
  const calls = [];
  const texts = [c.history, c.prefix];
  const runtime = {
    completeSimple: async (model, context, options) => {
      calls.push({ reasoning: options.reasoning ?? null, maxTokens: options.maxTokens });
      return { role: "assistant", content: [{ type: "text", text: texts[calls.length - 1] }], stopReason: "stop", usage: {} };
    },
  };
  const preparation = {
    firstKeptEntryId: "k", messagesToSummarize: [{ role: "user", content: "hi", timestamp: 1 }],
    turnPrefixMessages: c.prefix === null ? [] : [{ role: "user", content: "prefix", timestamp: 2 }],
    isSplitTurn: c.prefix !== null, tokensBefore: 1000, previousSummary: undefined,
    fileOps: { read: new Set(c.read), written: new Set(), edited: new Set(c.modified) },
    settings: { reserveTokens: 16384 },
    ...(c.request ? { latestUnresolvedUserRequest: c.request } : {}),
  };
  const model = { api: "openai-completions", provider: "x", id: "m", reasoning: c.reasoning, maxTokens: 0 };
  const res = await compact(preparation, model, "", {}, undefined, new AbortController().signal, c.thinkingLevel, undefined, runtime);
  if (!res.ok) return { error: res.error.message };
  return { summary: res.value.summary, details: res.value.details, calls };
}

const out = [];
for (const c of cases) {
  if (c.kind === "safeguard") out.push(safeguard(c));
  else if (c.kind === "cap") out.push(capCore(c.summary, c.max, c.suffix));
  else if (c.kind === "files") out.push(fileOpsCore(c.read, c.modified));
  else if (c.kind === "core") out.push(await core(c));
  else if (c.kind === "request") {
    const res = prepareCompaction(c.entries, { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 }, "unresolved");
    out.push(res.ok && res.value ? res.value.latestUnresolvedUserRequest ?? null : { none: true });
  }
}
// the bundle leaves handles open: exit once the output is flushed
process.stdout.write(JSON.stringify(out), () => process.exit(0));
