"""The demo session's turn-by-turn script (`inspector.samples.demo.build_demo_session` runs it in order): Mara's
morning with her OpenClaw agent on `lumen-api`, its compaction and its abandoned branch (see `inspector.samples.demo`)."""

from __future__ import annotations

import json
import random
from typing import Any

from inspector.js.jsjson import js_stringify
from inspector.js.timeutil import iso_from_ms
from inspector.samples.demo_compaction import format_file_ops, pi_file_ops, pi_find_cut_point, pi_tokens_before
from inspector.samples.demo_text import (
    AGENTS_MD,
    BRANCH_SUMMARY,
    COMPACTION_HISTORY,
    COMPACTION_TURN_PREFIX,
    DESIGN_DOC,
    IOREDIS_INTRO,
    IOREDIS_SECTIONS,
    MEMORY_NOTE,
    README_MD,
    RG_WINDOW_START,
    WORDS,
    WORKSPACE,
    aria_snapshot,
    chart_png,
    grep_output,
    ident,
    jest_log,
    jest_spec,
    jest_test_name,
    k6_json,
    k6_report,
    locale_json,
    redis_info,
    screenshot_png,
    ts_source,
    v8_profile,
    web_doc_page,
    zh_wiki_page,
)
from inspector.samples.demo_tools import DemoTools
from inspector.samples.fixtures import SessionBuilder

KEEP_RECENT_TOKENS = 20_000  # pi DEFAULT_COMPACTION_SETTINGS.keepRecentTokens


def _p(rel: str) -> str:
    return f"projects/lumen-api/{rel}"


# ====================================================================================================================
# The storyline


def bootstrap_and_first_turns(b: SessionBuilder, t: DemoTools, rng: random.Random) -> None:
    b.header(cwd=WORKSPACE)
    b.model_change("anthropic", "claude-sonnet-4-5")
    b.thinking_level_change("low")
    b.custom("model-snapshot", {"timestamp": b.now_ms, "provider": "anthropic", "modelApi": "anthropic-messages",
                                "modelId": "claude-sonnet-4-5"})
    # Session startup: OpenClaw's startup instruction rides in the system prompt, so the reads come before any user message.
    t.step(t.think("New session. Startup sequence: AGENTS.md, then today's and yesterday's memory notes."),
           t.read("AGENTS.md", AGENTS_MD), t.read("memory/2026-01-01.md", MEMORY_NOTE))
    b.assistant("Morning, Mara — back at it. Yesterday's notes say the flaky rate-limiter test in lumen-api is first up. "
                "Want me to start there?")
    b.wait(94_000)

    # Turn 1: orientation
    b.user("Hey — picking lumen-api up again after the break. Get me oriented: read the README and the rate limiter, "
           "and run the test suite so we know where we are.")
    limiter_src = ts_source(rng, "src/middleware/rateLimiter.ts", 6_500, [
        "const windowStart = Date.now();",
        "const counters = new Map<string, number[]>();",
        "",
        "export function rateLimiter(opts: RateLimiterOptions) {",
        "  return (req: Request, res: Response, next: NextFunction) => hit(req, res, next, opts);",
        "}",
    ])
    t.step(t.think("Read README and the limiter first, then run the suite. The suite takes ~40 s."),
           t.read(_p("README.md"), README_MD), t.read(_p("src/middleware/rateLimiter.ts"), limiter_src))
    log1 = jest_log(rng, 20, {"rateLimiter › sliding window resets after ttl":
                              "expect(received).toBe(expected) // Object.is equality\n\n    Expected: 5\n    Received: 4"})
    t.step("Now the test suite.", t.exec("npm test 2>&1 | tail -n 400", log1, code=1, ms=41_700))
    first_run_end = b.assistant(
        "Where things stand:\n\n"
        "- **Suite:** one failure — the known flaky one, `rateLimiter › sliding window resets after ttl` "
        "(expected 5 remaining, got 4).\n"
        "- **Limiter:** `src/middleware/rateLimiter.ts` keeps sliding-window counters in a per-process `Map`. With 6 pods "
        "behind the load balancer the effective limit is 6× the configured one, and every rollout resets it.\n"
        "- **README** documents `RATE_LIMIT_STORE=memory|redis`, but only `memory` is implemented.\n\n"
        "Suggest: fix the flaky test first (it's a timing bug, I think), then the Redis store.")
    b.cache_ttl()
    b.custom("openclaw:bootstrap-context:full", {"timestamp": b.now_ms, "runId": b.new_uuid(), "sessionId": b.session_id})
    b.session_info("lumen-api: flaky limiter → Redis")
    del first_run_end
    b.wait(260_000)

    # Turn 2: the flaky test (redacted thinking)
    b.user("The flaky one is `rateLimiter.spec.ts › sliding window resets after ttl`. Dig into why it only fails on CI.")
    spec_src = jest_spec(rng, "rateLimiter", 7_000)
    t.step(b.thinking(redacted=True),
           t.exec("rg -n \"Date.now\\(\\)|windowStart\" src/middleware", RG_WINDOW_START, ms=90),
           t.read(_p("src/middleware/__tests__/rateLimiter.spec.ts"), spec_src))
    t.step(t.think("windowStart is captured once when the module loads. With jest fake timers installed in beforeEach, "
                   "the module-level Date.now() predates the fake clock on CI where module loading is slower, so the "
                   "first window is shorter by the load time. Read the clock per request instead."),
           "Found it: `windowStart` is computed from `Date.now()` at module load, before jest installs fake timers. "
           "On CI the import takes long enough that the first window is shorter than `windowMs`.",
           t.edit(_p("src/middleware/rateLimiter.ts"), "const windowStart = Date.now();",
                  "const now = opts.now ?? Date.now;\n  const windowStart = now();", 41))
    log2 = jest_log(rng, 1, seconds=3.2)
    t.step(t.exec("for i in $(seq 1 200); do npx jest rateLimiter.spec.ts --silent || break; done; echo done",
                  "done\n" + log2, ms=212_000))
    b.assistant("Fixed. The limiter now reads the clock per request (`opts.now ?? Date.now`), so fake timers control it. "
                "200/200 runs pass locally with `--runInBand`. ✅")
    b.cache_ttl()
    b.wait(420_000)

    # Turn 3: an image from the user
    b.user(["Here's the Grafana panel from prod on Dec 30 — the 429 spike at 02:10 lines up with the 2.14.0 deploy. "
            "Same bug, or something else? Also, is there a good write-up on Redis sliding windows you trust?",
            b.image(chart_png(rng, 160, 80, spike_at=0.62))])
    page = web_doc_page(rng, 10_000, fetched_at=iso_from_ms(b.now_ms + 1_900))
    t.step(t.think("The spike starts right at the rollout and decays over ~10 minutes: counters reset per pod, then "
                   "refill. Fetch the write-up on Redis sliding windows for the sliding-log design."),
           t.web_fetch("https://engineering.example.com/redis-rate-limits", page))
    b.assistant("Different bug from the flaky test, same root: the spike starts exactly at the rollout and decays over "
                "~10 minutes — each new pod starts with empty counters, so clients get a fresh quota per pod. "
                "The write-up's **sliding log in a sorted set, run as one Lua script** fixes both problems "
                "(shared counters, exact window). It also recommends `redis.call('TIME')` as the clock. 📈")
    b.cache_ttl()
    b.wait(610_000)


def redis_and_i18n_turns(b: SessionBuilder, t: DemoTools, rng: random.Random) -> None:
    # Turn 4: the Redis limiter
    b.user("Let's do the proper fix: a Redis-backed limiter with a Lua script, same `rateLimiter()` API. Write it.")
    pkg = json.dumps({"name": "lumen-api", "version": "2.14.0", "private": True,
                    "scripts": {"dev": "tsx watch src/server.ts", "build": "tsc -p .", "test": "jest --runInBand",
                                "lint": "eslint . && prettier -c .", "loadtest": "k6 run loadtest/ratelimit.js"},
                    "dependencies": {"express": "^4.21.2", "ioredis": "^5.4.1", "pino": "^9.5.0", "pg": "^8.13.1",
                                     "bullmq": "^5.34.0", "helmet": "^8.0.0", "zod": "^3.24.1"},
                    "devDependencies": {"jest": "^29.7.0", "ts-jest": "^29.2.5", "typescript": "^5.6.3",
                                        "tsx": "^4.19.2", "eslint": "^9.17.0", "prettier": "^3.4.2"}},
                     indent=2) + "\n"
    t.step(t.think("ioredis is already a dependency (session store). Check package.json, then write the module."),
           t.read(_p("package.json"), pkg))
    redis_limiter = ts_source(rng, "src/middleware/redisRateLimiter.ts", 7_600)
    t.step("Writing the Redis limiter and its tests.",
           t.write(_p("src/middleware/redisRateLimiter.ts"), redis_limiter),
           t.write(_p("src/middleware/__tests__/redisRateLimiter.spec.ts"), jest_spec(rng, "redisRateLimiter", 5_200)))
    log4 = jest_log(rng, 10)
    t.step(t.exec("npm test 2>&1 | tail -n 300", log4, ms=44_100))
    t.step(t.edit(_p("src/middleware/rateLimiter.ts"),
                  "export function rateLimiter(opts: RateLimiterOptions) {",
                  "export function rateLimiter(opts: RateLimiterOptions) {\n"
                  "  if (config.rateLimitStore === 'redis') return redisRateLimiter(opts);", 12))
    b.assistant("Done: `src/middleware/redisRateLimiter.ts` (sorted-set sliding log in one Lua script, clock from "
                "`TIME`, `Retry-After` from the oldest member) behind `RATE_LIMIT_STORE=redis`. All suites pass.")
    b.cache_ttl()
    b.wait(380_000)

    # Turn 5: CJK
    b.user("Nice. Also add zh-CN and ja translations for the 429 error body. 顺便把 README 里的配置说明也更新一下，"
           "写清楚 RATE_LIMIT_STORE 的两个取值 🙏")
    t.step(t.think("Localise the rate_limited message; keep the {seconds} placeholder. Update README config table."),
           t.read(_p("locales/en.json"), locale_json("en")))
    t.step(t.write(_p("locales/zh-CN.json"), locale_json("zh-CN")), t.write(_p("locales/ja.json"), locale_json("ja")),
           t.edit(_p("README.md"), "| `RATE_LIMIT_STORE` | `memory` | `memory` or `redis` |",
                  "| `RATE_LIMIT_STORE` | `memory` | `memory`: per-process counters (dev/tests only); "
                  "`redis`: shared sliding window, required in production |", 44))
    b.assistant("好了 ✅\n\n- `locales/zh-CN.json`: 「请求过于频繁，请在 {seconds} 秒后重试。」\n"
                "- `locales/ja.json`: 「リクエストが多すぎます。{seconds} 秒後に再試行してください。」\n"
                "- README 的配置表已更新：`memory` 仅用于开发和测试，生产环境必须使用 `redis`。")
    b.cache_ttl()
    b.wait(240_000)

    # Turn 6: lint + load test
    b.user("Run lint and the k6 load test against a local 3-pod setup.")
    lint = "\n".join(f"{_p('src')}/{ident(rng, 2)}.ts\n  {rng.randint(1, 300)}:{rng.randint(1, 80)}  warning  "
                     f"Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any" for _ in range(26))
    t.step(t.exec("npm run lint", lint + "\n\n✖ 26 problems (0 errors, 26 warnings)\n", ms=9_400))
    t.step(t.exec("docker compose -f loadtest/compose.yml up -d --scale api=3 && npm run loadtest",
                  k6_report(rng, 6), ms=131_000))
    b.assistant("Lint: 0 errors, 26 `no-explicit-any` warnings (pre-existing). k6 with 3 pods: 429s now start exactly "
                "at the configured limit, p95 latency +0.4 ms for the EVALSHA round trip.")
    b.cache_ttl()
    b.wait(300_000)


def profiling_turn(b: SessionBuilder, t: DemoTools, rng: random.Random) -> None:
    b.thinking_level_change("high")
    b.user("Profile the Redis path under that load and tell me where the time goes. Write the findings to "
           "docs/perf/ratelimit-2026-01.md.")
    t.step(t.think("Start with the raw k6 results from the last run, then Redis-side numbers (INFO commandstats), "
                   "then a CPU profile of one pod under load."),
           t.read(_p("loadtest/results/summary.json"), k6_json(rng, 26_000)))
    t.step(t.exec("redis-cli -p 6380 INFO all", redis_info(rng, 12), ms=60))
    t.step(t.think("evalsha ~2 us/call server-side, so the cost is client-side. Profile one pod with --prof."),
           t.exec("node --prof dist/server.js & sleep 90; kill %1; node --prof-process isolate-*.log > /tmp/prof.txt; "
                  "wc -l /tmp/prof.txt", "271 /tmp/prof.txt\n", ms=96_000))
    t.step(t.read("/tmp/prof.txt", v8_profile(rng, 60)))
    t.step(t.think("71% of limiter ticks are in the EVALSHA round trip and ioredis reply parsing; check how the "
                   "client is created in server.ts (shared connection with sessions?)."),
           t.read(_p("src/server.ts"), ts_source(rng, "src/server.ts", 11_500)))
    t.step(t.exec("npx autocannon -c 200 -d 30 http://localhost:8080/v1/search?q=lamp",
                  k6_report(rng, 4), ms=31_000))
    findings = ("# Rate limiter profile (January 2026)\n\n"
                "- Redis: EVALSHA 1.9 µs/call server-side; no rejected calls.\n"
                "- Node: 71% of limiter time is the EVALSHA round trip, 12% ioredis reply parsing.\n"
                "- The limiter shares the session store's connection; under load its commands queue behind "
                "session writes. Use a dedicated connection with `enableOfflineQueue: false`.\n")
    t.step(t.write("projects/lumen-api/docs/perf/ratelimit-2026-01.md", findings))
    b.assistant("Findings written to `docs/perf/ratelimit-2026-01.md`. Short version: Redis itself is fast (1.9 µs per "
                "EVALSHA); the time goes into the network round trip and ioredis parsing, and the limiter shares the "
                "session connection so it queues behind session writes. A dedicated connection should cut p95 by half.")
    b.cache_ttl()
    b.wait(1_500_000)


def compact(b: SessionBuilder) -> str:
    path = b.path()
    cut, turn_start = pi_find_cut_point(path, 0, len(path), KEEP_RECENT_TOKENS)
    first_kept = path[cut]
    if first_kept["type"] != "message" or first_kept["message"]["role"] != "assistant" or turn_start < 0:
        raise AssertionError("the demo's compaction must cut inside a turn, at an assistant message")
    end = turn_start
    summarized = [e["message"] for e in path[:end] if e["type"] == "message"]
    prefix = [e["message"] for e in path[turn_start:cut] if e["type"] == "message"]
    ops = pi_file_ops(summarized + prefix)
    summary = (COMPACTION_HISTORY + "\n\n---\n\n**Turn Context (split turn):**\n\n" + COMPACTION_TURN_PREFIX
               + format_file_ops(ops))
    b.wait(40_000)
    return b.compaction(summary, first_kept["id"], pi_tokens_before(path), details=ops, from_hook=False)


def after_compaction(b: SessionBuilder, t: DemoTools, rng: random.Random) -> None:
    # Turn 8: recap
    b.user("I compacted — quick recap of where we are and what's left?")
    b.assistant("Where we are: flaky test fixed, Redis sliding-window limiter in place behind `RATE_LIMIT_STORE=redis`, "
                "429 body localised (en, zh-CN, ja), load test exact, profile done. Left: a dedicated Redis connection "
                "with reconnect/backoff and an in-memory fallback, then the PR and the design doc.")
    fork_point = b.cache_ttl()
    b.wait(200_000)

    # Turn 9 (abandoned): swap the client library
    b.user("Before that — try replacing ioredis with node-redis v5. One less dependency would be nice.")
    t.step(t.think("node-redis v5: createClient(), scripts via client.evalSha. The session store uses ioredis options."),
           t.exec("npm uninstall ioredis && npm i redis@5",
                  "\n".join(f"npm warn deprecated {ident(rng, 2)}@{rng.randint(1, 9)}.{rng.randint(0, 20)}.0: "
                            f"{' '.join(rng.choice(WORDS) for _ in range(8))}" for _ in range(12))
                  + "\n\nadded 4 packages, removed 11 packages, and audited 612 packages in 6s\n\nfound 0 vulnerabilities\n",
                  ms=6_200))
    redis_lib = ts_source(rng, "src/lib/redis.ts", 2_400)
    t.step(t.write(_p("src/lib/redis.ts"), redis_lib), t.edit(_p("package.json"), '"ioredis": "^5.4.1"', '"redis": "^5.0.1"', 19))
    fails = {f"redisRateLimiter › {jest_test_name(rng)} #{n}":
             "ErrorReply: NOSCRIPT No matching script. Please use EVAL." for n in range(1, 10)}
    t.step(t.exec("npm test 2>&1 | tail -n 300", jest_log(rng, 12, fails), code=1, ms=39_800))
    b.assistant("node-redis v5 breaks the limiter: 9 failures, all `NOSCRIPT` — v5 throws `ErrorReply` with a different "
                "shape, so our reload-on-NOSCRIPT path never runs. `connect-redis` also expects ioredis options. "
                "Fixable, but it's a day of work for one dependency. I'd stay on ioredis.")
    b.cache_ttl()
    abandoned = b.leaf_id
    b.wait(150_000)

    # Back to the fork point with a summary of the abandoned branch (pi /tree navigation with summarization)
    branch_msgs: list[dict[str, Any]] = []
    for e in b.path(abandoned):
        if e["id"] == fork_point:
            branch_msgs = []
        elif e["type"] == "message":
            branch_msgs.append(e["message"])
    ops = pi_file_ops(branch_msgs)
    summary = ("The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
               + BRANCH_SUMMARY + format_file_ops(ops))
    b.branch_summary(fork_point, summary, details=ops, from_hook=False)

    # Turn 9': resilience
    b.user("Agreed, stay on ioredis (pin 5.4). Give the limiter its own connection with reconnect/backoff and a circuit "
           "breaker that falls back to the in-memory limiter.")
    limiter_v2 = ts_source(rng, "src/middleware/redisRateLimiter.ts", 16_500, [
        "import { sharedRedis } from '../lib/redis';", "", "const redis = sharedRedis;"])
    t.step(t.think("Dedicated connection: enableOfflineQueue false, retryStrategy min(50*2^n, 2000). Breaker: 3 failures "
                   "-> open, 30 s -> half-open probe."),
           t.read(_p("src/middleware/redisRateLimiter.ts"), limiter_v2))
    t.step(t.edit(_p("src/middleware/redisRateLimiter.ts"), "const redis = sharedRedis;",
                  "const redis = new Redis(config.redisUrl, {\n    enableOfflineQueue: false,\n"
                  "    retryStrategy: (n) => Math.min(50 * 2 ** n, 2000),\n  });\nconst breaker = new CircuitBreaker({ "
                  "failures: 3, coolDownMs: 30_000 });", 18),
           t.write(_p("src/middleware/circuitBreaker.ts"), ts_source(rng, "src/middleware/circuitBreaker.ts", 2_600, [
               "export class CircuitBreaker {", "  snapshot() {", "    const snapshot = structuredClone(this.state);",
               "    return snapshot;", "  }", "}"])),
           t.write(_p("src/middleware/__tests__/circuitBreaker.spec.ts"), jest_spec(rng, "circuitBreaker", 4_800)))
    t.step(t.exec("npm test 2>&1 | tail -n 300", jest_log(rng, 26), ms=45_300))
    b.assistant("Done: the limiter has its own ioredis connection (`enableOfflineQueue: false`, capped exponential "
                "backoff) and a circuit breaker (3 failures → in-memory fallback with `max / pods`, probe every 30 s). "
                "All 26 suites pass.")
    b.cache_ttl()
    b.wait(330_000)

    # Turn 10: docs page
    b.user("Check the ioredis docs on `enableOfflineQueue` and `maxRetriesPerRequest` — do we need both?")
    ioredis_url = "https://docs.example.com/ioredis/connection-handling"
    t.step(t.web_fetch(ioredis_url, web_doc_page(rng, 36_000, url=ioredis_url, intro=IOREDIS_INTRO, sections=IOREDIS_SECTIONS,
                                                 title="Connection handling: offline queue, retries and reconnection",
                                                 fetched_at=iso_from_ms(b.now_ms + 1_200))))
    b.assistant("Both, for different reasons: `enableOfflineQueue: false` makes commands fail fast while disconnected "
                "(the breaker then takes over); `maxRetriesPerRequest: 1` bounds how long a command waits when the "
                "socket drops mid-flight. I've noted both for the design doc.")
    b.cache_ttl()
    b.wait(260_000)

    # Turn 10b: a Chinese wiki page (CJK-heavy tool result)
    b.user("深圳团队之前写过一份限流设计文档，帮我读一下，看看和我们的方案有没有冲突。")
    t.step(t.think("Fetch the internal wiki page and compare: algorithm, clock source, fallback, metrics."),
           t.web_fetch("https://wiki.lumen.internal/zh/infra/ratelimit-design", zh_wiki_page(rng, 22_000, fetched_at=iso_from_ms(b.now_ms + 1_500))))
    b.assistant("读完了，整体上没有冲突，而且思路高度一致 👍\n\n"
                "1. **算法**：他们也选了「滑动日志 + Lua 脚本」，和我们的 `redisRateLimiter` 完全相同。\n"
                "2. **时钟**：同样使用 Redis `TIME`，避免宿主机时钟漂移。\n"
                "3. **降级**：他们是连续失败后熔断、额度按实例数折算，和我们的熔断器参数几乎一样（我们是 3 次 / 30 秒）。\n"
                "4. **差异**：他们额外上报 `ratelimit.fallback` 指标并配置了告警——建议我们也加上，我可以在 PR 里补。\n\n"
                "另外文档提到主从切换后需要重新加载脚本（NOSCRIPT），我们已经处理了。")
    b.cache_ttl()
    b.wait(320_000)


def pr_ci_and_docs(b: SessionBuilder, t: DemoTools, rng: random.Random) -> None:
    # Turn 11: status update (delivery mirror) + PR
    b.user("Post a short status update in #lumen-dev, then open the PR.")
    note = ("Rate limiter update: limits now shared across pods via Redis (exact sliding window), 429 body in en/zh-CN/ja, "
            "fallback to in-memory if Redis is down. PR coming in a minute. 🚀")
    call, result = t.message({"action": "send", "channel": "slack", "target": "#lumen-dev", "message": note},
                             js_stringify({"ok": True, "messageId": "1767352112.004900", "channel": "C07LUMENDEV"}))
    aid = b.assistant([t.think("Keep it short per AGENTS.md."), call])
    b.delivery_mirror(note)
    b.tool_result(call["id"], call["name"], **result)
    git = ("[mara/redis-rate-limiter 4f7c2e1] Move rate limiter to Redis sliding window\n"
           " 14 files changed, 1186 insertions(+), 97 deletions(-)\n"
           " create mode 100644 src/middleware/redisRateLimiter.ts\n"
           " create mode 100644 locales/zh-CN.json\n create mode 100644 locales/ja.json\n")
    t.step(t.exec("git checkout -b mara/redis-rate-limiter && git add -A && git commit -m "
                  "'Move rate limiter to Redis sliding window'", git, ms=900),
           t.exec("git push -u origin mara/redis-rate-limiter && gh pr create --fill",
                  "https://github.com/lumen-hq/lumen-api/pull/418\n", ms=4_100))
    pr_done = b.assistant("Posted in #lumen-dev and opened **#418** "
                          "(https://github.com/lumen-hq/lumen-api/pull/418) from `mara/redis-rate-limiter`.")
    b.cache_ttl()
    b.label(pr_done, "PR #418 opened")
    del aid
    b.wait(540_000)

    # Turn 12: CI failure, via the browser (tool-result image)
    b.user("CI is red on #418. Open the run in the browser and tell me what failed.")
    t.step(t.browser({"action": "open", "targetUrl": "https://github.com/lumen-hq/lumen-api/actions/runs/12637720418"},
                     js_stringify({"ok": True, "targetId": "7F3A2C", "url": "https://github.com/lumen-hq/lumen-api/actions/runs/12637720418"}),
                     ms=2_300))
    t.step(t.browser({"action": "snapshot", "targetId": "7F3A2C"}, aria_snapshot(rng, 190), ms=1_200))
    shot = b.image(screenshot_png(rng, 160, 96))
    t.step(t.think("The snapshot shows the failing step; grab a screenshot for Mara."),
           t.browser({"action": "screenshot", "targetId": "7F3A2C"},
                     ["Screenshot of https://github.com/lumen-hq/lumen-api/actions/runs/12637720418 (viewport)", shot],
                     details={"path": "/home/mara/.openclaw/media/browser/7F3A2C-1767352890.png"}, ms=800))
    b.assistant("Only the **Node 18** job fails: `ReferenceError: structuredClone is not defined` in "
                "`circuitBreaker.spec.ts`. jest's node environment on 18 doesn't expose `structuredClone`; Node 20 passes.")
    b.cache_ttl()
    b.wait(190_000)

    # Turn 13: fix CI
    b.thinking_level_change("medium")
    b.user("Fix it without dropping Node 18.")
    t.step(t.read(_p("jest.config.ts"), "import type { Config } from 'jest';\n\nconst config: Config = {\n  preset: 'ts-jest',\n"
                                         "  testEnvironment: 'node',\n  setupFiles: ['<rootDir>/test/setup.ts'],\n};\n\n"
                                         "export default config;\n"),
           t.edit(_p("src/middleware/circuitBreaker.ts"), "const snapshot = structuredClone(this.state);",
                  "const snapshot = { ...this.state, failures: [...this.state.failures] };", 57))
    t.step(t.exec("npx -p node@18 npm test 2>&1 | tail -n 200", jest_log(rng, 26, seconds=48.2), ms=49_000),
           t.exec("git commit -am 'circuitBreaker: avoid structuredClone (Node 18)' && git push",
                  "[mara/redis-rate-limiter 9b1d0aa] circuitBreaker: avoid structuredClone (Node 18)\n"
                  " 1 file changed, 1 insertion(+), 1 deletion(-)\n", ms=3_300))
    b.assistant("Replaced `structuredClone` with a plain copy (the state is flat), suite passes on Node 18 locally, "
                "pushed — CI is re-running.")
    b.cache_ttl()
    b.wait(700_000)

    # Turn 14: design doc (CJK in a write)
    b.user("CI is green. Write docs/rate-limiting.md with the design — English, plus a short Chinese summary at the end "
           "for the Shenzhen team.")
    t.step(t.think("Re-read the final limiter and breaker so the doc matches the code."),
           t.read(_p("src/middleware/redisRateLimiter.ts"), ts_source(rng, "src/middleware/redisRateLimiter.ts", 18_500)),
           t.read(_p("src/middleware/circuitBreaker.ts"), ts_source(rng, "src/middleware/circuitBreaker.ts", 8_200, [
               "export class CircuitBreaker {", "  snapshot() {",
               "    const snapshot = { ...this.state, failures: [...this.state.failures] };", "    return snapshot;",
               "  }", "}"])))
    t.step(t.think("Sections: summary, algorithm, failure handling, performance, 中文摘要."),
           t.write(_p("docs/rate-limiting.md"), DESIGN_DOC))
    b.assistant("Written `docs/rate-limiting.md` (summary, algorithm, failure handling, performance, 中文摘要) and "
                "added it to the PR.")
    b.cache_ttl()
    b.wait(280_000)

    # Turn 15: leftovers
    b.user("Last thing: find any other code still constructing the old in-memory limiter directly.")
    t.step(t.exec("rg -n \"createMemoryLimiter\\(\" src test", grep_output(rng, "createMemoryLimiter", 95), ms=140))
    b.assistant("95 call sites construct `createMemoryLimiter(...)` directly — mostly per-route limiters in `src/routes` "
                "and `src/jobs`. They bypass `RATE_LIMIT_STORE`, so they are still per-pod. I'd migrate them in a "
                "follow-up PR: it's mechanical (swap to `rateLimiter(...)`), and I can do it next session.")
    b.cache_ttl()
