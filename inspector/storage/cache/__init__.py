"""The persistent index cache: reopening a session file without reading it again (issue 12, "instant reopen").

Two levels, both in the user's cache dir (`platformdirs.user_cache_dir("session-inspector")`, or
`$SESSION_INSPECTOR_CACHE_DIR`), never beside the session and never written into it:

* `index_cache`: a snapshot of an opened `Session` (entries, tree, diagnostics, reader and scanner state, the
  leaf's context, tiktoken counts), restored when the file is unchanged and extended from the new bytes only
  when it only grew (`Session.refresh`);
* `memo`: the final `--json` output of `stats`, `context` and `timeline`, keyed by the command line, the file
  and the resolved config, replayed without building anything while the file is unchanged.

`store` owns the directory (0700, owned by the user, bounded, LRU eviction, atomic writes), `filekey` tells an
unchanged, grown or replaced file, `version` names the code that wrote an entry, `snapshot` turns a `Session`
into picklable state and back. Anything doubtful is ignored and rebuilt: the cache is never trusted.

This package's `__init__` imports nothing: the memo's fast path must start in a few milliseconds.
"""
