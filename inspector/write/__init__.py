"""The only code that writes a session file: OpenClaw's lock, the writer, rewrites, undo, the compaction runner, summarizers and
the circuit breaker."""
