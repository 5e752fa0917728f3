"""Session files read: byte-level line scanning, format detection, the JSONL reader and its records, parallel indexing.

* `records`: one JSONL line -> a compact record (stateless; runs in worker processes for big files);
* `openclaw`: records -> `Entry` metadata in file order, as pi's `loadEntriesFromFile` reads OpenClaw/pi
  v1/v2/v3 files (migrations in memory only, damage reported as diagnostics);
* `encode`: the writer side, `JSON.stringify(entry) + "\\n"` byte for byte as pi appends an entry (used by the
  samples, the test fixtures and the compaction writer).
"""
