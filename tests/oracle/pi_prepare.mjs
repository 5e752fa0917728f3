// pi's own compaction preparation, as a test oracle for inspector.rules.openclaw_2026_4_12.compaction.
//
// Usage: node pi_prepare.mjs PI_CODING_AGENT_DIST_DIR < jobs.json > results.json
// jobs.json: [{"file": "<a COPY of a session file>", "keepRecentTokens": N, "reserveTokens": N, "contextWindow": N}, ...]
// SessionManager.open migrates old files IN PLACE and rewrites files it cannot read: only ever pass copies.
//
// For each job it prints pi 0.66.1's own results: prepareCompaction (firstKeptEntryId, isSplitTurn,
// tokensBefore, previousSummary, messagesToSummarize / turnPrefixMessages as entry indexes, file lists),
// findCutPoint, estimateTokens of every path message, buildSessionContext + estimateContextTokens, and
// shouldCompact on the last assistant's usage, and the context's size now: AgentSession.getContextUsage itself
// (called on a stand-in `this` with the model's window, the session manager and the context messages), whose
// `tokens: null` (no usage since the latest compaction) is reported with the estimate of every message beside it.
// Entry indexes are positions in sessionManager.getEntries().
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
const { SessionManager, buildSessionContext } = await load("core/session-manager.js");
const cmp = await load("core/compaction/compaction.js");
const utils = await load("core/compaction/utils.js");
const { AgentSession } = await load("core/agent-session.js");

function producer(entry, msg) {
  if (entry.type === "message") return entry.message === msg;
  if (entry.type === "custom_message")
    return msg.role === "custom" && msg.customType === entry.customType && msg.content === entry.content;
  if (entry.type === "branch_summary")
    return msg.role === "branchSummary" && msg.summary === entry.summary && msg.fromId === entry.fromId;
  return false;
}

// The entry indexes (in getEntries()) of the path entries that produced these messages, in order.
function sources(messages, path, index) {
  const out = [];
  let cursor = 0;
  for (const msg of messages) {
    while (cursor < path.length && !producer(path[cursor], msg)) cursor++;
    out.push(cursor < path.length ? index.get(path[cursor]) : null);
    cursor++;
  }
  return out;
}

function runJob(job) {
  const sm = SessionManager.open(job.file);
  const entries = sm.getEntries();
  const index = new Map(entries.map((e, i) => [e, i]));
  const path = sm.getBranch();
  const settings = { enabled: true, reserveTokens: job.reserveTokens, keepRecentTokens: job.keepRecentTokens };
  const ctx = buildSessionContext(path);
  const est = cmp.estimateContextTokens(ctx.messages);
  const now = AgentSession.prototype.getContextUsage.call({
    model: { contextWindow: job.contextWindow },
    sessionManager: sm,
    messages: ctx.messages,
  });
  const everyMessage = ctx.messages.reduce((sum, m) => sum + cmp.estimateTokens(m), 0);
  const lastUsage = cmp.getLastAssistantUsage(path);
  const lastUsageTokens = lastUsage ? cmp.calculateContextTokens(lastUsage) : null;
  const out = {
    file: job.file,
    entries: entries.map((e) => ({ id: e.id ?? null, type: e.type ?? null })),
    path: path.map((e) => index.get(e)),
    pathTokens: path.map((e) => (e.type === "message" ? cmp.estimateTokens(e.message) : null)),
    contextMessages: ctx.messages.length,
    estimateContextTokens: est,
    contextUsage: { tokens: now.tokens, estimate: everyMessage },
    lastUsageTokens,
    shouldCompact: lastUsageTokens === null ? null : cmp.shouldCompact(lastUsageTokens, job.contextWindow, settings),
    shouldCompactTokensBefore: cmp.shouldCompact(est.tokens, job.contextWindow, settings),
    prepared: null,
  };
  // prepareCompaction's boundary, recomputed only to call findCutPoint on the same range.
  let prev = -1;
  for (let i = path.length - 1; i >= 0; i--) if (path[i].type === "compaction") { prev = i; break; }
  let boundaryStart = 0;
  if (prev >= 0) {
    const fk = path.findIndex((e) => e.id === path[prev].firstKeptEntryId);
    boundaryStart = fk >= 0 ? fk : prev + 1;
  }
  if (path.length > 0) {
    const cut = cmp.findCutPoint(path, boundaryStart, path.length, job.keepRecentTokens);
    out.cutPoint = {
      firstKeptEntryIndex: index.get(path[cut.firstKeptEntryIndex]) ?? null,
      turnStartIndex: cut.turnStartIndex >= 0 ? index.get(path[cut.turnStartIndex]) : null,
      isSplitTurn: cut.isSplitTurn,
    };
    out.boundaryStart = index.get(path[boundaryStart]) ?? null;
  }
  const prep = cmp.prepareCompaction(path, settings);
  if (prep) {
    const lists = utils.computeFileLists(prep.fileOps);
    out.prepared = {
      firstKeptEntryId: prep.firstKeptEntryId,
      firstKeptEntryIndex: entries.findIndex((e) => e.id === prep.firstKeptEntryId),
      isSplitTurn: prep.isSplitTurn,
      tokensBefore: prep.tokensBefore,
      previousSummary: prep.previousSummary ?? null,
      messagesToSummarize: sources(prep.messagesToSummarize, path, index),
      turnPrefixMessages: sources(prep.turnPrefixMessages, path, index),
      summarizeTokens: prep.messagesToSummarize.map((m) => cmp.estimateTokens(m)),
      readFiles: lists.readFiles,
      modifiedFiles: lists.modifiedFiles,
    };
  }
  return out;
}

const jobs = JSON.parse(readFileSync(0, "utf8"));
const results = [];
for (const job of jobs) {
  try {
    results.push(runJob(job));
  } catch (err) {
    results.push({ file: job.file, error: String(err && err.stack ? err.stack : err) });
  }
}
process.stdout.write(JSON.stringify(results));
