"""What the screens and `--json` show, computed once: overview, breakdown, pruning preview, compaction forecast, diagnosis."""
