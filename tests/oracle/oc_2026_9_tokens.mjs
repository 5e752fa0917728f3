// OpenClaw 2026.9.6's estimators, run on a test's messages: the agent core's estimateTokens, compaction planning's
// estimateMessagesTokens, the tool-result context guard's estimateMessageChars, cache-TTL pruning's
// cacheTtlMessageChars (with and without dropThinkingBlocks), estimateStringChars(+raw weight 2),
// calculateContextTokens and estimateContextTokens.
//
// Usage: node oc_2026_9_tokens.mjs DIST_DIR < {"messages": [...], "strings": [...], "usages": [...],
//                                               "contexts": [[...], ...]}
// Prints {"messages": [{"pi", "compaction", "guard", "prune", "prune_dropped"}], "strings": [[w1, w2]],
// "usages": [n], "contexts": [{...}]}; a value whose function threw is {"error": message}.
// cacheTtlMessageChars is not exported: its source (and cacheTtlText's) is lifted from the bundle with
// bundle_extract.mjs and evaluated beside the exported helpers it calls.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { extract } from "./bundle_extract.mjs";
import { lookup } from "./oc_2026_9_call.mjs";

const dist = process.argv[2];
const payload = JSON.parse(readFileSync(0, "utf8"));

const estimateTokens = await lookup("compaction", "estimateTokens");
const calculateContextTokens = await lookup("compaction", "calculateContextTokens");
const estimateContextTokens = await lookup("compaction", "estimateContextTokens");
const estimateMessagesTokens = await lookup("compaction-planning", "estimateMessagesTokens");
const estimateMessageCharsCached = await lookup("builtin-openclaw", "estimateMessageCharsCached");
const estimateStringChars = await lookup("cjk-chars", "estimateStringChars");
const withRawWeight = await lookup("cjk-chars", "estimateStringCharsWithMinimumRawWeight");
const isRecord = await lookup("record-coerce", "isRecord");
const dropThinkingBlocks = await lookup("tool-result-truncation", "dropThinkingBlocks");

const truncation = readdirSync(dist).find((f) => /^tool-result-truncation-.{8}\.mjs$/.test(f) && readFileSync(join(dist, f), "utf8").includes("function cacheTtlMessageChars("));
const lines = readFileSync(join(dist, truncation), "utf8").split("\n");
const lifted = extract(lines, ["CACHE_TTL_IMAGE_CHARS", "cacheTtlText", "cacheTtlMessageChars"]);
const cacheTtlMessageChars = new Function("isRecord", "estimateStringChars", `${lifted}\nreturn cacheTtlMessageChars;`)(
  isRecord,
  estimateStringChars,
);

function attempt(fn) {
  try {
    const value = fn();
    return Number.isNaN(value) ? { error: "NaN" } : value;
  } catch (err) {
    return { error: String(err) };
  }
}

const out = {
  messages: (payload.messages ?? []).map((msg) => ({
    pi: attempt(() => estimateTokens(msg)),
    compaction: attempt(() => estimateMessagesTokens([msg])),
    guard: attempt(() => estimateMessageCharsCached(msg, new WeakMap())),
    prune: attempt(() => cacheTtlMessageChars(msg)),
    // dropThinkingBlocks spares the latest assistant message: a later one makes `msg` an older one.
    prune_dropped: attempt(() => cacheTtlMessageChars(dropThinkingBlocks([msg, { role: "assistant", content: [] }])[0])),
  })),
  strings: (payload.strings ?? []).map((s) => [
    attempt(() => estimateStringChars(s)),
    attempt(() => withRawWeight(s, { minimumRawWeight: 2 })),
  ]),
  usages: (payload.usages ?? []).map((u) => attempt(() => calculateContextTokens(u))),
  contexts: (payload.contexts ?? []).map((messages) => attempt(() => estimateContextTokens(messages))),
};
process.stdout.write(JSON.stringify(out));
