// OpenClaw's own context-pruning code, run as a live oracle for tests/test_pruning_oracle.py.
//
// Usage: node test_pruning_oracle_harness.mjs DIST_DIR < cases.json > results.json
//
// DIST_DIR is the `dist/` of the pinned OpenClaw npm package (2026.4.12). The pruning code is bundled inside a
// large chunk whose other parts need the whole plugin runtime, so this script copies out only the source
// regions the bundler marked (`//#region src/agents/pi-hooks/context-pruning/pruner.ts` ... `//#endregion`),
// imports the small self-contained chunks they use (cjk-chars, glob-pattern, string-coerce, parse-duration,
// anthropic-cache-control-payload) by their exported names, and evaluates the result as one module. Nothing is
// re-implemented here except two stubs: the pruning runtime registry (a field on the fake session manager)
// and the provider-plugin hook of isCacheTtlEligibleProvider (always "no plugin answer").
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = path.resolve(process.argv[2] ?? ".");
const files = fs.readdirSync(dist);

function chunk(prefix) {
  const name = files.find((f) => f.startsWith(prefix) && f.endsWith(".js"));
  if (!name) throw new Error(`no ${prefix}*.js in ${dist}`);
  return path.join(dist, name);
}

function exportAliases(file) {
  const src = fs.readFileSync(file, "utf8");
  const m = src.match(/export \{([^}]*)\};\s*$/);
  if (!m) throw new Error(`no export list in ${file}`);
  const out = {};
  for (const part of m[1].split(",")) {
    const [name, alias] = part.trim().split(/\s+as\s+/);
    out[name] = alias ?? name;
  }
  return out;
}

function importLines(file, names) {
  const aliases = exportAliases(file);
  const spec = names.map((n) => {
    if (!aliases[n]) throw new Error(`${n} is not exported by ${file}`);
    return `${aliases[n]} as ${n}`;
  });
  return `import { ${spec.join(", ")} } from ${JSON.stringify(pathToFileURL(file).href)};\n`;
}

function section(src, startMarker) {
  const start = src.indexOf(startMarker);
  if (start < 0) throw new Error(`marker not found: ${startMarker}`);
  const end = src.indexOf("//#endregion", start + startMarker.length);
  return src.slice(start, end);
}

const main = fs.readFileSync(chunk("model-context-tokens-"), "utf8");
const region = (p) => section(main, `//#region ${p}\n`);
const shared = fs.readFileSync(chunk("provider-model-shared-"), "utf8");
const extra = fs.readFileSync(chunk("extra-params-"), "utf8");

let pruner = region("src/agents/pi-hooks/context-pruning/pruner.ts");
const probe = "\t\tconst next = pruneContextMessages({";
let extension = region("src/agents/pi-hooks/context-pruning/extension.ts");
if (!extension.includes(probe)) throw new Error("extension.ts changed: cannot count pruner calls");
extension = extension.replace(probe, "\t\tglobalThis.__prunerCalls += 1;\n" + probe);

const moduleText = [
  importLines(chunk("string-coerce-"), ["normalizeLowercaseStringOrEmpty", "normalizeOptionalLowercaseString", "normalizeOptionalString"]),
  importLines(chunk("cjk-chars-"), ["estimateStringChars"]),
  importLines(chunk("glob-pattern-"), ["compileGlobPatterns", "matchesAnyGlobPattern"]),
  importLines(chunk("parse-duration-"), ["parseDurationMs"]),
  importLines(chunk("anthropic-cache-control-payload-"), ["isAnthropicFamilyCacheTtlEligible", "isAnthropicModelRef"]),
  "const getContextPruningRuntime = (sm) => sm.__runtime;\n",
  "const resolveProviderCacheTtlEligibility = () => undefined;\n",
  section(fs.readFileSync(chunk("pi-embedded-helpers-"), "utf8"), "function isGoogleModelApi(api) {"),
  section(extra, "//#region src/agents/pi-embedded-runner/prompt-cache-retention.ts\n").replace(/function resolveCacheRetention[\s\S]*$/, ""),
  section(shared, "//#region src/plugins/provider-replay-helpers.ts\n"),
  region("src/agents/transcript-policy.ts"),
  region("src/agents/pi-embedded-runner/thinking.ts"),
  region("src/agents/pi-hooks/context-pruning/tools.ts"),
  pruner,
  extension,
  region("src/agents/pi-hooks/context-pruning/settings.ts"),
  section(main, "const IMAGE_CHAR_ESTIMATE$1 = 8e3;"),
  region("src/agents/pi-embedded-runner/tool-result-context-guard.ts"),
  `export { pruneContextMessages, estimateMessageChars, estimateContextChars, dropThinkingBlocks,
    contextPruningExtension, computeEffectiveSettings, makeToolPrunablePredicate, readLastCacheTtlTimestamp,
    isCacheTtlEligibleProvider, shouldPreserveThinkingBlocks, buildUnownedProviderTransportReplayFallback,
    mergeTranscriptPolicy, buildAnthropicReplayPolicyForModel, buildNativeAnthropicReplayPolicyForModel,
    buildHybridAnthropicOrOpenAIReplayPolicy, installToolResultContextGuard, parseDurationMs,
    softTrimToolResultMessage };\n`,
].join("\n");

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "oc-pruning-oracle-"));
const modulePath = path.join(tmp, "oracle.mjs");
fs.writeFileSync(modulePath, moduleText);
const oc = await import(pathToFileURL(modulePath).href);
fs.rmSync(tmp, { recursive: true, force: true });

function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return { ok: false, error: String(err?.message ?? err) };
  }
}

function prune(c) {
  const settings = oc.computeEffectiveSettings(c.raw);
  if (!settings) return { settings: null };
  const sm = { getEntries: () => c.entries ?? [] };
  const lastCacheTouchAt = oc.readLastCacheTtlTimestamp(sm, { provider: c.provider, modelId: c.modelId });
  sm.__runtime = {
    settings,
    contextWindowTokens: c.contextWindow,
    isToolPrunable: oc.makeToolPrunablePredicate(settings.tools),
    dropThinkingBlocks: c.dropThinking,
    lastCacheTouchAt,
  };
  let handler = null;
  oc.contextPruningExtension({ on: (name, fn) => { if (name === "context") handler = fn; } });
  const realNow = Date.now;
  Date.now = () => c.now;
  globalThis.__prunerCalls = 0;
  const messages = structuredClone(c.messages);
  const viaGate = attempt(() => handler({ type: "context", messages }, { sessionManager: sm, model: undefined }));
  Date.now = realNow;
  const estimated = c.dropThinking ? oc.dropThinkingBlocks(c.messages) : c.messages;
  const forced = attempt(() =>
    oc.pruneContextMessages({
      messages: c.messages,
      settings,
      ctx: { model: undefined },
      isToolPrunable: oc.makeToolPrunablePredicate(settings.tools),
      contextWindowTokensOverride: c.contextWindow,
      dropThinkingBlocksForEstimate: c.dropThinking,
    }),
  );
  return {
    settings,
    lastCacheTouchAt,
    gateCalledPruner: globalThis.__prunerCalls > 0,
    viaGate: viaGate.ok ? { ok: true, messages: viaGate.value ? viaGate.value.messages : null } : viaGate,
    forced: forced.ok ? { ok: true, changed: forced.value !== c.messages, messages: forced.value } : forced,
    perMessage: estimated.map((m) => attempt(() => oc.estimateMessageChars(m))),
    total: attempt(() => oc.estimateContextChars(estimated)),
  };
}

function guard(c) {
  const agent = {};
  oc.installToolResultContextGuard({ agent, contextWindowTokens: c.contextWindow });
  return agent.transformContext(structuredClone(c.messages)).then(
    (messages) => ({ ok: true, messages }),
    (err) => ({ ok: false, error: String(err?.message ?? err) }),
  );
}

const ops = {
  prune,
  guard,
  settings: (c) => oc.computeEffectiveSettings(c.raw),
  duration: (c) => attempt(() => oc.parseDurationMs(c.text, { defaultUnit: "m" })),
  tools: (c) => {
    const pred = oc.makeToolPrunablePredicate(c.tools);
    return c.names.map((n) => pred(n));
  },
  touch: (c) => oc.readLastCacheTtlTimestamp({ getEntries: () => c.entries }, c.context),
  drop: (c) => oc.dropThinkingBlocks(c.messages),
  eligible: (c) => oc.isCacheTtlEligibleProvider(c.provider, c.modelId, c.api),
  policy: (c) => ({
    preserve: oc.shouldPreserveThinkingBlocks(c.modelId),
    fallback: oc.mergeTranscriptPolicy(oc.buildUnownedProviderTransportReplayFallback({ modelApi: c.api, modelId: c.modelId })).dropThinkingBlocks,
    anthropicByModel: oc.mergeTranscriptPolicy(oc.buildAnthropicReplayPolicyForModel(c.modelId)).dropThinkingBlocks,
    hybrid: oc.mergeTranscriptPolicy(
      oc.buildHybridAnthropicOrOpenAIReplayPolicy({ modelApi: c.api, modelId: c.modelId }, { anthropicModelDropThinkingBlocks: true }) ?? undefined,
    ).dropThinkingBlocks,
  }),
};

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const results = [];
for (const c of input.cases) results.push(await ops[c.op](c));
process.stdout.write(JSON.stringify({ results }));
