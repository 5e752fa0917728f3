// Differential oracle for the reasoning of OpenClaw 2026.9.6's compaction summary calls. Cases on stdin:
// {"kind": "level", "config", "sessionLevel", "model"}: `resolveEmbeddedCompactionThinkingLevel` with the provider's
//   compaction default (the Ollama plugin's `normalizeResolvedModel`, for provider `ollama`);
// {"kind": "body", "model", "level", "reserve"}: the agent core's real `generateSummary` at that thinking level,
//   through `@openclaw/ai`'s `streamSimple` for the model's api, against a local HTTP server that records the body
//   (and answers 400); the body without `messages` / `system` is returned.
// Usage: node oc_2026_9_reasoning.mjs DIST_DIR < cases.json
import { createServer } from "node:http";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8"));
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true; // the transport's debug lines
const dist = process.argv[2];
const ai = join(dist, "..", "..", "@openclaw", "ai", "dist");
const aiModule = async (prefix, name) => {
  const file = readdirSync(ai).find((f) => new RegExp(`^${prefix}-[A-Za-z0-9_-]{8}\\.mjs$`).test(f) && readFileSync(join(ai, f), "utf8").includes(`${name} as r`));
  return (await import(pathToFileURL(join(ai, file)).href)).r;
};
const streams = {
  "anthropic-messages": await aiModule("anthropic", "streamSimpleAnthropic"),
  "openai-completions": await aiModule("openai-completions", "streamSimpleOpenAICompletions"),
};
const resolveLevel = await lookup("context-engine-maintenance", "resolveEmbeddedCompactionThinkingLevel");
const ollamaNormalize = await lookup("provider-policy-api", "normalizeResolvedModel");
const generateSummary = await lookup("compaction", "generateSummary");

let captured = null;
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    captured = JSON.parse(body);
    res.writeHead(400, { "content-type": "application/json" });
    res.end('{"type":"error","error":{"type":"invalid_request_error","message":"recorded"}}');
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const local = `http://127.0.0.1:${server.address().port}`;

const out = [];
for (const c of cases) {
  try {
    if (c.kind === "level") {
      const m = c.model;
      const normalized = m.provider === "ollama" ? ollamaNormalize({ provider: m.provider, model: { ...m }, config: c.config }) : undefined;
      out.push({ value: resolveLevel({
        config: c.config, provider: m.provider, modelId: m.id, inheritedLevel: c.sessionLevel ?? undefined,
        compactionThinkingDefault: normalized?.compactionThinkingDefault,
        catalog: [{ provider: m.provider, id: m.id, api: m.api, reasoning: m.reasoning ?? undefined,
          ...(m.thinkingLevelMap ? { thinkingLevelMap: m.thinkingLevelMap } : {}) }],
      }) });
      continue;
    }
    captured = null;
    const m = c.model;
    const model = { ...m, name: m.id, baseUrl: m.api === "anthropic-messages" ? local : `${local}/v1`, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 200000 };
    if (m.maxTokens === null || m.maxTokens === undefined) delete model.maxTokens;
    let err = null;
    try {
      await generateSummary([{ role: "user", content: "hi", timestamp: 1 }], model, c.reserve, "sk-test-123456", undefined,
        undefined, undefined, undefined, c.level ?? undefined, streams[m.api], undefined, undefined);
    } catch (e) {
      err = String(e);
    }
    if (!captured) out.push({ error: err ?? "no request" });
    else {
      const { messages, system, ...rest } = captured;
      out.push({ value: rest });
    }
  } catch (e) {
    out.push({ error: String(e && e.stack ? e.stack : e) });
  }
}
server.close();
write(JSON.stringify(out), () => process.exit(0));
