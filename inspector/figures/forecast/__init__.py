"""The compaction forecast: what the session's rules would do if they compacted now, and its row marks."""
