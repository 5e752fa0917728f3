"""OpenClaw 2026.7+'s per-agent SQLite store (`agents/<id>/agent/openclaw-agent.sqlite`), read only.

`connection` opens a store without ever writing to it (`mode=ro`, `query_only`, a short read transaction per
read, a bounded busy wait: `StoreBusy`); `events` reads one session's events in one consistent snapshot and
decodes them (zstd frames included), a damaged event becoming a `StoreProblem` that names its `seq`; `rows` lists
the sessions a store holds (key, label, display name, archive time, token counters, compaction count); `mirror`
keeps a JSONL mirror of a session's events in the cache directory, appended as the store grows and rewritten whole
on a rewrite, so every reader of session files reads store sessions unchanged.
"""
