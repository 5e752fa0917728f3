// Differential oracle for OpenClaw 2026.9.6's summarization prompts and "real conversation" check. Reads cases on
// stdin, prints one result per case. The agent core's `generateSummary` runs for real with a stream function that
// records the request (system prompt, user text, options); the safeguard's helpers come from its test API
// (`openclaw.compactionSafeguardTestApi`, published when VITEST is set). Three small functions that neither the
// bundle nor the test API export are copied below verbatim (compaction.ts `buildCompactionSummarizationInstructions`,
// compaction-safeguard-quality.ts `nestRequiredSummaryHeadings`, compaction-safeguard.ts
// `normalizeLegacySplitTurnSummary`).
// Cases: {"kind": "call", "messages", "reserve", "focus" | null, "previous" | null, "rolling" | null, "stage":
//          "custom" | "turn-prefix", "custom" | null, "policy", "identifierInstructions", "latest" | null,
//          "thinkingLevel" | null, "reasoning"}
//        {"kind": "real", "messages"}, {"kind": "fallback", "previous"}, {"kind": "structure", ...}
// Usage: node oc_2026_9_prompts.mjs DIST_DIR < cases.json
import { readFileSync } from "node:fs";
import { lookup } from "./oc_2026_9_call.mjs";

const cases = JSON.parse(readFileSync(0, "utf8")); // before the bundle is loaded (it makes stdin non-blocking)
process.env.VITEST = "1"; // the safeguard publishes its test API when the builtin bundle loads
const isRealConversationMessage = await lookup("builtin-openclaw", "isRealConversationMessage");
const T = globalThis[Symbol.for("openclaw.compactionSafeguardTestApi")];
const generateSummary = await lookup("compaction", "generateSummary");
const stripRuntimeContextCustomMessages = await lookup("internal-runtime-context", "stripRuntimeContextCustomMessages");
const resolveCompactionInstructions = await lookup("resource-loader", "resolveCompactionInstructions");
const wrapUntrustedPromptDataBlock = await lookup("sanitize-for-prompt", "wrapUntrustedPromptDataBlock");

const IDENTIFIER_PRESERVATION_INSTRUCTIONS = "Preserve all opaque identifiers exactly as written (no shortening or reconstruction), including UUIDs, hashes, IDs, hostnames, IPs, ports, URLs, and file names.";
const REQUIRED_SUMMARY_SECTIONS = ["## Decisions", "## Open TODOs", "## Constraints/Rules", "## Pending user asks", "## Exact identifiers"];
// compaction.ts, verbatim
function resolveIdentifierPreservationInstructions(instructions) {
  if (instructions?.identifierPolicy === "off") return;
  return instructions?.identifierPolicy === "custom" ? instructions.identifierInstructions?.trim() || IDENTIFIER_PRESERVATION_INSTRUCTIONS : IDENTIFIER_PRESERVATION_INSTRUCTIONS;
}
function buildCompactionSummarizationInstructions(customInstructions, instructions) {
  const custom = customInstructions?.trim();
  const identifierPreservation = resolveIdentifierPreservationInstructions(instructions);
  if (!custom) return identifierPreservation;
  return identifierPreservation ? `${identifierPreservation}\n\nAdditional focus:\n${custom}` : `Additional focus:\n${custom}`;
}
// compaction-safeguard-quality.ts / compaction-safeguard.ts, verbatim
function nestRequiredSummaryHeadings(text) {
  return text.replace(/^##[ \t]+\S.*$/gmu, (heading) => REQUIRED_SUMMARY_SECTIONS.some((required) => required === heading.trim()) ? heading.replace("##", "###") : heading);
}
function normalizeLegacySplitTurnSummary(summary) {
  const splitTurnStart = summary?.indexOf("**Turn Context (split turn):**") ?? -1;
  if (!summary || splitTurnStart < 0) return summary;
  const splitTurnContentStart = splitTurnStart + 30;
  return `${summary.slice(0, splitTurnContentStart)}${nestRequiredSummaryHeadings(summary.slice(splitTurnContentStart))}`;
}

// summarizeInStages' merge: `custom ? MERGE + "\n\n" + custom : MERGE` with no corrective text: MERGE itself
const T_MERGE = (merge) => merge;

async function call(c) {
  const summ = { identifierPolicy: c.policy ?? undefined, identifierInstructions: c.identifierInstructions ?? undefined };
  const custom = resolveCompactionInstructions(c.custom ?? undefined, undefined);
  const structured = T.buildCompactionStructureInstructions(custom, summ, c.latest ?? undefined);
  const focus = c.stage === "turn-prefix"
    ? [wrapUntrustedPromptDataBlock({ label: "Additional context from /compact", text: custom, maxChars: 4000 }), c.focus].filter(Boolean).join("\n\n")
    : c.merge ? T_MERGE(c.focus) : c.focus ?? "";
  const effective = buildCompactionSummarizationInstructions(focus, summ);
  const previous = normalizeLegacySplitTurnSummary(c.previous?.trim());
  const messages = T.prependPreviousSummaryForRedistill({ messages: c.messages, previousSummary: previous });
  let seen;
  const streamFn = (model, context, options) => {
    seen = { system: context.systemPrompt, text: context.messages[0].content[0].text, maxTokens: options.maxTokens, reasoning: options.reasoning ?? null };
    const result = { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "ok" }], usage: {} };
    return { async *[Symbol.asyncIterator]() {}, result: () => result };
  };
  const model = { api: "openai-completions", provider: "local", id: "summarizer", reasoning: c.reasoning, maxTokens: 0 };
  const summaryPrompt = c.stage === "turn-prefix" ? { kind: "turn-prefix" } : { kind: "custom", instructions: structured };
  const out = await generateSummary(messages, model, c.reserve, "", {}, new AbortController().signal, effective, c.rolling ?? undefined,
    c.thinkingLevel ?? undefined, streamFn, undefined, summaryPrompt);
  if (!out.ok) throw out.error;
  return seen;
}

const out = [];
for (const c of cases) {
  if (c.kind === "call") out.push(await call(c));
  else if (c.kind === "real") {
    const msgs = stripRuntimeContextCustomMessages(c.messages);
    out.push({ each: msgs.map((m, i) => isRealConversationMessage(m, msgs, i)), any: msgs.some((m, i, all) => isRealConversationMessage(m, all, i)) });
  } else if (c.kind === "fallback") out.push(T.buildStructuredFallbackSummary(normalizeLegacySplitTurnSummary(c.previous?.trim())));
  else if (c.kind === "structure") {
    const summ = { identifierPolicy: c.policy ?? undefined, identifierInstructions: c.identifierInstructions ?? undefined };
    out.push(T.buildCompactionStructureInstructions(c.custom ?? undefined, summ, c.latest ?? undefined));
  } else throw new Error(`unknown case ${c.kind}`);
}
process.stdout.write(JSON.stringify(out));
