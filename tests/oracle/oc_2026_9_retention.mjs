// Differential oracle for OpenClaw 2026.9.6's quality retention plan (`createSummaryQualityRetentionPlan`), run
// through the safeguard's own `budgetCompactionSummary` (test API, published when VITEST is set).
// Cases: {"kind": "budget", "body", "suffix", "max", "quality": {...} | null}
//        {"kind": "finalize", "history", "split": generated split-turn section or "", "preserved": [msgs],
//         "failures": [msgs], "read", "modified", "tokenBudget" | null, "quality": {...} | null}
//        a "finalize" case with "facts": {"messages": the messages to summarize (recent turns included), "turnPrefix",
//         "isSplitTurn"} instead of "quality" takes the guard's parameters as the safeguard derives them (and
//         "failuresText", when given, is the tool failures section as is); its answer adds "messagesToSummarize",
//         how many messages the guard-on safeguard summarizes (all of them, or those before the recent turns)
//        {"kind": "overlap", "text", "ask"}: hasAskOverlap (compaction-safeguard-quality.ts, not exported: copied
//         below verbatim over the real extractKeywords / isQueryStopWordToken) for the Python side's ask_overlap.
// Usage: node oc_2026_9_retention.mjs DIST_DIR < cases.json
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { extract } from "./bundle_extract.mjs";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8")); // before the bundle is loaded (it makes stdin non-blocking)
process.env.VITEST = "1";
const dist = process.argv[2];
const builtin = readdirSync(dist).find((f) => /^builtin-openclaw-[A-Za-z0-9_-]{8}\.mjs$/.test(f));
await import(pathToFileURL(join(dist, builtin)).href);
const T = globalThis[Symbol.for("openclaw.compactionSafeguardTestApi")];
const fit = await lookup("compaction", "fitCompactionSummary");
const extractKeywords = await lookup("query-expansion", "extractKeywords");
const isQueryStopWordToken = await lookup("query-expansion", "isQueryStopWordToken");
const uniqueStrings = await lookup("string-normalization", "uniqueStrings");
const localeLowercasePreservingWhitespace = await lookup("string-coerce", "localeLowercasePreservingWhitespace");
const truncateUtf16Safe = await lookup("utf16-slice", "truncateUtf16Safe");
const sliceUtf16Safe = await lookup("utf16-slice", "sliceUtf16Safe");
// compaction-safeguard.ts's message helpers (not exported), lifted out of the bundle
const safeguardBundle = readdirSync(dist).map((f) => join(dist, f)).filter((f) => /builtin-openclaw-[A-Za-z0-9_-]{8}\.mjs$/.test(f))
  .map((f) => readFileSync(f, "utf8")).find((text) => text.includes("function formatRequiredAskContext("));
const L = new Function("truncateUtf16Safe", "sliceUtf16Safe", `${extract(safeguardBundle.split("\n"), [
  "MAX_REQUIRED_ASK_CONTEXT_CHARS", "REQUIRED_ASK_CONTEXT_TRUNCATED_MARKER", "extractMessageText", "formatRequiredAskContext",
  "extractLatestUserAsk",
])}\nreturn { extractMessageText, formatRequiredAskContext, extractLatestUserAsk };`)(truncateUtf16Safe, sliceUtf16Safe);

// compaction-safeguard-quality.ts, verbatim
const MAX_ASK_OVERLAP_TOKENS = 12;
const MIN_ASK_OVERLAP_TOKENS_FOR_DOUBLE_MATCH = 3;
function tokenizeAskOverlapText(text, includeFallbackTokens = false) {
  const normalized = localeLowercasePreservingWhitespace(text.normalize("NFKC")).trim();
  if (!normalized) return [];
  const keywords = extractKeywords(normalized);
  if (keywords.length > 0 && !includeFallbackTokens) return keywords;
  const tokens = normalized.split(/[^\p{L}\p{N}]+/u).map((token) => token.trim()).filter((token) => token.length > 0);
  return uniqueStrings([...keywords, ...tokens]);
}
function resolveAskOverlapRequirement(latestAsk) {
  if (!latestAsk) return null;
  const askTokens = uniqueStrings(tokenizeAskOverlapText(latestAsk)).slice(0, MAX_ASK_OVERLAP_TOKENS);
  if (askTokens.length === 0) return null;
  const meaningfulAskTokens = askTokens.filter((token) => token.length > 1 && !isQueryStopWordToken(token));
  const tokensToCheck = meaningfulAskTokens.length > 0 ? meaningfulAskTokens : askTokens;
  return { tokens: tokensToCheck, requiredMatches: tokensToCheck.length >= MIN_ASK_OVERLAP_TOKENS_FOR_DOUBLE_MATCH ? 2 : 1 };
}
function hasAskOverlap(summary, latestAsk) {
  const requirement = resolveAskOverlapRequirement(latestAsk);
  if (!requirement) return true;
  const summaryTokens = new Set(tokenizeAskOverlapText(summary, true));
  return requirement.tokens.filter((token) => summaryTokens.has(token)).length >= requirement.requiredMatches;
}

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

function quality(q) {
  return q === null ? undefined : { ...q, latestAsk: q.latestAsk ?? undefined, auditSummary: q.auditSummary ?? undefined,
    latestUnresolvedUserRequest: q.latestUnresolvedUserRequest ?? undefined };
}

// the guard-on safeguard's parameters from its messages (compaction-safeguard.ts, the summarization loop)
function guardFacts(c) {
  const { messages, turnPrefix, isSplitTurn } = c.facts;
  const splitUserAsk = isSplitTurn ? L.extractLatestUserAsk(turnPrefix) : null;
  const latestUserAsk = splitUserAsk ?? L.extractLatestUserAsk(messages);
  const identifiers = T.extractOpaqueIdentifiers([...messages, ...turnPrefix].slice(-10).map(L.extractMessageText).filter(Boolean).join("\n"));
  const { summarizableMessages, preservedMessages } = T.splitPreservedRecentTurns({ messages, recentTurnsPreserve: T.resolveRecentTurnsPreserve(undefined) });
  const latestPreparedAsk = L.extractLatestUserAsk(messages);
  const requiredAskContext = L.formatRequiredAskContext(latestUserAsk ?? "");
  const all = latestPreparedAsk === latestUserAsk && Boolean(latestPreparedAsk)
    && (summarizableMessages.length > 0 || !T.buildPreservedTurnsSection(preservedMessages).text.includes(requiredAskContext));
  return {
    messagesToSummarize: all ? messages.length : summarizableMessages.length,
    quality: {
      auditSummary: T.appendSummarySection(c.history, c.split ? `\n\n${c.split}` : ""), identifiers, latestAsk: latestUserAsk,
      latestAskInRetainedTurn: splitUserAsk !== null, latestUnresolvedUserRequest: undefined, requiredAskContext, identifierPolicy: "strict",
    },
  };
}

// the safeguard's finalizeSummaryText (guard on: the history is the body, the split-turn section in the suffix)
function finalize(c) {
  const facts = c.facts ? guardFacts(c) : null;
  const q = facts ? facts.quality : quality(c.quality);
  const body = q ? c.history : T.appendSummarySection(c.history, c.split ? `\n\n${c.split}` : "");
  const suffix = assembleSuffix({
    splitTurnSection: undefined, generatedSplitTurnSection: q && c.split ? `\n\n${c.split}` : undefined,
    preservedTurnsSection: T.buildPreservedTurnsSection(c.preserved),
    toolFailureSection: typeof c.failuresText === "string" ? c.failuresText : T.formatToolFailuresSection(T.collectToolFailures(c.failures)),
    fileOpsSummary: T.formatFileOperations(c.read, c.modified), workspaceContext: "",
  });
  const fitted = fit(c.tokenBudget ?? undefined, (maxChars) => T.budgetCompactionSummary(body, suffix, maxChars, q));
  if (!fitted.ok) return null;
  return facts ? { ...fitted.value, messagesToSummarize: facts.messagesToSummarize } : fitted.value;
}

const out = [];
for (const c of cases) {
  if (c.kind === "budget") out.push(T.budgetCompactionSummary(c.body, c.suffix, c.max, quality(c.quality)));
  else if (c.kind === "finalize") out.push(finalize(c));
  else if (c.kind === "overlap") out.push(hasAskOverlap(c.text, c.ask));
}
process.stdout.write(JSON.stringify(out), () => process.exit(0));
