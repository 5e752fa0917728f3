"""A literal, slow port of pi 0.66.1's loader and `buildSessionContext`, used only as a test oracle.

It works on fully parsed dicts (no index, no metadata), line by line like `loadEntriesFromFile`,
`migrateToCurrentVersion` and `buildSessionContext` in `session-manager.ts`. The engine's index-based
reader must agree with it on every file.
"""

from __future__ import annotations

import json
from pathlib import Path


def _js_truthy(value) -> bool:
    """JavaScript truthiness of a JSON value (`{}` and `[]` are true)."""
    if isinstance(value, (dict, list)):
        return True
    return bool(value) and value == value


def load_entries(path: Path) -> list[tuple[int, dict]]:
    """(physical line number, parsed object) for every line JSON.parse accepts (pi skips the rest)."""
    text = path.read_bytes().decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    out = []
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line)))
        except ValueError:
            continue
    return out


def migrate(entries: list[tuple[int, dict]]) -> int:
    header = next((o for _, o in entries if o.get("type") == "session"), None)
    version = (header or {}).get("version") or 1
    if version < 2:
        prev = None
        for n, o in entries:
            if o.get("type") == "session":
                continue
            o["id"] = f"v1-L{n}"
            o["parentId"] = prev
            prev = o["id"]
            if o.get("type") == "compaction" and isinstance(o.get("firstKeptEntryIndex"), int):
                idx = o.pop("firstKeptEntryIndex")
                if 0 <= idx < len(entries):
                    target = entries[idx][1]
                    if target.get("type") != "session" and "id" in target:
                        o["firstKeptEntryId"] = target["id"]
    if version < 3:
        for _, o in entries:
            msg = o.get("message") if o.get("type") == "message" else None
            if isinstance(msg, dict) and msg.get("role") == "hookMessage":
                msg["role"] = "custom"
    return version


def build_session_context(entries: list[tuple[int, dict]]) -> list[tuple[int, dict]]:
    """(line of the producing entry, AgentMessage-ish dict) in context order, for the last entry as leaf."""
    body = [(n, o) for n, o in entries if o.get("type") != "session"]
    by_id = {}
    for n, o in body:
        by_id[o.get("id")] = (n, o)
    if not body:
        return []
    leaf = body[-1]
    path = []
    cur = leaf
    seen = set()
    while cur is not None and id(cur[1]) not in seen:
        seen.add(id(cur[1]))
        path.insert(0, cur)
        pid = cur[1].get("parentId")
        cur = by_id.get(pid) if pid else None
    compaction = None
    for n, o in path:
        if o.get("type") == "compaction":
            compaction = (n, o)
    out = []

    def append(n, o):
        t = o.get("type")
        if t == "message":
            out.append((n, o["message"]))
        elif t == "custom_message":
            out.append((n, {"role": "custom", "customType": o.get("customType"), "content": o.get("content")}))
        elif t == "branch_summary" and _js_truthy(o.get("summary")):
            out.append((n, {"role": "branchSummary", "summary": o["summary"], "fromId": o.get("fromId")}))

    if compaction:
        cn, co = compaction
        out.append((cn, {"role": "compactionSummary", "summary": co.get("summary"), "tokensBefore": co.get("tokensBefore")}))
        ci = next(i for i, (n, o) in enumerate(path) if o.get("type") == "compaction" and o.get("id") == co.get("id"))
        found = False
        for n, o in path[:ci]:
            if o.get("id") == co.get("firstKeptEntryId"):
                found = True
            if found:
                append(n, o)
        for n, o in path[ci + 1 :]:
            append(n, o)
    else:
        for n, o in path:
            append(n, o)
    return out
