// OpenClaw 2026.9.6's context-window resolution and guard, run on JSON cases. Reads [{kind, ...}] on stdin:
// - {kind: "resolve", cfg, provider, modelId, baseUrl}: the config read as the loader reads it
//   (migrateLegacyContextBudgetConfig), the model from the plugins' manifests (exact provider and id), then
//   resolveContextWindowInfo + the default contextWindows option (resolveEffectiveRuntimeModel's steps), and the
//   whole resolveEmbeddedRuntimeModelPolicy (its FailoverError message when it blocks);
// - {kind: "guard", info, provider, modelId, runtimeBaseUrl, warnBelowTokens, hardMinTokens}: evaluateContextWindowGuard
//   and both messages;
// - {kind: "endpoint", baseUrl}: resolveProviderEndpoint(baseUrl).endpointClass.
// The plugins' model-id normalization policies are loaded as the gateway loads them. HOME and the state directory
// point at a scratch directory (the payload's `home`) before any OpenClaw module is imported.
// Usage: node oc_2026_9_window.mjs DIST_DIR < {"home": SCRATCH_HOME, "cases": [...]}
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { lookup } from "./oc_2026_9_call.mjs";

const dist = process.argv[2];
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { home: scratch, cases } = JSON.parse(input);
if (!scratch) throw new Error("no scratch HOME given");
process.env.HOME = scratch;
process.env.OPENCLAW_STATE_DIR = join(scratch, ".openclaw");

const manifests = readdirSync(join(dist, "extensions"))
  .map((name) => { try { return JSON.parse(readFileSync(join(dist, "extensions", name, "openclaw.plugin.json"), "utf8")); } catch { return null; } })
  .filter(Boolean);
const catalog = new Map();
for (const m of manifests) {
  for (const [provider, entry] of Object.entries(m.modelCatalog?.providers ?? {})) {
    for (const model of entry.models ?? []) catalog.set(`${provider}\0${model.id}`, { ...model, provider });
  }
}

const collect = await lookup("provider-model-id-normalization", "collectManifestModelIdNormalizationPolicies");
const setPolicies = await lookup("provider-model-id-normalization", "setCurrentManifestModelIdNormalizationPolicies");
setPolicies(collect(manifests));
const migrate = await lookup("io.snapshot-preparation", "migrateLegacyContextBudgetConfig");
const resolveInfo = await lookup("context-window-guard", "resolveContextWindowInfo");
const evaluate = await lookup("context-window-guard", "evaluateContextWindowGuard");
const warnMessage = await lookup("context-window-guard", "formatContextWindowWarningMessage");
const blockMessage = await lookup("context-window-guard", "formatContextWindowBlockMessage");
const profileOf = await lookup("model-context-window", "resolveModelContextWindowProfile");
const policy = await lookup("setup", "resolveEmbeddedRuntimeModelPolicy");
const endpoint = await lookup("provider-attribution", "resolveProviderEndpoint");
const readModelTokens = await lookup("model-context-tokens", "readAgentModelContextTokens");
const DEFAULT_CONTEXT_TOKENS = 200000;

function resolveCase(c) {
  const cfg = migrate(c.cfg).config;
  const entry = catalog.get(`${c.provider}\0${c.modelId}`);
  const runtimeModel = { id: c.modelId, provider: c.provider, ...(entry ?? {}), ...(c.baseUrl ? { baseUrl: c.baseUrl } : {}) };
  const profile = profileOf({ catalogEntry: runtimeModel, selected: undefined });
  const resolved = resolveInfo({
    cfg, provider: c.provider, modelId: c.modelId, modelContextTokens: readModelTokens(runtimeModel),
    modelContextWindow: profile.contextTokens, defaultTokens: DEFAULT_CONTEXT_TOKENS,
  });
  const info = profile.contextWindow && profile.contextTokens !== undefined && resolved.tokens > profile.contextTokens
    ? { ...resolved, tokens: profile.contextTokens, source: "model" } : resolved;
  let run;
  try {
    const r = policy({ cfg, provider: c.provider, modelId: c.modelId, runtimeModel, contextWindow: undefined });
    run = { tokens: r.contextWindowInfo.tokens, source: r.contextWindowInfo.source };
  } catch (err) {
    run = { error: String(err?.message ?? err) };
  }
  return { info, run, known: entry !== undefined };
}

function guardCase(c) {
  const params = { info: c.info };
  if (c.warnBelowTokens !== undefined) params.warnBelowTokens = c.warnBelowTokens;
  if (c.hardMinTokens !== undefined) params.hardMinTokens = c.hardMinTokens;
  const guard = evaluate(params);
  return {
    tokens: guard.tokens, hardMin: guard.hardMinTokens, warnBelow: guard.warnBelowTokens,
    shouldWarn: guard.shouldWarn, shouldBlock: guard.shouldBlock,
    warn: warnMessage({ provider: c.provider, modelId: c.modelId, guard, runtimeBaseUrl: c.runtimeBaseUrl }),
    block: blockMessage({ guard, runtimeBaseUrl: c.runtimeBaseUrl }),
  };
}

const out = [];
for (const c of cases) {
  if (c.kind === "resolve") out.push(resolveCase(c));
  else if (c.kind === "guard") out.push(guardCase(c));
  else out.push(endpoint(c.baseUrl).endpointClass);
}
process.stdout.write(JSON.stringify(out));
