// OpenClaw's heartbeat-token stripping (`src/auto-reply/heartbeat.ts`), lifted out of its compiled bundle, as a
// test oracle for inspector/rules/openclaw_2026_4_12/heartbeat.py.
//
// Usage: node openclaw_heartbeat.mjs OPENCLAW_DIST_DIR < cases.json > results.json
// The heartbeat chunk imports modules that need OpenClaw's npm dependencies, so the few pure pieces are copied out
// by name (a top-level `function NAME(` ... up to the next line that is exactly `}`; a top-level `const NAME = ...;`)
// from the chunk that defines them: `escapeRegExp` (utils), `HEARTBEAT_TOKEN` (tokens), `stripTokenAtEdges` and
// `stripHeartbeatToken` (heartbeat). Nothing is re-implemented here.
// cases.json: [{"fn": "edges", "raw": "..."} | {"fn": "strip", "raw": "...", "mode": "message"|"heartbeat", "maxAckChars": n}]
// results: [{"text": "...", "didStrip": bool} | {"shouldSkip": bool, "text": "...", "didStrip": bool}]
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { extract } from "./bundle_extract.mjs";

const [dist] = process.argv.slice(2);
const files = readdirSync(dist);

function defining(prefix, probe) {
  for (const f of files.filter((n) => n.startsWith(prefix) && n.endsWith(".js"))) {
    const lines = readFileSync(join(dist, f), "utf8").split("\n");
    if (lines.some((l) => l.startsWith(probe))) return lines;
  }
  throw new Error(`no ${prefix}*.js in ${dist} defines ${probe}`);
}


const source = [
  extract(defining("utils-", "function escapeRegExp("), ["escapeRegExp"]),
  extract(defining("tokens-", "const HEARTBEAT_TOKEN ="), ["HEARTBEAT_TOKEN"]),
  extract(defining("heartbeat-", "function stripTokenAtEdges("), ["stripTokenAtEdges", "stripHeartbeatToken"]),
].join("\n");
const api = new Function(`${source}\nreturn { stripTokenAtEdges, stripHeartbeatToken };`)();

const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(
  JSON.stringify(
    cases.map((c) =>
      c.fn === "edges" ? api.stripTokenAtEdges(c.raw) : api.stripHeartbeatToken(c.raw, { mode: c.mode, maxAckChars: c.maxAckChars }),
    ),
  ),
);
