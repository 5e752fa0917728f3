"""The session browser: its screen (`screen`), the virtual, sortable, filterable table of session files (`table`),
the background reading of each file's figures (`fill`: glances and full summaries in worker processes, rows on screen
first) and the directory watchers that keep it live (`watch`). Per-file figures are the engine's: the glance of
`inspector.host.listing` (what `ls --json` prints) and the summary of `inspector.figures.file_summary` (`ls --json --figures`).
"""
