// Call functions of OpenClaw 2026.9.6's compiled dist by their source names (the bundle exports them under
// one-letter aliases; the `export { name as alias }` line maps them back). Reads a JSON job list on stdin:
// [{"module": "cjk-chars", "fn": "estimateStringChars", "args": [...]}, ...] and prints the results as JSON.
// A module is a dist file's name up to its hash (`cjk-chars` -> dist/cjk-chars-<hash>.mjs); when several files
// share that prefix, the one exporting `fn` is used. Usage: node oc_2026_9_call.mjs DIST_DIR < jobs.json
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const files = readdirSync(dist);
const exportsOf = new Map();

function exportNames(file) {
  if (!exportsOf.has(file)) {
    const text = readFileSync(join(dist, file), "utf8");
    const names = new Map();
    for (const m of text.matchAll(/export\s*\{([^}]*)\}/g)) {
      for (const part of m[1].split(",")) {
        const [name, alias] = part.trim().split(/\s+as\s+/);
        if (name) names.set(name.trim(), (alias ?? name).trim());
      }
    }
    exportsOf.set(file, names);
  }
  return exportsOf.get(file);
}

export async function lookup(module, fn) {
  const re = new RegExp(`^${module.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-[A-Za-z0-9_-]{8}\\.mjs$`);
  for (const file of files.filter((f) => re.test(f))) {
    const alias = exportNames(file).get(fn);
    if (alias !== undefined) {
      const mod = await import(pathToFileURL(join(dist, file)).href);
      return mod[alias];
    }
  }
  throw new Error(`no dist/${module}-*.mjs exports ${fn}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const jobs = JSON.parse(readFileSync(0, "utf8"));
  const out = [];
  for (const job of jobs) {
    try {
      const f = await lookup(job.module, job.fn);
      const value = await f(...(job.args ?? []));
      out.push({ value: value === undefined ? null : value });
    } catch (err) {
      out.push({ error: String(err && err.stack ? err.stack : err) });
    }
  }
  process.stdout.write(JSON.stringify(out));
}
