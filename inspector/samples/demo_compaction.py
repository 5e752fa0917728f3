"""pi's compaction preparation, as far as the demo needs it ([PI66] compaction.ts; spec §4.2): the cut point, the
file lists of a summary, the tokens before. The demo's compaction and branch summary use them
(`inspector.samples.demo_story`)."""

from __future__ import annotations

from inspector.rules.ruleset import rule_set


def _is_cut_point(entry: dict) -> bool:
    if entry["type"] in ("branch_summary", "custom_message"):
        return True
    return entry["type"] == "message" and entry["message"]["role"] != "toolResult"


def pi_find_cut_point(path: list[dict], start: int, end: int, keep_recent_tokens: int) -> tuple[int, int]:
    """pi `findCutPoint` on path entries: (index of the first kept entry, index of the split turn's start or -1)."""
    cut_points = [i for i in range(start, end) if _is_cut_point(path[i])]
    if not cut_points:
        return start, -1
    cut = cut_points[0]
    total = 0
    for i in range(end - 1, start - 1, -1):
        if path[i]["type"] != "message":
            continue
        total += rule_set().tokens.pi_estimate_tokens(path[i]["message"])
        if total >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    while cut > start and path[cut - 1]["type"] not in ("compaction", "message"):
        cut -= 1
    entry = path[cut]
    if entry["type"] == "message" and entry["message"]["role"] == "user":
        return cut, -1
    for i in range(cut, start - 1, -1):
        e = path[i]
        if e["type"] in ("branch_summary", "custom_message"):
            return cut, i
        if e["type"] == "message" and e["message"]["role"] in ("user", "bashExecution"):
            return cut, i
    return cut, -1


def pi_file_ops(messages: list[dict]) -> dict:
    """pi `computeFileLists` over the toolCalls of `messages`: `{readFiles, modifiedFiles}`, both sorted."""
    read: set[str] = set()
    modified: set[str] = set()
    for m in messages:
        if m.get("role") != "assistant":
            continue
        for block in m.get("content", ()):
            path = block.get("arguments", {}).get("path") if block.get("type") == "toolCall" else None
            if isinstance(path, str):
                (read if block["name"] == "read" else modified if block["name"] in ("write", "edit") else set()).add(path)
    return {"readFiles": sorted(read - modified), "modifiedFiles": sorted(modified)}


def format_file_ops(ops: dict) -> str:
    """pi `formatFileOperations`: the `<read-files>` / `<modified-files>` blocks appended to summaries."""
    parts = []
    if ops["readFiles"]:
        parts.append("<read-files>\n" + "\n".join(ops["readFiles"]) + "\n</read-files>")
    if ops["modifiedFiles"]:
        parts.append("<modified-files>\n" + "\n".join(ops["modifiedFiles"]) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(parts) if parts else ""


def pi_tokens_before(path: list[dict]) -> int:
    """pi `estimateContextTokens` over the path's messages (a path without an earlier compaction)."""
    return rule_set().tokens.estimate_context_tokens([e["message"] for e in path if e["type"] == "message"])["tokens"]
