// OpenClaw 2026.9.6's cache-TTL pruning, run on JSON cases: resolveCacheTtlPruningSettings, the projections
// restored from a branch's `openclaw.cache-ttl` marker, pruneExpiredCacheTtlToolResults, and the snapshot the
// next marker would carry. Reads [{config, messages, contextWindowTokens, lastCacheTouchAt, now,
// dropThinkingBlocksForEstimate, pruneNewRounds, branch, toolNames}] on stdin; prints one result per case.
// Usage: node oc_2026_9_pruning.mjs DIST_DIR < cases.json
import { lookup } from "./oc_2026_9_call.mjs";

const resolve = await lookup("tool-result-truncation", "resolveCacheTtlPruningSettings");
const prune = await lookup("tool-result-truncation", "pruneExpiredCacheTtlToolResults");
const restore = await lookup("tool-result-truncation", "restoreCacheTtlToolResultProjections");
const createState = await lookup("session-prompt-state", "createToolResultPromptProjectionState");
const serialize = await lookup("session-prompt-state", "serializeCacheTtlToolResultProjections");

const out = [];
let input = "";
for await (const chunk of process.stdin) input += chunk;  // (readFileSync(0) fails with EAGAIN on a big pipe)
for (const c of JSON.parse(input)) {
  const settings = resolve(c.config);
  if (!settings) {
    out.push({ settings: null });
    continue;
  }
  const state = createState();
  if (c.branch) restore(state, c.branch);
  let pruned = false;
  const messages = prune({
    messages: c.messages,
    settings,
    contextWindowTokens: c.contextWindowTokens,
    lastCacheTouchAt: c.lastCacheTouchAt,
    dropThinkingBlocksForEstimate: c.dropThinkingBlocksForEstimate ?? false,
    now: c.now,
    projectionState: state,
    pruneNewRounds: c.pruneNewRounds ?? true,
    onPruned: () => { pruned = true; },
  });
  out.push({
    settings: { ttlMs: settings.ttlMs, hardClear: settings.hardClear, placeholder: settings.placeholder },
    prunable: (c.toolNames ?? []).map((name) => settings.isToolPrunable(name)),
    messages,
    pruned,
    snapshot: serialize(state),
  });
}
process.stdout.write(JSON.stringify(out));
