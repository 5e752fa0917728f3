"""The session browser: its screen (`screen`), the sortable, filterable table of session files (`table`) and
the directory watchers that keep it live (`watch`). Per-file figures are `inspector.summary`'s (the same as
`session-inspector ls --json --figures`).
"""
