// OpenClaw 2026.9.6's summary quality guard (src/agents/agent-hooks/compaction-safeguard-quality.ts), lifted out of
// the builtin bundle (its functions are not exported) with bundle_extract.mjs and evaluated beside the exported
// helpers it calls (`uniqueStrings`, `extractKeywords`, `isQueryStopWordToken`).
// With `dist_2026_4` (OpenClaw 2026.4.12's dist, `install_openclaw_dist.sh`), 2026.4.12's versions are lifted from its
// bundle the same way (with 2026.9.6's `extractKeywords`: 2026.4.12's query-expansion is not in that dist).
// 2026.9.6 also has compaction-safeguard.ts's `resolveQualityGuardMaxRetries` and `formatRequiredAskContext`.
// stdin: {"dist_2026_4": DIR | null, "jobs": [{"release": "2026.9" | "2026.4", "fn": "extractOpaqueIdentifiers" |
// "hasAskOverlap" | "extractKeywords" | "auditSummaryQuality" | "hasRequiredSummarySections" (2026.9 also
// "extractPendingAskSection" | "resolveQualityGuardMaxRetries" | "formatRequiredAskContext"), "args": [...]}]};
// an `auditSummaryQuality` argument's null fields are left out (undefined). stdout: the results, in order.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { extract } from "./bundle_extract.mjs";
import { lookup } from "./oc_2026_9_call.mjs";

const dist = process.argv[2];
const uniqueStrings = await lookup("string-normalization", "uniqueStrings");
const extractKeywords = await lookup("query-expansion", "extractKeywords");
const isQueryStopWordToken = await lookup("query-expansion", "isQueryStopWordToken");
const truncateUtf16Safe = await lookup("utf16-slice", "truncateUtf16Safe");
const sliceUtf16Safe = await lookup("utf16-slice", "sliceUtf16Safe");
const bundle = readdirSync(dist).find((f) => /^builtin-openclaw-.{8}\.mjs$/.test(f) && readFileSync(join(dist, f), "utf8").includes("function auditSummaryQuality("));
const lines = readFileSync(join(dist, bundle), "utf8").split("\n");
const NAMES = [
  "MAX_EXTRACTED_IDENTIFIERS", "MAX_ASK_OVERLAP_TOKENS", "MIN_ASK_OVERLAP_TOKENS_FOR_DOUBLE_MATCH", "REQUIRED_SUMMARY_SECTIONS",
  "LATEST_USER_REQUEST_CONTEXT_LABEL", "normalizedSummaryLines", "hasRequiredSummarySections", "extractPendingAskSection",
  "formatLatestUserRequestContext", "extractLeadingPendingAsk", "isEmptyPendingAsk", "sanitizeExtractedIdentifier",
  "isPureHexIdentifier", "normalizeOpaqueIdentifier", "summaryIncludesIdentifier", "extractOpaqueIdentifiers",
  "tokenizeAskOverlapText", "resolveAskOverlapRequirement", "hasAskOverlap", "auditSummaryQuality",
  "DEFAULT_QUALITY_GUARD_MAX_RETRIES", "MAX_QUALITY_GUARD_MAX_RETRIES", "clampNonNegativeInt", "resolveQualityGuardMaxRetries",
  "MAX_REQUIRED_ASK_CONTEXT_CHARS", "REQUIRED_ASK_CONTEXT_TRUNCATED_MARKER", "formatRequiredAskContext",
];
const NAMES_2026_4 = [
  "MAX_EXTRACTED_IDENTIFIERS", "MAX_ASK_OVERLAP_TOKENS", "MIN_ASK_OVERLAP_TOKENS_FOR_DOUBLE_MATCH", "REQUIRED_SUMMARY_SECTIONS",
  "normalizedSummaryLines", "hasRequiredSummarySections", "sanitizeExtractedIdentifier", "isPureHexIdentifier",
  "normalizeOpaqueIdentifier", "summaryIncludesIdentifier", "extractOpaqueIdentifiers", "tokenizeAskOverlapText", "hasAskOverlap",
  "auditSummaryQuality",
];

function lift(text, names, extra = []) {
  const fns = new Function(
    "uniqueStrings", "extractKeywords", "isQueryStopWordToken", "localeLowercasePreservingWhitespace", "truncateUtf16Safe", "sliceUtf16Safe",
    `${extract(text.split("\n"), names)}\nreturn { extractOpaqueIdentifiers, hasAskOverlap, auditSummaryQuality, hasRequiredSummarySections, ${extra.join(", ")} };`,
  )(uniqueStrings, extractKeywords, isQueryStopWordToken, (value) => value.toLocaleLowerCase(), truncateUtf16Safe, sliceUtf16Safe);
  fns.extractKeywords = (query) => extractKeywords(query);
  const audit = fns.auditSummaryQuality;
  fns.auditSummaryQuality = (params) => audit(Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null)));
  return fns;
}

const payload = JSON.parse(readFileSync(0, "utf8"));
const releases = {
  "2026.9": lift(lines.join("\n"), NAMES, ["extractPendingAskSection", "resolveQualityGuardMaxRetries", "formatRequiredAskContext"]),
};
if (payload.dist_2026_4) {
  const old = readdirSync(payload.dist_2026_4).find((f) => f.endsWith(".js") && readFileSync(join(payload.dist_2026_4, f), "utf8").includes("function auditSummaryQuality("));
  releases["2026.4"] = lift(readFileSync(join(payload.dist_2026_4, old), "utf8"), NAMES_2026_4);
}
process.stdout.write(JSON.stringify(payload.jobs.map((job) => releases[job.release][job.fn](...job.args))));
