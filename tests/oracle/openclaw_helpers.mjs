// OpenClaw's own compaction helpers, lifted out of its compiled bundle, as a test oracle.
//
// Usage: node openclaw_helpers.mjs OPENCLAW_DIST_DIR PI_CODING_AGENT_DIST_DIR < cases.json > results.json
// OpenClaw's dist cannot be imported without its npm dependencies, so the few pure functions the forecast
// ports are copied out of the bundle by name (a top-level `function NAME(` ... up to the next line that is
// exactly `}`; top-level `const NAME = ...;` lines) and evaluated together with pi's `estimateTokens`.
// cases.json: [{"fn": "split"|"chunk"|"ratio"|"oversized"|"prune"|"preserve"|"repair"|"potential"|"real",
//               "messages": [...], ...args}]
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { extract } from "./bundle_extract.mjs";

const [ocDist, piDist] = process.argv.slice(2);
const { estimateTokens } = await import(pathToFileURL(join(piDist, "core/compaction/compaction.js")).href);
const bundle = (prefix) => {
  const name = readdirSync(ocDist).find((f) => f.startsWith(prefix) && f.endsWith(".js"));
  return readFileSync(join(ocDist, name), "utf8").split("\n");
};
const mct = bundle("model-context-tokens-");
const repair = bundle("session-transcript-repair-");
const helpers = bundle("pi-embedded-helpers-");
const coerce = bundle("string-coerce-");
const source = [
  extract(coerce, ["normalizeNullableString", "normalizeOptionalString", "normalizeOptionalLowercaseString", "normalizeLowercaseStringOrEmpty"]),
  extract(helpers, ["TOOL_CALL_TYPES", "extractToolCallsFromAssistant", "extractToolResultId"]),
  extract(repair, ["makeMissingToolResult", "normalizeToolResultName", "stripToolResultDetails", "shouldDropErroredAssistantResults", "repairToolUseResultPairing"]),
  extract(mct, [
    "BASE_CHUNK_RATIO", "MIN_CHUNK_RATIO", "SAFETY_MARGIN", "DEFAULT_PARTS", "SUMMARIZATION_OVERHEAD_TOKENS",
    "estimateMessagesTokens", "estimateCompactionMessageTokens", "normalizeParts", "splitMessagesByTokenShare",
    "chunkMessagesByMaxTokens", "computeAdaptiveChunkRatio", "isOversizedForSummary", "pruneHistoryForContextShare",
    "MAX_RECENT_TURNS_PRESERVE", "clampNonNegativeInt", "splitPreservedRecentTurns",
    "MAX_TOOL_RESULT_CONTEXT_SHARE", "DEFAULT_MAX_LIVE_TOOL_RESULT_CHARS", "MIN_KEEP_CHARS", "RECOVERY_MIN_KEEP_CHARS",
    "CONTEXT_LIMIT_TRUNCATION_NOTICE", "formatContextLimitTruncationNotice", "DEFAULT_SUFFIX",
    "RECOVERY_MIN_TRUNCATED_TEXT_CHARS", "resolveSuffixFactory", "MIDDLE_OMISSION_MARKER", "hasImportantTail",
    "truncateToolResultText", "calculateMaxToolResultChars", "getToolResultTextLength", "truncateToolResultMessage",
    "calculateRecoveryAggregateToolResultChars", "buildAggregateToolResultReplacements",
    "buildOversizedToolResultReplacements", "calculateReplacementReduction", "applyToolResultReplacementsToBranch",
    "buildToolResultReplacementPlan", "estimateToolResultReductionPotential",
  ]),
].join("\n");
const api = new Function("estimateTokens", `${source}
return { splitMessagesByTokenShare, chunkMessagesByMaxTokens, computeAdaptiveChunkRatio, isOversizedForSummary,
  pruneHistoryForContextShare, splitPreservedRecentTurns, repairToolUseResultPairing, estimateToolResultReductionPotential };`)(estimateTokens);

// Messages are tagged with "_pos" (their index in the input); synthetic ones come back with null.
const tag = (list) => list.map((m) => (m && m._pos !== undefined ? m._pos : null));
const run = {
  split: (c) => api.splitMessagesByTokenShare(c.messages, c.parts).map(tag),
  chunk: (c) => api.chunkMessagesByMaxTokens(c.messages, c.maxTokens).map(tag),
  ratio: (c) => api.computeAdaptiveChunkRatio(c.messages, c.contextWindow),
  oversized: (c) => c.messages.map((m) => api.isOversizedForSummary(m, c.contextWindow)),
  prune: (c) => {
    const r = api.pruneHistoryForContextShare({ messages: c.messages, maxContextTokens: c.contextWindow, maxHistoryShare: c.share, parts: 2 });
    return { kept: tag(r.messages), dropped: tag(r.droppedMessagesList), droppedChunks: r.droppedChunks,
      droppedMessages: r.droppedMessages, droppedTokens: r.droppedTokens, keptTokens: r.keptTokens, budgetTokens: r.budgetTokens };
  },
  preserve: (c) => {
    const r = api.splitPreservedRecentTurns({ messages: c.messages, recentTurnsPreserve: c.turns });
    return { summarizable: tag(r.summarizableMessages), preserved: tag(r.preservedMessages) };
  },
  repair: (c) => {
    const r = api.repairToolUseResultPairing(c.messages);
    return { messages: tag(r.messages), dropped: [r.droppedDuplicateCount, r.droppedOrphanCount], added: r.added.length, moved: r.moved };
  },
  potential: (c) => api.estimateToolResultReductionPotential({ messages: c.messages, contextWindowTokens: c.contextWindow }),
};
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => {
  try {
    return run[c.fn](c);
  } catch (err) {
    return { error: String(err && err.stack ? err.stack : err) };
  }
})));
