// pi 0.66.1's own migration of old session files, as a test oracle for inspector.write.migrate.
//
// Usage: node pi_migrate.mjs PI_CODING_AGENT_DIST_DIR < files.json
// files.json: ["<a COPY of a session file>", ...]. SessionManager.open migrates each file IN PLACE (v1 -> v3, v2 -> v3)
// and rewrites it whole: only ever pass temporary copies. Prints the version each file had and its entry count.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const { SessionManager } = await import(pathToFileURL(join(dist, "core/session-manager.js")).href);
const files = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const file of files) {
  const sm = SessionManager.open(file, dirname(file));
  out.push({ file, entries: sm.getEntries().length });
}
process.stdout.write(JSON.stringify(out));
