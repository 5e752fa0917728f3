"""OpenClaw's Gateway as a client reaches it: where it listens and with which credentials (`target`), its
WebSocket RPC protocol (`client`), which store session may be compacted through it (`request`, shared by the
`compact` command and the app) and that compaction (`compact`).

OpenClaw 2026.9 keeps sessions in SQLite stores the Gateway owns; this tool never writes them. Compacting such a
session is the Gateway's `sessions.compact` RPC, as `openclaw sessions compact KEY` calls it.
"""
