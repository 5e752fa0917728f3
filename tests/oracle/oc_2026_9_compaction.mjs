// Differential oracle for the 2026.9.6 compaction rules: runs the real planning functions and prepareCompaction on
// the cases given on stdin and prints, per case, what the Python port must reproduce (message indexes, not objects).
// Cases: {"kind": "planning", "messages": [...], "maxChunkTokens", "contextWindow", "budget"} and
// {"kind": "prepare", "entries": [...], "keepRecentTokens"}. Usage: node oc_2026_9_compaction.mjs DIST_DIR < cases.json
import { readFileSync } from "node:fs";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8"));
const estimateTokens = await lookup("compaction", "estimateTokens");
const buildStageSplitPlan = await lookup("compaction-planning", "buildStageSplitPlan");
const buildSummaryChunks = await lookup("compaction-planning", "buildSummaryChunks");
const buildHistoryPrunePlan = await lookup("compaction-planning", "buildHistoryPrunePlan");
const buildOversizedFallbackPlan = await lookup("compaction-planning", "buildOversizedFallbackPlan");
const prepareCompaction = await lookup("compaction", "prepareCompaction");

const idx = (list) => list.map((m) => m.timestamp);
const out = [];
for (const c of cases) {
  if (c.kind === "planning") {
    const msgs = c.messages;
    const split = buildStageSplitPlan({ messages: msgs, maxChunkTokens: c.maxChunkTokens });
    const prune = buildHistoryPrunePlan({
      messagesToSummarize: msgs, turnPrefixMessages: [], tokensBefore: 1e12,
      contextWindowTokens: c.budget, maxHistoryShare: 0.5, parts: 2,
    }).pruned;
    const fb = buildOversizedFallbackPlan({ messages: msgs, contextWindow: c.contextWindow });
    out.push({
      tokens: msgs.map((m) => estimateTokens(m)),
      split: split.mode === "split" ? split.chunks.map(idx) : null,
      chunks: buildSummaryChunks({ messages: msgs, maxChunkTokens: c.maxChunkTokens }).map(idx),
      prune: { kept: idx(prune.messages), dropped: idx(prune.droppedMessagesList), droppedChunks: prune.droppedChunks },
      fallback: { small: idx(fb.smallMessages), notes: fb.oversizedNotes },
    });
  } else {
    const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: c.keepRecentTokens };
    const res = prepareCompaction(c.entries, settings, false);
    const p = res.ok ? res.value : undefined;
    out.push(p === undefined ? { ok: res.ok, none: true } : {
      ok: true, firstKeptEntryId: p.firstKeptEntryId, isSplitTurn: p.isSplitTurn, tokensBefore: p.tokensBefore,
      summarize: p.messagesToSummarize.length, prefix: p.turnPrefixMessages.length,
    });
  }
}
process.stdout.write(JSON.stringify(out));
