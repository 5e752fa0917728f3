"""An opened session: the reader's entries in storage, the entry tree, the context (path from the leaf), snapshots and tails."""
