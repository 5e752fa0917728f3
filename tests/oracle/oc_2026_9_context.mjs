// The context OpenClaw 2026.9.6's runtime builds for a session: `SessionManager.fromEntries` (its navigation over
// the file's rows: leaf rows, resets, side appends), `getBranch()` and `buildSessionContext()`.
// Reads [{"name": ..., "text": JSONL}] on stdin; prints, for each, the active leaf, the branch's ids, the ids of the
// entries whose messages make the context (the boundary compaction first), the message roles, model and thinking
// level, or the error it raised. Usage: node oc_2026_9_context.mjs DIST_DIR < sessions.json
import { lookup } from "./oc_2026_9_call.mjs";

const SessionManager = await lookup("session-manager", "SessionManager");
const iterateSessionContextEntries = await lookup("session", "iterateSessionContextEntries");

let input = "";
for await (const chunk of process.stdin) input += chunk; // readFileSync(0) fails (EAGAIN) on a large piped payload
const out = [];
for (const { name, text } of JSON.parse(input)) {
  try {
    const entries = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line));
      } catch {}
    }
    const sm = SessionManager.fromEntries(entries, "/tmp");
    const branch = sm.getBranch();
    const ids = [];
    for (const { entry } of iterateSessionContextEntries(branch)) {
      if (entry.type === "reset" || (entry.type === "branch_summary" && !entry.summary)) continue;
      ids.push(entry.id);
    }
    const ctx = sm.buildSessionContext();
    out.push({
      name,
      leaf: sm.getLeafId(),
      branch: branch.map((e) => e.id),
      ids,
      roles: ctx.messages.map((m) => m.role),
      model: ctx.model,
      thinkingLevel: ctx.thinkingLevel,
    });
  } catch (err) {
    out.push({ name, error: String(err && err.message ? err.message : err) });
  }
}
process.stdout.write(JSON.stringify(out));
