"""Sample sessions, kept apart from the engine's core: nothing in the reader, the estimators or the figures
imports this package.

* `fixtures`: `SessionBuilder`, the writer tests (and the two generators below) use to produce realistic
  OpenClaw/pi v3 JSONL, every line through `inspector.read.encode` (pi's `JSON.stringify(entry)`);
* `demo`: the bundled demo session's story (`build_demo_session`, `python -m inspector.samples.demo --write`
  regenerates `inspector/data/demo-session.jsonl`, a test checks it is byte-identical);
* `demo_text`: the texts the demo puts in the session, and generators `bench/generate.py` reuses.
"""
