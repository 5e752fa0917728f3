"""The writer side of the pi/OpenClaw format: one JSONL line per entry, exactly as pi writes it.

pi appends `JSON.stringify(entry) + "\\n"` with Node's UTF-8 encoder. `encode_entry` reproduces that byte for
byte (key order as given, JavaScript number formatting, lone surrogates escaped as `JSON.stringify` does), so
the demo generator, the test fixture builder and the compaction writer all produce the same bytes pi would.
"""

from __future__ import annotations

from typing import Any

from inspector.js.jsjson import js_stringify


def encode_entry_text(entry: dict[str, Any]) -> str:
    """`JSON.stringify(entry)`: one line, no trailing newline."""
    return js_stringify(entry)


def encode_entry(entry: dict[str, Any]) -> bytes:
    """`JSON.stringify(entry) + "\\n"` as UTF-8 bytes: one complete JSONL line."""
    return (js_stringify(entry) + "\n").encode("utf-8")
