// Write a Gateway log with OpenClaw 2026.9.6's own logger (dist logger-*.mjs, subsystem-*.mjs): the pre-prompt
// precheck through `formatPrePromptPrecheckLog`, tool-loop aborts through `logToolLoopAction`, and the other
// session diagnostics (whose texts are built inline in the dist) through a subsystem logger, as the runner logs
// them. Reads {file, maxFileBytes, key, sessionId, events: [...]} on stdin; prints the default rolling paths the
// logger resolves for the given profiles. Usage: node oc_2026_9_gateway_log.mjs DIST_DIR < payload.json
import { readFileSync } from "node:fs";
import { lookup } from "./oc_2026_9_call.mjs";

const p = JSON.parse(readFileSync(0, "utf8"));
const setLoggerOverride = await lookup("logger", "setLoggerOverride");
const flushLogger = await lookup("logger", "flushLogger");
const resolveConfiguredLogFilePath = await lookup("logger", "resolveConfiguredLogFilePath");
const createSubsystemLogger = await lookup("subsystem", "createSubsystemLogger");
const formatPrePromptPrecheckLog = await lookup("settled-turn-finalization-result", "formatPrePromptPrecheckLog");
const logToolLoopAction = await lookup("diagnostic", "logToolLoopAction");

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true; // the console copy of each record: only the JSON answer goes to stdout
setLoggerOverride({ level: "debug", file: p.file, maxFileBytes: p.maxFileBytes });
const log = createSubsystemLogger("agent/embedded");
for (const e of p.events) {
  if (e.kind === "precheck") log.debug(formatPrePromptPrecheckLog({ ...e.params, sessionKey: p.key, sessionId: p.sessionId }));
  else if (e.kind === "loop") logToolLoopAction({ ...e.params, sessionKey: p.key, sessionId: p.sessionId });
  else log[e.level](e.text);
  await new Promise((resolve) => setTimeout(resolve, 3));
}
await flushLogger();
const paths = {};
for (const profile of p.profiles) {
  paths[profile] = resolveConfiguredLogFilePath(undefined, {
    date: new Date(2026, 0, 2, 12), env: { OPENCLAW_PROFILE: profile }, logDir: "/logs",
  });
}
write(JSON.stringify({ paths }));
