"""JavaScript compatibility: `JSON.stringify`, UTF-16 string operations, ISO dates and globs exactly as OpenClaw and pi compute them."""
