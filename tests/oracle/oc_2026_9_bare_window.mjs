// OpenClaw 2026.9.6's context window of a bare model id (no provider): the Gateway's context cache loaded as it
// loads it (`ensureContextWindowCacheLoaded(cfg)`: the prepared model catalog of that config, each entry projected
// by `applyDiscoveredContextWindow`, the smallest window per id kept), then `lookupContextTokens(id)` and
// `resolveContextTokensForModel({cfg, model: id})` for each id. Also lists the catalog's providers ("providers"),
// and projects the given `models` ({provider, id, contextWindow, contextTokens}: a catalog table) into a fresh cache
// with the real `applyDiscoveredContextWindows` ("projected": each id's window there).
// stdin: {"home": SCRATCH_HOME, "config": {...}, "ids": [...], "models": [...]}; stdout: {"windows": [...],
// "resolved": [...], "providers": [...], "projected": [...]} (null where unknown). HOME and the state directory point at the scratch directory before
// any OpenClaw module is imported. Usage: node oc_2026_9_bare_window.mjs DIST_DIR < payload.json
import { join } from "node:path";
import { lookup } from "./oc_2026_9_call.mjs";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { home, config, ids, models } = JSON.parse(input);
if (!home) throw new Error("no scratch HOME given");
process.env.HOME = home;
process.env.OPENCLAW_STATE_DIR = join(home, ".openclaw");
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;

const ensure = await lookup("context", "ensureContextWindowCacheLoaded");
const lookupContextTokens = await lookup("context", "lookupContextTokens");
const resolve = await lookup("context", "resolveContextTokensForModel");
const snapshot = await lookup("prepared-model-catalog", "loadPreparedModelCatalogOwnerSnapshot");
const project = await lookup("context", "applyDiscoveredContextWindows");
const projection = new Map();
project({ cache: projection, models: (models ?? []).map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null))) });
await ensure(config);
const owner = await snapshot({ config, readOnly: true });
const entries = [...owner.modelCatalog.entries, ...(owner.modelCatalog.staticEntries ?? [])];
const out = {
  windows: ids.map((id) => lookupContextTokens(id, { skipRuntimeConfigLoad: true }) ?? null),
  resolved: ids.map((id) => resolve({ cfg: config, model: id }) ?? null),
  providers: [...new Set(entries.map((e) => e.provider))].sort(),
  projected: ids.map((id) => projection.get(id) ?? null),
};
write(JSON.stringify(out), () => process.exit(0));
