"""Deterministic texts for the demo session and the benchmark generator: realistic tool output, workspace files, docs.

Generators take a seeded `random.Random` and return text (`ts_source`, `jest_spec`, `jest_log`, `redis_info`,
`v8_profile`, `k6_report`, `k6_json`, `grep_output`, `aria_snapshot`, `web_doc_page`, `zh_wiki_page`) or a base64 PNG
(`chart_png`, `screenshot_png`); the same rng state always gives the same text. The hand-written texts (`AGENTS_MD`,
`README_MD`, `DESIGN_DOC`, `COMPACTION_HISTORY`, `BRANCH_SUMMARY`, `locale_json(lang)`, ...) belong to the demo's
story (`inspector.samples.demo`). `bench/generate.py` slices big pools of generated text and reuses the two summaries.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from inspector.js.jsjson import js_len, js_stringify
from inspector.samples.png import png_base64

WORKSPACE = "/home/mara/.openclaw/workspace"
PROJECT = f"{WORKSPACE}/projects/lumen-api"


# ====================================================================================================================
# Generators (realistic tool output)

WORDS = (
    "limit window bucket token request client key store redis cache ttl reset burst quota header retry route handler "
    "middleware session user tenant plan metric counter latency error queue worker job payload config option"
).split()
_ROUTES = ("/v1/search", "/v1/items", "/v1/items/:id", "/v1/orders", "/v1/orders/:id/refund", "/v1/auth/token",
           "/v1/users/me", "/v1/uploads", "/v1/webhooks/stripe", "/v1/reports/daily", "/healthz", "/v1/tenants/:id/plan")


_BEHAVIOURS = (
    "allows requests under the limit", "rejects the request once max is reached", "sets Retry-After from the oldest entry",
    "resets the window after windowMs", "keys by tenant id when authenticated", "falls back to memory when redis is down",
    "reloads the script on NOSCRIPT", "returns 429 with a localised body", "ignores OPTIONS preflight requests",
    "shares counters across instances", "expires idle keys", "uses the redis clock", "propagates the request id to logs",
    "paginates results with a cursor", "validates the payload with zod", "returns 404 for unknown ids",
    "refunds only captured orders", "rejects expired tokens", "retries webhooks with backoff", "streams the daily report",
    "caches search results for 30 seconds", "redacts secrets from error responses", "closes the pool on shutdown",
)
_CONDITIONS = ("", "", " for anonymous clients", " with a custom keyGenerator", " under concurrent requests",
               " behind a proxy", " on the enterprise plan", " after a deploy", " with fake timers", " in dry-run mode")


def jest_test_name(rng: random.Random) -> str:
    """A jest test title such as `rejects the request once max is reached for anonymous clients`."""
    return rng.choice(_BEHAVIOURS) + rng.choice(_CONDITIONS)


def ident(rng: random.Random, parts: int = 2) -> str:
    """A camelCase identifier of `parts` domain words, e.g. `bucketRetry`."""
    words = [rng.choice(WORDS) for _ in range(parts)]
    return words[0] + "".join(w.capitalize() for w in words[1:])


def ts_source(rng: random.Random, module: str, target_chars: int, lines: Sequence[str] = ()) -> str:
    """A plausible TypeScript module of about `target_chars` characters, containing `lines` after the imports."""
    out = [
        f"// {module}",
        "import type { Request, Response, NextFunction } from 'express';",
        "import { logger } from '../lib/logger';",
        "import { metrics } from '../lib/metrics';",
        "import { config } from '../config';",
        "",
        *lines,
        "",
    ]
    n = 0
    while sum(len(line) + 1 for line in out) < target_chars:
        n += 1
        name = ident(rng, 3)
        iface = name[0].upper() + name[1:] + "Options"
        fields = [(ident(rng, 2), rng.choice(("number", "string", "boolean", "string[]", "Date | null")))
                  for _ in range(rng.randint(2, 5))]
        out.append(f"export interface {iface} {{")
        out += [f"  /** {rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} used by {name}. */\n  {f}: {t};"
                for f, t in fields]
        out.append("}")
        out.append("")
        arg = fields[0][0]
        out.append(f"export function {name}(req: Request, opts: {iface}): number {{")
        out.append(f"  const key = `${{config.keyPrefix}}:${{req.ip}}:{rng.choice(_ROUTES)}`;")
        out.append("  const now = Date.now();")
        for _ in range(rng.randint(2, 6)):
            v = ident(rng, 2)
            out.append(f"  const {v} = Math.max(0, opts.{arg} ? {rng.randint(1, 900)} : now % {rng.randint(50, 5000)});")
            out.append(f"  if ({v} > {rng.randint(10, 500)}) {{")
            out.append(f"    logger.debug({{ key, {v} }}, '{rng.choice(WORDS)} {rng.choice(WORDS)} over threshold');")
            out.append(f"    metrics.increment('ratelimit.{rng.choice(WORDS)}.{rng.choice(WORDS)}');")
            out.append("  }")
        out.append(f"  return now - {rng.randint(100, 60000)};")
        out.append("}")
        out.append("")
    return "\n".join(out) + "\n"


def jest_spec(rng: random.Random, subject: str, target_chars: int) -> str:
    """A jest spec file about `subject`."""
    out = [
        f"import {{ {subject} }} from '../src/middleware/{subject}';",
        "import { createRedisMock } from './helpers/redis';",
        "",
        f"describe('{subject}', () => {{",
        "  beforeEach(() => {",
        "    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });",
        "  });",
        "",
        "  afterEach(() => jest.useRealTimers());",
        "",
    ]
    while sum(len(line) + 1 for line in out) < target_chars - 10:
        out.append(f"  it('{jest_test_name(rng)}', async () => {{")
        out.append(f"    const limiter = {subject}({{ windowMs: {rng.choice((1000, 60000, 900000))}, max: {rng.randint(2, 100)} }});")
        for _ in range(rng.randint(2, 5)):
            out.append(f"    await limiter.hit('{rng.choice(('1.2.3.4', '10.0.0.7', '::1', 'tenant-42'))}');")
        out.append(f"    jest.advanceTimersByTime({rng.randint(1, 120000)});")
        out.append(f"    expect(await limiter.remaining('{rng.choice(('1.2.3.4', '::1'))}')).toBe({rng.randint(0, 99)});")
        out.append("  });")
        out.append("")
    out.append("});")
    return "\n".join(out) + "\n"


def jest_log(rng: random.Random, suites: int, failing: dict[str, str] | None = None, *, seconds: float = 41.7) -> str:
    """Output of `npm test` (jest) with `suites` suites; `failing` maps test names to an error message."""
    failing = failing or {}
    out = ["", "> lumen-api@2.14.0 test", "> jest --runInBand --verbose", ""]
    total = passed = 0
    fail_names = list(failing)
    dirs = ("middleware", "routes", "lib", "services", "jobs", "models")
    for s in range(suites):
        path = f"src/{rng.choice(dirs)}/__tests__/{ident(rng, 2)}.spec.ts"
        suite_fails = [fail_names.pop()] if fail_names and (s % 7 == 3 or s == suites - 1) else []
        out.append(f"{'FAIL' if suite_fails else 'PASS'} {path} ({rng.uniform(0.3, 6.5):.3f} s)")
        out.append(f"  {ident(rng, 2)}")
        for _ in range(rng.randint(4, 14)):
            total += 1
            passed += 1
            out.append(f"    ✓ {jest_test_name(rng)} ({rng.randint(1, 240)} ms)")
        for name in suite_fails:
            total += 1
            out.append(f"    ✕ {name} ({rng.randint(5, 5200)} ms)")
        out.append("")
        for name in suite_fails:
            out += [
                f"  ● {name}",
                "",
                f"    {failing[name]}",
                "",
                f"      {rng.randint(20, 140)} |     jest.advanceTimersByTime(windowMs + 1);",
                f"    > {rng.randint(20, 140)} |     expect(await limiter.remaining(ip)).toBe(max);",
                "         |                                        ^",
                "",
                f"      at Object.<anonymous> ({path}:{rng.randint(20, 140)}:{rng.randint(5, 50)})",
                "",
            ]
    failed = total - passed
    out += [
        f"Test Suites: {'%d failed, ' % sum(1 for _ in failing) if failing else ''}{suites - len(failing)} passed, {suites} total",
        f"Tests:       {'%d failed, ' % failed if failed else ''}{passed} passed, {total} total",
        "Snapshots:   0 total",
        f"Time:        {seconds:.3f} s",
        "Ran all test suites.",
    ]
    return "\n".join(out) + "\n"


def redis_info(rng: random.Random, sections: int = 9) -> str:
    """`redis-cli INFO` output."""
    names = ("Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats",
             "Cluster", "Keyspace", "Commandstats")
    keys = ("connected_clients", "blocked_clients", "used_memory", "used_memory_rss", "mem_fragmentation_ratio",
            "total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec", "keyspace_hits",
            "keyspace_misses", "evicted_keys", "expired_keys", "rejected_connections", "latest_fork_usec",
            "used_cpu_sys", "used_cpu_user", "rdb_changes_since_last_save", "aof_enabled", "maxmemory_policy")
    out = []
    for name in names[:sections]:
        out.append(f"# {name}")
        for _ in range(rng.randint(10, 24)):
            k = rng.choice(keys)
            v = rng.choice((str(rng.randint(0, 10**7)), f"{rng.uniform(0, 300):.2f}", "allkeys-lru", "0", "1"))
            out.append(f"{k}:{v}")
        if name == "Commandstats":
            for cmd in ("evalsha", "get", "incr", "pexpire", "zadd", "zremrangebyscore", "zcard", "ping"):
                calls = rng.randint(10**4, 10**7)
                out.append(f"cmdstat_{cmd}:calls={calls},usec={calls * rng.randint(1, 9)},"
                           f"usec_per_call={rng.uniform(0.5, 9):.2f},rejected_calls=0,failed_calls={rng.randint(0, 40)}")
        out.append("")
    return "\r\n".join(out)


def v8_profile(rng: random.Random, rows: int) -> str:
    """`node --prof-process` output (statistical profile)."""
    ticks = rng.randint(40000, 90000)
    out = [f"Statistical profiling result from isolate-0x{rng.getrandbits(40):010x}-{rng.randint(1000, 99999)}-v8.log, "
           f"({ticks} ticks, {rng.randint(100, 900)} unaccounted, 0 excluded).", "", " [Shared libraries]:",
           "   ticks  total  nonlib   name"]
    for lib in ("/usr/bin/node", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"):
        out.append(f"  {rng.randint(100, 9000):6d}  {rng.uniform(0, 20):4.1f}%          {lib}")
    for section in ("JavaScript", "C++", "Summary", "Bottom up (heavy) profile"):
        out += ["", f" [{section}]:", "   ticks  total  nonlib   name"]
        for _ in range(rows):
            fn = ident(rng, rng.randint(2, 3))
            where = rng.choice(("node_modules/ioredis/built/Redis.js", "node_modules/express/lib/router/index.js",
                                "dist/middleware/redisRateLimiter.js", "node:internal/streams/writable",
                                "node_modules/ioredis/built/Pipeline.js", "dist/lib/metrics.js"))
            kind = rng.choice(("JS: *", "JS: ~", "JS: ^", "Builtin:", "Function:"))
            url = where if where.startswith("node:") else f"file://{PROJECT}/{where}"
            out.append(f"  {rng.randint(1, 4000):6d}  {rng.uniform(0, 9):4.1f}%  {rng.uniform(0, 11):4.1f}%  "
                       f"{kind} {fn} {url}:{rng.randint(1, 900)}:{rng.randint(1, 80)}")
    return "\n".join(out) + "\n"


def k6_report(rng: random.Random, scenarios: int) -> str:
    """A k6 load-test report."""
    out = ["", "          /\\      |‾‾| /‾‾/   /‾‾/   ", "     /\\  /  \\     |  |/  /   /  /    ",
           "    /  \\/    \\    |     (   /   ‾‾\\  ", "   /          \\   |  |\\  \\ |  (‾)  | ",
           "  / __________ \\  |__| \\__\\ \\_____/ .io", "",
           "  execution: local", "     script: loadtest/ratelimit.js", "     output: -", ""]
    for s in range(scenarios):
        route = rng.choice(_ROUTES)
        out += [f"  scenario {s + 1}: {rng.randint(50, 400)} looping VUs for 2m0s (gracefulStop: 30s) on {route}", ""]
        for metric in ("http_req_blocked", "http_req_connecting", "http_req_duration", "http_req_receiving",
                       "http_req_sending", "http_req_waiting", "iteration_duration"):
            vals = sorted(rng.uniform(0.01, 250) for _ in range(5))
            out.append(f"     {metric:.<28}: avg={vals[2]:.2f}ms min={vals[0]:.2f}ms med={vals[1]:.2f}ms "
                       f"max={vals[4]:.2f}ms p(90)={vals[3]:.2f}ms p(95)={vals[4] * 0.97:.2f}ms")
        reqs = rng.randint(10**4, 10**6)
        limited = rng.randint(0, reqs // 5)
        out += [f"     http_reqs....................: {reqs}  {reqs / 120:.3f}/s",
                f"     http_req_failed..............: {100 * limited / reqs:.2f}% ✓ {limited} ✗ {reqs - limited}",
                f"     checks.......................: {100 - 100 * limited / reqs:.2f}% ✓ {reqs - limited} ✗ {limited}",
                f"     ratelimit_429................: {limited}", ""]
    return "\n".join(out) + "\n"


def k6_json(rng: random.Random, target_chars: int) -> str:
    """k6's `--summary-export` JSON (pretty-printed), about `target_chars` long."""
    lines = ["{", '  "root_group": {', '    "name": "",', '    "path": "",', '    "checks": [']
    n = 0
    while sum(len(x) + 1 for x in lines) < target_chars - 400:
        n += 1
        route = rng.choice(_ROUTES)
        passes = rng.randint(10**3, 10**6)
        lines += ["      {", f'        "name": "status is 200 or 429 ({route} #{n})",',
                  f'        "path": "::status is 200 or 429 ({route} #{n})",', f'        "id": "{rng.getrandbits(128):032x}",',
                  f'        "passes": {passes},', f'        "fails": {rng.randint(0, passes // 50)}', "      },"]
    lines[-1] = "      }"
    lines += ["    ]", "  },", '  "metrics": {']
    for metric in ("http_req_duration", "http_req_waiting", "iteration_duration"):
        vals = sorted(rng.uniform(0.05, 300) for _ in range(5))
        lines.append(f'    "{metric}": {{ "avg": {vals[2]:.4f}, "min": {vals[0]:.4f}, "med": {vals[1]:.4f}, '
                     f'"max": {vals[4]:.4f}, "p(90)": {vals[3]:.4f}, "p(95)": {vals[4] * 0.98:.4f} }},')
    lines[-1] = lines[-1].rstrip(",")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def grep_output(rng: random.Random, pattern: str, hits: int) -> str:
    """`grep -rn PATTERN src test` output."""
    out = []
    for _ in range(hits):
        path = f"src/{rng.choice(('routes', 'middleware', 'services', 'jobs', 'lib'))}/{ident(rng, 2)}.ts"
        out.append(f"{path}:{rng.randint(1, 400)}:  const limiter = {pattern}({{ windowMs: {rng.choice((1000, 60000))}, "
                   f"max: {rng.randint(5, 500)}, keyGenerator: (req) => req.{rng.choice(('ip', 'user.id', 'tenantId'))} }});")
    return "\n".join(out) + "\n"


def _ci_line(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return f"PASS src/{rng.choice(('routes', 'middleware', 'lib'))}/__tests__/{ident(rng, 2)}.spec.ts ({rng.uniform(0.2, 6):.2f} s)"
    if kind == 1:
        return f"added {rng.randint(400, 900)} packages, and audited {rng.randint(900, 1300)} packages in {rng.randint(5, 40)}s"
    if kind == 2:
        return f"npm warn deprecated {ident(rng, 2).lower()}@{rng.randint(1, 9)}.{rng.randint(0, 12)}.0: this package is no longer supported"
    if kind == 3:
        return f"✓ {jest_test_name(rng)} ({rng.randint(1, 300)} ms)"
    if kind == 4:
        return f"##[group]Run {rng.choice(('npm ci', 'npm test -- --ci', 'npm run build', 'actions/cache@v4'))}"
    return f"Downloading {rng.choice(('node-v18.20.5-linux-x64.tar.xz', 'redis:7-alpine', 'postgres:16'))} ({rng.randint(20, 90)} MB)"


def aria_snapshot(rng: random.Random, rows: int) -> str:
    """An OpenClaw browser `snapshot` (ARIA tree with refs) of a CI run page."""
    out = ['- document "CI · lumen-api · Pull request #418" [ref=e1]', '  - banner [ref=e2]',
           '    - link "lumen-api" [ref=e3]', '  - main [ref=e4]', '    - heading "test (node 18.x)" [level=1] [ref=e5]']
    ref = 6
    for i in range(rows):
        step = rng.choice(("Run npm ci", "Run npm test", "Set up job", "Run actions/checkout@v4", "Post Run actions/setup-node@v4"))
        out.append(f'    - button "{step}" [expanded={str(i % 9 == 0).lower()}] [ref=e{ref}]')
        ref += 1
        out.append(f'      - log [ref=e{ref}]')
        ref += 1
        for _ in range(rng.randint(1, 3)):
            out.append(f'        - text: "{rng.randint(1, 999)} {_ci_line(rng)}"')
    out.append('    - text: "ReferenceError: structuredClone is not defined"')
    out.append(f'    - link "Re-run jobs" [ref=e{ref}]')
    return "\n".join(out) + "\n"


def chart_png(rng: random.Random, width: int, height: int, spike_at: float) -> str:
    """A small line-chart PNG (base64): a noisy baseline with one spike, like a Grafana panel."""
    palette = [(22, 23, 29), (44, 46, 56), (115, 191, 105), (242, 73, 92), (204, 204, 220)]
    px = [[0] * width for _ in range(height)]
    for y in range(0, height, 10):
        px[y] = [1] * width
    level = height * 0.75
    for x in range(width):
        level += rng.uniform(-1.2, 1.2)
        spike = max(0.0, 1 - abs(x / width - spike_at) * 14) * height * 0.6
        y = int(min(height - 2, max(1, level - spike)))
        colour = 3 if spike > 2 else 2
        for yy in range(y, min(height, y + 2)):
            px[yy][x] = colour
    return png_base64(width, height, px, palette)


def screenshot_png(rng: random.Random, width: int, height: int) -> str:
    """A small 'screenshot' PNG: header bar, log lines and one red error line."""
    palette = [(255, 255, 255), (36, 41, 47), (246, 248, 250), (208, 215, 222), (207, 34, 46), (31, 136, 61)]
    px = [[0] * width for _ in range(height)]
    for y in range(height):
        for x in range(width):
            if y < 12:
                px[y][x] = 1
            elif x < 40:
                px[y][x] = 2
            elif y % 6 == 0 and x < 40 + rng.randint(40, width - 44):
                px[y][x] = 4 if height - 30 < y < height - 20 else (5 if y < 30 else 3)
    return png_base64(width, height, px, palette)


# ====================================================================================================================
# Hand-written texts (workspace files, docs, summaries)

AGENTS_MD = """# AGENTS.md - Workspace Operating Rules

This folder is home. Treat it that way.

## Session Startup
Before doing anything else:
1. Read `SOUL.md` — this is who you are
2. Read `USER.md` — this is who you're helping
3. Read `memory/YYYY-MM-DD.md` (today + yesterday) for recent context

Don't ask permission. Just do it.

## Memory
- Daily notes: `memory/YYYY-MM-DD.md` — raw logs of what happened
- Long-term: `MEMORY.md` — curated decisions, preferences, lessons
- If you learn something worth keeping, write it down. "Mental notes" don't survive a restart.

## Red Lines
- Don't exfiltrate private data. Ever.
- Don't run destructive commands without asking (`rm -rf`, `git push --force`, dropping tables).
- `trash` > `rm` (recoverable beats gone forever)
- When in doubt, ask.

## Projects
- `projects/lumen-api` — the public API (TypeScript, Express 4, PostgreSQL 16, Redis 7). Tests: `npm test`.
  CI runs on Node 18 and 20. Never commit to `main` directly; open a PR from a `mara/*` branch.
- `projects/lumen-web` — the dashboard (Next.js). Read-only unless asked.

## Group Chats
You have access to Mara's Slack. Post in `#lumen-dev` only when asked, keep it short, no walls of logs.

## Tools
- Prefer `rg` over `grep -r` for big trees.
- Long-running commands: use `exec` with `yieldMs` and poll with `process`.
- Browser: the `openclaw` profile is logged into GitHub and Grafana.
"""

MEMORY_NOTE = """# 2026-01-01

- Mara back from the holidays on Jan 2. First thing: the flaky rate-limiter test in lumen-api
  (`sliding window resets after ttl`) — fails ~1 in 6 runs on CI, never locally.
- Ops saw a burst of 429s on Dec 30 around 02:10 UTC right after deploy 2.14.0. Suspect the in-memory limiter:
  each of the 6 pods keeps its own counters, so limits are 6x too loose and reset on every rollout.
- Idea (Mara): move the limiter to Redis (we already run Redis 7 for sessions). Keep the API of
  `rateLimiter()` so routes don't change.
- Translation backlog: 429 error body still English-only; support asked for zh-CN and ja first.
"""

README_MD = """# lumen-api

The public HTTP API behind Lumen (search, items, orders, reports). Node 20, TypeScript 5.6, Express 4.

## Quick start

```bash
cp .env.example .env          # DATABASE_URL, REDIS_URL, JWT_SECRET
docker compose up -d postgres redis
npm ci
npm run migrate
npm run dev                   # http://localhost:8080
```

## Layout

| Path | What |
|---|---|
| `src/server.ts` | app wiring: helmet, cors, body limits, request ids, routes, error handler |
| `src/routes/` | one router per resource (`items.ts`, `orders.ts`, `search.ts`, ...) |
| `src/middleware/rateLimiter.ts` | per-client request limits (sliding window) |
| `src/middleware/auth.ts` | JWT + API keys; sets `req.user` and `req.tenantId` |
| `src/lib/` | logger (pino), metrics (StatsD), db pool, redis client |
| `src/jobs/` | BullMQ workers: report generation, webhook retries |
| `locales/` | error message catalogues (`en.json`; more to come) |
| `loadtest/` | k6 scripts |

## Rate limiting

Every route is wrapped in `rateLimiter({ windowMs, max, keyGenerator })`. The default key is the client IP; authenticated
routes use `req.user.id`, tenant-wide limits use `req.tenantId`. When a client exceeds its limit the API answers
`429 Too Many Requests` with a `Retry-After` header and a JSON body:

```json
{ "error": "rate_limited", "message": "Too many requests, please retry in 12 seconds.", "retryAfter": 12 }
```

Limits per plan live in `src/config/limits.ts`:

| Plan | Window | Max requests |
|---|---|---|
| free | 60 s | 60 |
| team | 60 s | 600 |
| enterprise | 60 s | 6000 |

Configuration:

| Variable | Default | Meaning |
|---|---|---|
| `RATE_LIMIT_ENABLED` | `true` | turn limiting off (tests, local load tests) |
| `RATE_LIMIT_STORE` | `memory` | `memory` or `redis` |
| `RATE_LIMIT_PREFIX` | `rl` | Redis key prefix |
| `TRUST_PROXY` | `1` | hops to trust for `req.ip` behind the load balancer |

## Testing

`npm test` runs jest in band (the Redis-backed tests share one container). `npm run test:watch` for TDD,
`npm run lint` for eslint + prettier, `npm run loadtest` for the k6 smoke test against a local server.

## Deploying

Merges to `main` build an image and roll out to staging; production deploys are tagged releases (`v2.14.0`).
Six pods behind the load balancer; Redis 7 (single primary, one replica) is shared with the session store.
"""

WEB_DOC_INTRO = """# Rate limiting with Redis: sliding windows that survive deploys

Fixed-window counters are easy: `INCR key; EXPIRE key 60`. They are also wrong at the edges. A client can send the
whole quota in the last second of one window and again in the first second of the next, doubling its effective rate.
Sliding windows fix that by looking at the last N milliseconds, whatever the wall clock says.

This guide walks through three designs, measures them, and ends with the one we recommend for APIs that run on more
than one process: a sorted-set window updated atomically by a Lua script.
"""

WEB_DOC_SECTIONS = (
    ("Why in-process counters break", """An in-memory limiter keeps its counters in the heap of one Node.js process. Behind a load balancer each
process sees only its share of the traffic, so a limit of 60 requests per minute becomes 60 x N, where N is the
number of processes, and every rolling deploy resets all counters at once. Both effects are invisible in unit
tests, which run one process, and obvious in production graphs: a burst right after each deploy, then a slow
return to normal as counters fill up again."""),
    ("Design 1: fixed window in Redis", """Store one counter per client and window: `rl:{client}:{floor(now / windowMs)}`. Increment it and set the
expiry on first use. It is cheap (one round trip with a pipeline) and shared by every process, but it keeps the
edge problem described above. It is a fine choice for coarse quotas (per day, per month)."""),
    ("Design 2: sliding log in a sorted set", """Keep one sorted set per client whose members are request ids and whose scores are timestamps. For each request:
remove members older than `now - windowMs` (`ZREMRANGEBYSCORE`), count the rest (`ZCARD`), and add the new request
(`ZADD`) if the count is below the limit. Set `PEXPIRE` so idle clients disappear. Done as separate commands this has
a race: two processes can both read 59 and both add. Run the steps in one Lua script and Redis executes them
atomically."""),
    ("Design 3: sliding window counter", """Approximate the sliding log with two fixed windows: the current count plus the previous window's count weighted
by how much of it still overlaps the sliding window. Memory is constant per client and accuracy is within a few
percent for smooth traffic. It under-counts sharp bursts at window boundaries, which matters for abuse protection
and not much for fair-use quotas."""),
    ("Clock skew and the Retry-After header", """Never compute `now` in the application when several hosts share the counters: use `redis.call('TIME')` inside the
script so every decision uses the same clock. Derive `Retry-After` from the oldest member still in the window:
`ceil((oldest + windowMs - now) / 1000)` seconds. Clients that respect it spread their retries naturally."""),
    ("Failure modes", """Decide what happens when Redis is unreachable. Failing closed (rejecting every request) turns a cache outage into
an API outage. Failing open (allowing everything) removes abuse protection exactly when the system is stressed.
The usual compromise is a circuit breaker: after a few consecutive Redis errors, fall back to a per-process
in-memory limiter with a proportionally smaller limit, and probe Redis again after a cool-down."""),
    ("Measuring", """We ran each design against a three-node API fleet with k6, 400 virtual users, and a limit of 600 requests per minute
per tenant. The fixed window let through 11% more requests than allowed at window edges. The sliding log was exact
and added 0.4 ms p95 latency per request (one EVALSHA round trip). The sliding window counter was within 2% and
added 0.3 ms. Memory per active client: 64 bytes (fixed), 40 bytes per request in the window (log), 96 bytes
(counter)."""),
)

COMPACTION_HISTORY = """## Goal
Fix the flaky rate-limiter test in `projects/lumen-api`, then replace the per-pod in-memory limiter with a shared Redis
sliding-window limiter without changing the `rateLimiter()` API, localise the 429 body, and measure the result.

## Constraints & Preferences
- Keep `rateLimiter({ windowMs, max, keyGenerator })` unchanged so routes don't need edits.
- Use the existing Redis 7 (shared with sessions); key prefix from `RATE_LIMIT_PREFIX` (default `rl`).
- Never commit to `main`; PRs from `mara/*` branches. Post in `#lumen-dev` only when asked.
- User writes partly in Chinese; zh-CN and ja translations first.

## Progress
### Done
- [x] Root cause of the flaky test `sliding window resets after ttl`: `rateLimiter.ts` compared `Date.now()` captured at
  module load with jest fake timers; fixed by reading the clock per request (`now()` injected), test passes 200/200.
- [x] Confirmed with the Grafana 429 panel that the Dec 30 02:10 spike is the per-pod counters resetting on rollout.
- [x] New `src/middleware/redisRateLimiter.ts`: sorted-set sliding log in one Lua script (`ZREMRANGEBYSCORE`, `ZCARD`,
  `ZADD`, `PEXPIRE`), `redis.call('TIME')` as the clock, `Retry-After` from the oldest member.
- [x] `locales/zh-CN.json`, `locales/ja.json` with `rate_limited` messages; README configuration section updated.
- [x] Full suite green, lint clean (26 pre-existing warnings), k6 with 3 pods: exact limits, +0.4 ms p95.

### In Progress
- [ ] Profiling the Redis path under load (see split-turn context below).

### Blocked
- (none)

## Key Decisions
- **Sliding log over sliding-window counter**: exact limits matter for the abuse case; memory is fine at our volumes.
- **Clock from Redis `TIME`**: six pods, no trust in host clocks.

## Next Steps
1. Finish the profile and write up findings.
2. Add reconnect/backoff and an in-memory fallback (circuit breaker).
3. Open the PR, then the design doc.

## Critical Context
- Flaky test: `src/middleware/__tests__/rateLimiter.spec.ts` › `sliding window resets after ttl`.
- Lua script SHA is loaded at startup with `SCRIPT LOAD`; `NOSCRIPT` errors trigger a reload."""

COMPACTION_TURN_PREFIX = """## Original Request
Profile the Redis limiter under the k6 load (400 VUs) and tell me where the time goes; write the findings to
`docs/perf/ratelimit-2026-01.md`.

## Early Progress
- Read the raw k6 results (`loadtest/results/summary.json`): every check passes, 429s start exactly at the limit;
  p95 of `http_req_waiting` is where the extra latency shows up.

## Context for Suffix
- Next: Redis-side numbers (`INFO commandstats`), a `node --prof` CPU profile of one pod, `src/server.ts` (how the
  Redis client is created), autocannon against `/v1/search`, then the findings doc."""

BRANCH_SUMMARY = """## Goal
Replace `ioredis` with `node-redis` v5 in `projects/lumen-api` to drop a dependency.

## Progress
### Done
- [x] `npm i redis@5 && npm uninstall ioredis`; rewrote `src/lib/redis.ts` with `createClient()`.

### Blocked
- `redisRateLimiter.spec.ts`: 9 failures. node-redis v5 returns `EVALSHA` replies as typed values and throws
  `ErrorReply: NOSCRIPT` in a different shape; the reload-on-NOSCRIPT path never triggers. Session store
  (`connect-redis`) also pins ioredis-compatible options.

## Key Decisions
- **Abandoned**: the migration costs more than the dependency it removes. Stay on ioredis 5.4."""

DESIGN_DOC = """# Rate limiting in lumen-api

Status: implemented in #418 (January 2026). Owner: Mara.

## Summary
Requests are limited per client with an exact sliding window stored in Redis. Every pod shares the same counters,
so limits no longer multiply with the number of pods or reset on deploy. If Redis is unavailable the limiter falls
back to a per-pod in-memory window with `max / pods` requests, and probes Redis again after 30 seconds.

## Algorithm
One sorted set per key (`rl:{keyGenerator(req)}`), members = request ids, scores = Redis `TIME` in ms.
The Lua script removes members older than the window, counts the rest, adds the request if under the limit and
refreshes `PEXPIRE`. It returns `{allowed, remaining, oldestScore}`; `Retry-After` = `ceil((oldest + windowMs - now) / 1000)`.

## Failure handling
- `NOSCRIPT`: reload the script (`SCRIPT LOAD`) and retry once.
- Connection errors: ioredis reconnects with capped exponential backoff (50 ms .. 2 s); after 3 consecutive failures the
  circuit opens and the in-memory fallback takes over; a half-open probe every 30 s closes it again.
- `enableOfflineQueue: false` for the limiter connection so requests never wait on a dead socket.

## Performance
k6, 400 VUs, 2 minutes, 3 pods: limits exact to the request; +0.4 ms p95 per request; Redis CPU 6%.
The profile shows 71% of limiter time in the EVALSHA round trip and 12% in ioredis reply parsing.

## 中文摘要
本服务的限流已从每个 Pod 的内存计数器迁移到 Redis 中的精确滑动窗口（有序集合 + Lua 脚本，原子执行）。
所有 Pod 共享同一计数，因此限额不会随 Pod 数量放大，也不会在发布时被重置。Redis 不可用时自动降级为本地内存限流
（额度按 Pod 数量折算），并每 30 秒探测一次 Redis 恢复情况。429 响应体已提供英文、简体中文和日文版本。
"""


ZH_WIKI_SECTIONS = (
    ("背景", "深圳团队负责的 {svc} 在 {month} 月的大促期间多次出现限流失效：同一租户在不同 Pod 上各自计数，"
             "实际放行的请求数达到配置值的 {x} 倍。发布时所有 Pod 重启，计数清零，造成一波瞬时流量冲击下游数据库。"),
    ("目标", "一、限流结果在所有实例之间一致；二、单次判定的额外延迟 p99 不超过 {ms} 毫秒；三、Redis 故障时服务不能整体不可用；"
             "四、对业务代码零侵入，路由层的中间件接口保持不变。"),
    ("方案对比", "固定窗口实现最简单，但在窗口边界会放行接近两倍的请求；滑动日志精确，但每个请求占用一条有序集合成员；"
                 "滑动窗口计数器内存恒定，精度在 {x}% 以内。综合考虑，{svc} 采用滑动日志 + Lua 脚本的方式，保证原子性。"),
    ("时钟", "所有判定统一使用 Redis 的 TIME 命令作为时间来源，避免各宿主机时钟漂移。压测中我们观察到两台宿主机之间最大"
             "相差 {ms} 毫秒，如果使用本地时间，窗口边界会出现明显抖动。"),
    ("降级策略", "连续 {n} 次访问 Redis 失败后熔断器打开，回退到本地内存限流，额度按实例数折算（max / 实例数）；"
                 "{n}0 秒后进入半开状态，放行一次探测请求，成功则恢复。降级期间每分钟上报一次告警，避免刷屏。"),
    ("监控指标", "需要关注的指标包括：ratelimit.allowed、ratelimit.rejected、ratelimit.fallback、ratelimit.redis_latency_ms。"
                 "其中 fallback 大于零即说明熔断器已经打开，值班同学应在 {n} 分钟内确认 Redis 状态。"),
    ("压测结果", "在 {n} 个实例、{vu} 个虚拟用户的压测中，精确限流的误差为 0，单次判定增加 {ms} 毫秒延迟，Redis CPU 占用约 {x}%。"
                 "与旧方案相比，发布期间的 429 尖峰完全消失。"),
    ("已知问题", "Lua 脚本在 Redis 主从切换后需要重新加载，客户端收到 NOSCRIPT 错误时应自动执行 SCRIPT LOAD 并重试一次；"
                 "另外，有序集合的键需要设置过期时间，否则长时间不活跃的客户端会一直占用内存。"),
)


def zh_wiki_page(rng: random.Random, target_chars: int, fetched_at: str = "2026-01-02T10:19:03.448Z") -> str:
    """An internal wiki page in Chinese, as `web_fetch` returns it (pretty JSON with the markdown in `text`)."""
    services = ("订单服务", "搜索服务", "支付网关", "消息推送", "报表服务", "用户中心")
    body = ["# 限流设计说明（深圳团队）", "> 本文档记录各服务限流方案的演进、压测数据和值班手册。最后更新：2025 年 12 月。"]
    i = 0
    while sum(len(p) for p in body) < target_chars * 0.92:
        title, template = ZH_WIKI_SECTIONS[i % len(ZH_WIKI_SECTIONS)]
        svc = services[(i // len(ZH_WIKI_SECTIONS)) % len(services)]
        if i % len(ZH_WIKI_SECTIONS) == 0:
            body.append(f"## {i // len(ZH_WIKI_SECTIONS) + 1}. {svc}")
        body.append(f"### {title}")
        body.append(template.format(svc=svc, month=rng.randint(1, 12), x=rng.randint(2, 9), ms=rng.randint(1, 15),
                                    n=rng.randint(3, 6), vu=rng.choice((200, 400, 800))))
        if i % 3 == 2:
            rows = [f"| {metric} | {rng.randint(10, 900)} | {rng.randint(0, 90)} |"
                    for metric in ("放行误差", "p99 延迟（毫秒）", "内存占用（MB）", "发布期间 429 次数")]
            body.append("| 指标 | 旧方案 | 新方案 |\n|---|---|---|\n" + "\n".join(rows))
        i += 1
    markdown = "\n\n".join(body)
    payload = {
        "url": "https://wiki.lumen.internal/zh/infra/ratelimit-design",
        "finalUrl": "https://wiki.lumen.internal/zh/infra/ratelimit-design",
        "status": 200,
        "contentType": "text/html; charset=utf-8",
        "title": "限流设计说明（深圳团队）",
        "extractMode": "markdown",
        "extractor": "readability",
        "truncated": False,
        "length": js_len(markdown),
        "fetchedAt": fetched_at,
        "tookMs": 388,
        "text": "<<<EXTERNAL_UNTRUSTED_CONTENT>>>\nSource: Web Fetch\n---\n" + markdown + "\n<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>",
    }
    return _pretty_json(payload)


RG_WINDOW_START = """src/middleware/rateLimiter.ts:7:const windowStart = Date.now();
src/middleware/rateLimiter.ts:52:    if (Date.now() - windowStart > opts.windowMs) {
src/middleware/rateLimiter.ts:58:      resetAt: windowStart + opts.windowMs,
src/middleware/rateLimiter.ts:91:  const elapsed = Date.now() - windowStart;
src/middleware/__tests__/rateLimiter.spec.ts:6:    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
"""


def locale_json(lang: str) -> str:
    """`locales/<lang>.json`: the error message catalogue (pretty JSON, 2 spaces)."""
    msgs = {
        "en": {"rate_limited": "Too many requests, please retry in {seconds} seconds.",
               "unauthorized": "Missing or invalid credentials.", "forbidden": "You don't have access to this resource.",
               "not_found": "Not found.", "payload_too_large": "Request body exceeds {limit}.",
               "validation_failed": "The request is invalid: {details}", "conflict": "The resource was modified concurrently.",
               "internal": "Something went wrong on our side. Request id: {requestId}"},
        "zh-CN": {"rate_limited": "请求过于频繁，请在 {seconds} 秒后重试。", "unauthorized": "缺少凭据或凭据无效。",
                  "forbidden": "您无权访问此资源。", "not_found": "未找到。", "payload_too_large": "请求体超过 {limit}。",
                  "validation_failed": "请求无效：{details}", "conflict": "资源已被并发修改。",
                  "internal": "服务器内部错误。请求 ID：{requestId}"},
        "ja": {"rate_limited": "リクエストが多すぎます。{seconds} 秒後に再試行してください。",
               "unauthorized": "認証情報がないか無効です。", "forbidden": "このリソースへのアクセス権がありません。",
               "not_found": "見つかりません。", "payload_too_large": "リクエスト本文が {limit} を超えています。",
               "validation_failed": "リクエストが無効です: {details}", "conflict": "リソースが同時に変更されました。",
               "internal": "サーバー内部エラーが発生しました。リクエスト ID: {requestId}"},
    }[lang]
    lines = ["{", '  "errors": {']
    items = list(msgs.items())
    for i, (k, v) in enumerate(items):
        lines.append(f'    "{k}": {js_stringify(v)}' + ("," if i < len(items) - 1 else ""))
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


OPTION_ROWS = (
    ("windowMs", "60000", "Length of the sliding window in milliseconds."),
    ("max", "60", "Requests allowed per key within one window."),
    ("keyPrefix", '"rl"', "Prefix for every Redis key the limiter writes."),
    ("keyGenerator", "req => req.ip", "Derives the client key from the request (IP, user id, tenant id)."),
    ("skipFailedRequests", "false", "Do not count responses with status >= 400."),
    ("standardHeaders", "true", "Send `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`."),
    ("retryAfter", "true", "Send `Retry-After` (seconds) with 429 responses."),
    ("failOpen", "false", "Allow requests when the store is unreachable instead of rejecting them."),
    ("enableOfflineQueue", "true", "Queue commands while the connection is down (ioredis)."),
    ("maxRetriesPerRequest", "20", "Give up on a command after this many reconnection attempts (ioredis)."),
    ("connectTimeout", "10000", "Milliseconds before an initial connection attempt fails."),
    ("commandTimeout", "null", "Reject a command that has not been answered after this many milliseconds."),
    ("retryStrategy", "times => min(times * 50, 2000)", "Delay before the next reconnection attempt; return null to stop."),
    ("reconnectOnError", "null", "Reconnect (and optionally resend) when a reply matches, e.g. READONLY after failover."),
    ("autoResubscribe", "true", "Re-issue SUBSCRIBE after reconnecting."),
    ("lazyConnect", "false", "Connect on the first command instead of at construction."),
)

IOREDIS_INTRO = """# Connection handling: offline queue, retries and reconnection

A client connection to Redis can drop at any time: failovers, network blips, a restarted container. What your
application sees in that moment depends on three options that interact: the offline queue, the per-command retry
limit and the reconnection strategy.
"""

IOREDIS_SECTIONS = (
    ("The offline queue", """While the client is not connected, commands are queued in memory and sent once the connection is back
(`enableOfflineQueue: true`, the default). That hides short outages, but a request handler awaiting such a command
waits for as long as the outage lasts. For latency-sensitive paths such as rate limiting, disable the queue on a
dedicated connection: commands then fail immediately with `Stream isn't writeable and enableOfflineQueue options
is false`, and the caller can fall back."""),
    ("Per-command retries", """A command that was sent but not answered when the socket closed is retried after reconnecting, up to
`maxRetriesPerRequest` times (20 by default). Each retry waits for a reconnection, so the worst case is the sum of
the retry delays. Set it to 1 or 0 where a fast failure is worth more than eventual success."""),
    ("Reconnection strategy", """`retryStrategy(times)` returns the delay in milliseconds before the next attempt, or a non-number to stop
reconnecting. A capped exponential backoff (`Math.min(50 * 2 ** times, 2000)`) recovers quickly from blips without
hammering a server that is restarting."""),
    ("Scripts after a failover", """A promoted replica does not know the scripts loaded on the old primary. `EVALSHA` then answers `NOSCRIPT`;
load the script again with `SCRIPT LOAD` and retry once. Defining commands with `defineCommand` does this for you."""),
    ("Observability", """Listen to `error`, `reconnecting` and `ready` events and export them as metrics. A rising reconnect rate is
usually the first visible symptom of an overloaded or misconfigured Redis."""),
)


def web_doc_page(rng: random.Random, target_chars: int, *, url: str = "https://engineering.example.com/redis-rate-limits",
                 title: str = "Rate limiting with Redis: sliding windows that survive deploys",
                 intro: str = WEB_DOC_INTRO, sections: Sequence[tuple[str, str]] = WEB_DOC_SECTIONS,
                 fetched_at: str = "2026-01-02T08:58:41.713Z") -> str:
    """A docs page as OpenClaw's `web_fetch` returns it: a pretty JSON payload whose `text` is the page as markdown."""
    body = [intro]
    i = 0
    while sum(len(p) for p in body) < target_chars * 0.8:
        heading, text = sections[i % len(sections)]
        body.append(f"## {heading}" + (f" (part {i // len(sections) + 1})" if i >= len(sections) else ""))
        body.append(text)
        rows = rng.sample(OPTION_ROWS, rng.randint(4, 8))
        body.append("| Option | Default | Description |\n|---|---|---|\n"
                    + "\n".join(f"| `{name}` | `{default}` | {desc} |" for name, default, desc in rows))
        i += 1
    markdown = "\n\n".join(body)
    payload = {
        "url": url,
        "finalUrl": url,
        "status": 200,
        "contentType": "text/html",
        "title": title,
        "extractMode": "markdown",
        "extractor": "readability",
        "truncated": False,
        "length": js_len(markdown),
        "fetchedAt": fetched_at,
        "tookMs": 400 + rng.randrange(800),
        "text": "<<<EXTERNAL_UNTRUSTED_CONTENT>>>\nSource: Web Fetch\n---\n" + markdown + "\n<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>",
    }
    return _pretty_json(payload)


def _pretty_json(obj: dict) -> str:
    # JSON.stringify(obj, null, 2) for a flat object of scalars.
    return "{\n" + ",\n".join(f"  {js_stringify(k)}: {js_stringify(v)}" for k, v in obj.items()) + "\n}"
