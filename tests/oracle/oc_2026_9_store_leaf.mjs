// The Gateway's append parent of store sessions, by OpenClaw 2026.9.6's own `resolveTranscriptMessageAppendParent`
// (session-accessor.sqlite-read: `readActiveTranscriptAppendParentId`, which takes the leaf from
// `session_transcript_index_state` when no transcript event has an identity row and the index is current).
// Reads [{"store": path, "session": session id}, ...] on stdin; prints the parent id (or null) of each.
// Usage: node oc_2026_9_store_leaf.mjs DIST_DIR < cases.json
import { readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8"));
const resolve = await lookup("session-accessor.sqlite-read", "resolveTranscriptMessageAppendParent");
const out = [];
for (const { store, session } of cases) {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    out.push(resolve({ db, path: store }, session, {}) ?? null);
  } finally {
    db.close();
  }
}
process.stdout.write(JSON.stringify(out));
