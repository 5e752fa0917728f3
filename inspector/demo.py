"""The bundled demo session: a deterministic, realistic OpenClaw coding session on an Anthropic model.

`build_demo_session()` renders it (no clock, no unseeded randomness); `demo_session_path()` is the copy shipped in the
package. `python -m inspector.demo --write` regenerates the shipped file; a test checks that both agree.

The story: Mara asks her OpenClaw agent to fix a flaky rate limiter in `lumen-api`, move it to Redis, localise the 429
body (zh-CN, ja), profile it, compact, try and abandon a client-library swap (a sibling branch with a branch summary), post
a status update (a delivery-mirror sibling), open a PR, fix CI and write the design doc. It exercises every entry type and
most message shapes the inspector has to handle (see `DEMO_FEATURES`).

Text generators for tool output (`jest_log`, `ts_source`, `redis_info`, ...) are shared with `bench/generate.py`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Sequence
from pathlib import Path

from inspector.fixtures import SessionBuilder, iso_from_ms, js_dumps, js_length, png_base64

__all__ = ["DEMO_FEATURES", "build_demo_session", "demo_session_path", "main"]

DEMO_SEED = 20260102
DEMO_START = "2026-01-02T08:41:12.306Z"
WORKSPACE = "/home/mara/.openclaw/workspace"
PROJECT = f"{WORKSPACE}/projects/lumen-api"
KEEP_RECENT_TOKENS = 20_000  # pi DEFAULT_COMPACTION_SETTINGS.keepRecentTokens

DEMO_FEATURES = (
    "bootstrap reads before the first user message",
    "pi-native compaction (fromHook:false) whose firstKeptEntryId is an assistant (split turn)",
    "abandoned sibling branch + branch_summary on the active branch",
    "delivery-mirror assistant sibling of a toolResult",
    "openclaw.cache-ttl after every run, model-snapshot, openclaw:bootstrap-context:full",
    "label, session_info, model_change, thinking_level_change",
    "thinking blocks incl. one redacted; images in a user message and in a tool result",
    "CJK text and emoji; large tool results (10k-40k chars); exec details with aggregated output",
)


def demo_session_path() -> Path:
    """The demo session shipped with the package (`inspector/data/demo-session.jsonl`)."""
    return Path(__file__).resolve().parent / "data" / "demo-session.jsonl"


# ====================================================================================================================
# Deterministic text generators (realistic tool output)

_WORDS = (
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


def _test_name(rng: random.Random) -> str:
    return rng.choice(_BEHAVIOURS) + rng.choice(_CONDITIONS)


def _ident(rng: random.Random, parts: int = 2) -> str:
    words = [rng.choice(_WORDS) for _ in range(parts)]
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
        name = _ident(rng, 3)
        iface = name[0].upper() + name[1:] + "Options"
        fields = [(_ident(rng, 2), rng.choice(("number", "string", "boolean", "string[]", "Date | null")))
                  for _ in range(rng.randint(2, 5))]
        out.append(f"export interface {iface} {{")
        out += [f"  /** {rng.choice(_WORDS).capitalize()} {rng.choice(_WORDS)} used by {name}. */\n  {f}: {t};"
                for f, t in fields]
        out.append("}")
        out.append("")
        arg = fields[0][0]
        out.append(f"export function {name}(req: Request, opts: {iface}): number {{")
        out.append(f"  const key = `${{config.keyPrefix}}:${{req.ip}}:{rng.choice(_ROUTES)}`;")
        out.append("  const now = Date.now();")
        for _ in range(rng.randint(2, 6)):
            v = _ident(rng, 2)
            out.append(f"  const {v} = Math.max(0, opts.{arg} ? {rng.randint(1, 900)} : now % {rng.randint(50, 5000)});")
            out.append(f"  if ({v} > {rng.randint(10, 500)}) {{")
            out.append(f"    logger.debug({{ key, {v} }}, '{rng.choice(_WORDS)} {rng.choice(_WORDS)} over threshold');")
            out.append(f"    metrics.increment('ratelimit.{rng.choice(_WORDS)}.{rng.choice(_WORDS)}');")
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
        out.append(f"  it('{_test_name(rng)}', async () => {{")
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
        path = f"src/{rng.choice(dirs)}/__tests__/{_ident(rng, 2)}.spec.ts"
        suite_fails = [fail_names.pop()] if fail_names and (s % 7 == 3 or s == suites - 1) else []
        out.append(f"{'FAIL' if suite_fails else 'PASS'} {path} ({rng.uniform(0.3, 6.5):.3f} s)")
        out.append(f"  {_ident(rng, 2)}")
        for _ in range(rng.randint(4, 14)):
            total += 1
            passed += 1
            out.append(f"    ✓ {_test_name(rng)} ({rng.randint(1, 240)} ms)")
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
            fn = _ident(rng, rng.randint(2, 3))
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
        path = f"src/{rng.choice(('routes', 'middleware', 'services', 'jobs', 'lib'))}/{_ident(rng, 2)}.ts"
        out.append(f"{path}:{rng.randint(1, 400)}:  const limiter = {pattern}({{ windowMs: {rng.choice((1000, 60000))}, "
                   f"max: {rng.randint(5, 500)}, keyGenerator: (req) => req.{rng.choice(('ip', 'user.id', 'tenantId'))} }});")
    return "\n".join(out) + "\n"


def _ci_line(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return f"PASS src/{rng.choice(('routes', 'middleware', 'lib'))}/__tests__/{_ident(rng, 2)}.spec.ts ({rng.uniform(0.2, 6):.2f} s)"
    if kind == 1:
        return f"added {rng.randint(400, 900)} packages, and audited {rng.randint(900, 1300)} packages in {rng.randint(5, 40)}s"
    if kind == 2:
        return f"npm warn deprecated {_ident(rng, 2).lower()}@{rng.randint(1, 9)}.{rng.randint(0, 12)}.0: this package is no longer supported"
    if kind == 3:
        return f"✓ {_test_name(rng)} ({rng.randint(1, 300)} ms)"
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
        "length": js_length(markdown),
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
        lines.append(f'    "{k}": {js_dumps(v)}' + ("," if i < len(items) - 1 else ""))
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
        "length": js_length(markdown),
        "fetchedAt": fetched_at,
        "tookMs": 400 + rng.randrange(800),
        "text": "<<<EXTERNAL_UNTRUSTED_CONTENT>>>\nSource: Web Fetch\n---\n" + markdown + "\n<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>",
    }
    return _pretty_json(payload)


def _pretty_json(obj: dict) -> str:
    # JSON.stringify(obj, null, 2) for a flat object of scalars.
    return "{\n" + ",\n".join(f"  {js_dumps(k)}: {js_dumps(v)}" for k, v in obj.items()) + "\n}"


# ====================================================================================================================
# pi's compaction preparation, as far as the demo needs it ([PI66] compaction.ts; spec §4.2)


def pi_estimate_tokens(message: dict) -> int:
    """pi 0.66 `estimateTokens`: ceil(chars / 4), JavaScript lengths, 4800 chars per image in toolResult/custom (spec §4.2)."""
    role = message.get("role")
    chars = 0
    if role in ("user", "toolResult", "custom"):
        content = message.get("content")
        if isinstance(content, str):
            chars = js_length(content)
        else:
            for block in content or ():
                if block.get("type") == "text" and block.get("text"):
                    chars += js_length(block["text"])
                elif block.get("type") == "image" and role != "user":
                    chars += 4800
    elif role == "assistant":
        for block in message.get("content", ()):
            if block.get("type") == "text":
                chars += js_length(block["text"])
            elif block.get("type") == "thinking":
                chars += js_length(block["thinking"])
            elif block.get("type") == "toolCall":
                chars += js_length(block["name"]) + js_length(js_dumps(block["arguments"]))
    elif role == "bashExecution":
        chars = js_length(message.get("command", "")) + js_length(message.get("output", ""))
    elif role in ("branchSummary", "compactionSummary"):
        chars = js_length(message.get("summary", ""))
    return math.ceil(chars / 4)


def _is_cut_point(entry: dict) -> bool:
    if entry["type"] in ("branch_summary", "custom_message"):
        return True
    return entry["type"] == "message" and entry["message"]["role"] != "toolResult"


def pi_find_cut_point(path: list[dict], start: int, end: int, keep_recent_tokens: int) -> tuple[int, int]:
    """pi `findCutPoint` on path entries: (index of the first kept entry, index of the split turn's start or -1)."""
    cut_points = [i for i in range(start, end) if _is_cut_point(path[i])]
    if not cut_points:
        return start, -1
    cut = cut_points[0]
    total = 0
    for i in range(end - 1, start - 1, -1):
        if path[i]["type"] != "message":
            continue
        total += pi_estimate_tokens(path[i]["message"])
        if total >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    while cut > start and path[cut - 1]["type"] not in ("compaction", "message"):
        cut -= 1
    entry = path[cut]
    if entry["type"] == "message" and entry["message"]["role"] == "user":
        return cut, -1
    for i in range(cut, start - 1, -1):
        e = path[i]
        if e["type"] in ("branch_summary", "custom_message"):
            return cut, i
        if e["type"] == "message" and e["message"]["role"] in ("user", "bashExecution"):
            return cut, i
    return cut, -1


def pi_file_ops(messages: list[dict]) -> dict:
    """pi `computeFileLists` over the toolCalls of `messages`: `{readFiles, modifiedFiles}`, both sorted."""
    read, modified = set(), set()
    for m in messages:
        if m.get("role") != "assistant":
            continue
        for block in m.get("content", ()):
            path = block.get("arguments", {}).get("path") if block.get("type") == "toolCall" else None
            if isinstance(path, str):
                (read if block["name"] == "read" else modified if block["name"] in ("write", "edit") else set()).add(path)
    return {"readFiles": sorted(read - modified), "modifiedFiles": sorted(modified)}


def format_file_ops(ops: dict) -> str:
    """pi `formatFileOperations`: the `<read-files>` / `<modified-files>` blocks appended to summaries."""
    parts = []
    if ops["readFiles"]:
        parts.append("<read-files>\n" + "\n".join(ops["readFiles"]) + "\n</read-files>")
    if ops["modifiedFiles"]:
        parts.append("<modified-files>\n" + "\n".join(ops["modifiedFiles"]) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(parts) if parts else ""


def pi_tokens_before(path: list[dict]) -> int:
    """pi `estimateContextTokens` for a path without an earlier compaction: last valid usage + trailing estimates."""
    messages = [e["message"] for e in path if e["type"] == "message"]
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m["role"] == "assistant" and m.get("stopReason") not in ("aborted", "error") and m.get("usage"):
            u = m["usage"]
            used = u.get("totalTokens") or u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"]
            return used + sum(pi_estimate_tokens(x) for x in messages[i + 1:])
    return sum(pi_estimate_tokens(x) for x in messages)


# ====================================================================================================================
# Tool-call helpers: each returns (toolCall block, tool_result keyword arguments)


class _Tools:
    """Builds OpenClaw tool calls and their results for one builder."""

    def __init__(self, b: SessionBuilder, rng: random.Random) -> None:
        self.b, self.rng = b, rng

    def read(self, path: str, text: str, **args) -> tuple[dict, dict]:
        return self.b.tool_call("read", {"path": path, **args}), {"content": text, "duration_ms": 40}

    def exec(self, command: str, output: str, *, code: int = 0, ms: int = 1800, cwd: str = PROJECT) -> tuple[dict, dict]:
        call = self.b.tool_call("exec", {"command": command, "workdir": cwd})
        if code != 0:  # the tool throws; pi's agent loop stores the error text with empty details
            text = output.rstrip("\n") + f"\n\nCommand exited with code {code}"
            return call, {"content": text, "details": {}, "is_error": True, "duration_ms": ms}
        details = {"status": "completed", "exitCode": 0, "durationMs": ms, "aggregated": output, "cwd": cwd}
        return call, {"content": output or "(no output)", "details": details, "duration_ms": ms}

    def edit(self, path: str, old: str, new: str, line: int) -> tuple[dict, dict]:
        diff = "\n".join([f"{line - 1:>4}   ...", *(f"{line + i:>4} - {x}" for i, x in enumerate(old.splitlines())),
                          *(f"{line + i:>4} + {x}" for i, x in enumerate(new.splitlines()))])
        call = self.b.tool_call("edit", {"path": path, "oldText": old, "newText": new})
        return call, {"content": f"Successfully replaced text in {path}.", "details": {"diff": diff, "firstChangedLine": line},
                      "duration_ms": 25}

    def write(self, path: str, content: str) -> tuple[dict, dict]:
        size = len(content.encode("utf-8"))
        return self.b.tool_call("write", {"path": path, "content": content}), \
            {"content": f"Successfully wrote {size} bytes to {path}", "duration_ms": 20}

    def web_fetch(self, url: str, page: str) -> tuple[dict, dict]:
        call = self.b.tool_call("web_fetch", {"url": url, "extractMode": "markdown"})
        details = {"status": 200, "extractor": "readability", "truncated": False, "tookMs": 612}
        return call, {"content": page, "details": details, "duration_ms": 640}

    def browser(self, args: dict, content: str | list, details: dict | None = None, ms: int = 900) -> tuple[dict, dict]:
        result = {"content": content, "duration_ms": ms}
        if details is not None:
            result["details"] = details
        return self.b.tool_call("browser", args), result

    def message(self, args: dict, reply: str) -> tuple[dict, dict]:
        return self.b.tool_call("message", args), {"content": reply, "details": {"ok": True}, "duration_ms": 480}

    def step(self, *items) -> str:
        """One assistant message (thinking/text strings or blocks, then tool pairs) followed by its tool results."""
        blocks, results = [], []
        for item in items:
            if isinstance(item, tuple):
                blocks.append(item[0])
                results.append((item[0], item[1]))
            else:
                blocks.append(item)
        aid = self.b.assistant(blocks)
        for call, kwargs in results:
            self.b.tool_result(call["id"], call["name"], **kwargs)
        return aid

    def think(self, text: str) -> dict:
        return self.b.thinking(text)


def _p(rel: str) -> str:
    return f"projects/lumen-api/{rel}"


# ====================================================================================================================
# The storyline


def _bootstrap_and_first_turns(b: SessionBuilder, t: _Tools, rng: random.Random) -> None:
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


def _redis_and_i18n_turns(b: SessionBuilder, t: _Tools, rng: random.Random) -> None:
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
    lint = "\n".join(f"{_p('src')}/{_ident(rng, 2)}.ts\n  {rng.randint(1, 300)}:{rng.randint(1, 80)}  warning  "
                     f"Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any" for _ in range(26))
    t.step(t.exec("npm run lint", lint + "\n\n✖ 26 problems (0 errors, 26 warnings)\n", ms=9_400))
    t.step(t.exec("docker compose -f loadtest/compose.yml up -d --scale api=3 && npm run loadtest",
                  k6_report(rng, 6), ms=131_000))
    b.assistant("Lint: 0 errors, 26 `no-explicit-any` warnings (pre-existing). k6 with 3 pods: 429s now start exactly "
                "at the configured limit, p95 latency +0.4 ms for the EVALSHA round trip.")
    b.cache_ttl()
    b.wait(300_000)


def _profiling_turn(b: SessionBuilder, t: _Tools, rng: random.Random) -> None:
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


def _compact(b: SessionBuilder) -> str:
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


def _after_compaction(b: SessionBuilder, t: _Tools, rng: random.Random) -> None:
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
                  "\n".join(f"npm warn deprecated {_ident(rng, 2)}@{rng.randint(1, 9)}.{rng.randint(0, 20)}.0: "
                            f"{' '.join(rng.choice(_WORDS) for _ in range(8))}" for _ in range(12))
                  + "\n\nadded 4 packages, removed 11 packages, and audited 612 packages in 6s\n\nfound 0 vulnerabilities\n",
                  ms=6_200))
    redis_lib = ts_source(rng, "src/lib/redis.ts", 2_400)
    t.step(t.write(_p("src/lib/redis.ts"), redis_lib), t.edit(_p("package.json"), '"ioredis": "^5.4.1"', '"redis": "^5.0.1"', 19))
    fails = {f"redisRateLimiter › {_test_name(rng)} #{n}":
             "ErrorReply: NOSCRIPT No matching script. Please use EVAL." for n in range(1, 10)}
    t.step(t.exec("npm test 2>&1 | tail -n 300", jest_log(rng, 12, fails), code=1, ms=39_800))
    b.assistant("node-redis v5 breaks the limiter: 9 failures, all `NOSCRIPT` — v5 throws `ErrorReply` with a different "
                "shape, so our reload-on-NOSCRIPT path never runs. `connect-redis` also expects ioredis options. "
                "Fixable, but it's a day of work for one dependency. I'd stay on ioredis.")
    b.cache_ttl()
    abandoned = b.leaf_id
    b.wait(150_000)

    # Back to the fork point with a summary of the abandoned branch (pi /tree navigation with summarization)
    branch_msgs = []
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


def _pr_ci_and_docs(b: SessionBuilder, t: _Tools, rng: random.Random) -> None:
    # Turn 11: status update (delivery mirror) + PR
    b.user("Post a short status update in #lumen-dev, then open the PR.")
    note = ("Rate limiter update: limits now shared across pods via Redis (exact sliding window), 429 body in en/zh-CN/ja, "
            "fallback to in-memory if Redis is down. PR coming in a minute. 🚀")
    call, result = t.message({"action": "send", "channel": "slack", "target": "#lumen-dev", "message": note},
                             js_dumps({"ok": True, "messageId": "1767352112.004900", "channel": "C07LUMENDEV"}))
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
                     js_dumps({"ok": True, "targetId": "7F3A2C", "url": "https://github.com/lumen-hq/lumen-api/actions/runs/12637720418"}),
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


def build_demo_session() -> str:
    """The demo session's JSONL text. Deterministic: the same bytes on every call and every machine."""
    rng = random.Random(DEMO_SEED)
    b = SessionBuilder(seed=DEMO_SEED, start=DEMO_START, system_prompt_tokens=23_000)
    t = _Tools(b, rng)
    _bootstrap_and_first_turns(b, t, rng)
    _redis_and_i18n_turns(b, t, rng)
    _profiling_turn(b, t, rng)
    _compact(b)
    _after_compaction(b, t, rng)
    _pr_ci_and_docs(b, t, rng)
    return b.text()


def main(argv: list[str] | None = None) -> int:
    """`python -m inspector.demo [--write | --check]`: print, regenerate or verify the shipped demo session."""
    parser = argparse.ArgumentParser(prog="python -m inspector.demo", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="regenerate inspector/data/demo-session.jsonl")
    group.add_argument("--check", action="store_true", help="exit 1 if the shipped file differs from the generated one")
    args = parser.parse_args(argv)
    text = build_demo_session()
    path = demo_session_path()
    if args.write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        print(f"wrote {path} ({len(text.encode('utf-8'))} bytes, {text.count(chr(10))} lines)")
        return 0
    if args.check:
        same = path.exists() and path.read_bytes() == text.encode("utf-8")
        print("up to date" if same else f"{path} is stale: run python -m inspector.demo --write")
        return 0 if same else 1
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
