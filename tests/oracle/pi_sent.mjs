// What pi 0.66.1 sends before each call: for every assistant message on the active path (a call), the session
// context of its parent (buildSessionContext), through convertToLlm and pi-ai's transformMessages (the model of
// that assistant), as the source entry of each message sent, by its position in getEntries() (file order; null: a
// synthetic tool result transformMessages inserted for an orphaned tool call). Positions, not ids: pi gives a v1
// file's entries random ids when it migrates it.
//
// Usage: node pi_sent.mjs PI_ORACLE_NODE_MODULES_DIR < {"file": "<a COPY of a session file>"} > result.json
// SessionManager.open migrates old files IN PLACE and rewrites files it cannot read: only ever pass copies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.argv[2];
const load = (rel) => import(pathToFileURL(join(modules, rel)).href);
const { SessionManager, buildSessionContext } = await load("@mariozechner/pi-coding-agent/dist/core/session-manager.js");
const { convertToLlm } = await load("@mariozechner/pi-coding-agent/dist/core/messages.js");
const { transformMessages } = await load("@mariozechner/pi-ai/dist/providers/transform-messages.js");

function producer(entry, msg) {
  if (entry.type === "message") return entry.message === msg;
  if (entry.type === "custom_message") return msg.role === "custom" && msg.customType === entry.customType && msg.content === entry.content;
  if (entry.type === "branch_summary") return msg.role === "branchSummary" && msg.summary === entry.summary && msg.fromId === entry.fromId;
  if (entry.type === "compaction") return msg.role === "compactionSummary" && msg.summary === entry.summary;
  return false;
}

const job = JSON.parse(readFileSync(0, "utf8"));
const sm = SessionManager.open(job.file);
const path = sm.getBranch();
const position = new Map(sm.getEntries().map((e, i) => [e, i]));
const calls = [];
for (let i = 0; i < path.length; i++) {
  const e = path[i];
  if (e.type !== "message" || e.message.role !== "assistant") continue;
  const before = path.slice(0, i);
  const ctx = buildSessionContext(before);
  const tagged = [];
  let cursor = 0;
  for (const msg of ctx.messages) {
    let k = cursor;
    while (k < before.length && !producer(before[k], msg)) k++;
    if (k >= before.length) {
      k = 0; // the kept tail of a compaction comes before the compaction entry on the path
      while (k < before.length && !producer(before[k], msg)) k++;
    }
    const id = k < before.length ? position.get(before[k]) : null;
    if (k < before.length) cursor = k + 1;
    for (const out of convertToLlm([msg])) tagged.push({ ...out, __source: id });
  }
  const a = e.message;
  const sent = transformMessages(tagged, { provider: a.provider, api: a.api, id: a.model });
  calls.push({ at: position.get(e), sent: sent.map((m) => m.__source ?? null) });
}
process.stdout.write(JSON.stringify({ calls }));
