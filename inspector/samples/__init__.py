"""Sample sessions, kept apart from the engine's core: nothing in the reader, the estimators or the figures
imports this package.

* `fixtures`: `SessionBuilder`, the writer tests (and the two generators below) use to produce realistic
  OpenClaw/pi v3 JSONL, every line through `inspector.read.encode` (pi's `JSON.stringify(entry)`); `usage`
  (`make_usage`, `zero_usage`, the token counts of its automatic usage) and `png` (`png_base64`) make what it is given;
* `demo`: the bundled demo session (`build_demo_session`, `python -m inspector.samples.demo --write`
  regenerates `inspector/data/demo-session.jsonl`, a test checks it is byte-identical); its story is `demo_story`,
  written with `demo_tools` (tool calls and their results) and `demo_compaction` (pi's compaction preparation);
* `demo_text`: the texts the demo puts in the session, and generators `bench/generate.py` reuses.
"""
