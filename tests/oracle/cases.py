"""The fixture sessions of the compaction tests, shared by the hand-worked tests and the pi differential test.

Sizes: pi `estimateTokens` is ceil(chars/4), so a text of 4n ASCII characters is n tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage


def usage(total: int) -> dict:
    """A usage object whose `totalTokens` is `total`."""
    return make_usage(10, 90, total - 100, 0)


def builder() -> SessionBuilder:
    b = SessionBuilder(seed=11, track_context=False)
    b.header()
    return b


def split_turn_session() -> tuple[SessionBuilder, dict[str, str]]:
    """u1 a1 | u2 a2(read) r2 a3(edit) r3 | a4: with keepRecentTokens 2100 the cut splits the u2 turn."""
    b = builder()
    ids = {}
    ids["u1"] = b.user("a" * 400)  # 100
    ids["a1"] = b.assistant("b" * 400, usage=usage(1000))  # 100
    ids["u2"] = b.user("c" * 400)  # 100
    call = b.tool_call("read", {"path": "src/x.ts"})  # 4 + 19 = 23 chars -> 6
    ids["a2"] = b.assistant([call], usage=usage(2000))
    ids["r2"] = b.tool_result(call["id"], "read", "d" * 8000)  # 2000
    call = b.tool_call("edit", {"path": "src/y.ts"})  # 4 + 19 -> 6
    ids["a3"] = b.assistant([call], usage=usage(4000))
    ids["r3"] = b.tool_result(call["id"], "edit", "e" * 8000)  # 2000
    ids["a4"] = b.assistant("f" * 400, usage=usage(6000))  # 100
    return b, ids


def share_session(turns: int = 6) -> tuple[SessionBuilder, list[str]]:
    """`turns` turns of a 10000-token user and a 100-token assistant; the last usage records 200000 tokens."""
    b = builder()
    ids = []
    for n in range(turns):
        ids.append(b.user(chr(97 + n) * 40_000))
        ids.append(b.assistant("z" * 400, usage=usage(200_000 if n == turns - 1 else 1000)))
    return b, ids


def oversized_session() -> tuple[SessionBuilder, str]:
    """A 42500-token tool result among small messages; returns the id of the user message that starts the tail."""
    b = builder()
    b.user("hey!")  # 1
    call = b.tool_call("read", {"path": "big.txt"})  # 4 + 18 = 22 -> 6
    b.assistant([call], usage=usage(1000))
    b.tool_result(call["id"], "read", "x" * 170_000)  # 42500
    b.assistant("y" * 400, usage=usage(1000))  # 100
    b.user("u" * 400)  # 100
    b.assistant("v" * 400, usage=usage(1000))  # 100
    kept = b.user("w" * 400)
    b.assistant("k" * 400, usage=usage(50_000))
    return b, kept


def boundary_session() -> tuple[SessionBuilder, str]:
    """Only heartbeat chatter and a custom message before the tail; returns the custom message's id."""
    b = builder()
    b.user("HEARTBEAT_OK")
    b.assistant("HEARTBEAT_OK", usage=usage(1000))
    note = b.custom_message("note", "not a conversation message")
    b.user("q" * 400)
    b.assistant("r" * 400, usage=usage(2000))
    return b, note


def previous_compaction_session(from_hook: bool = False) -> tuple[SessionBuilder, dict[str, str]]:
    """A compaction with file details, then two more turns."""
    b = builder()
    ids = {}
    b.user("first " * 100)
    ids["tail"] = b.user("kept tail " * 40)
    b.assistant("ok " * 100, usage=usage(3000))
    b.compaction("## Goal\nold", ids["tail"], 9000, details={"readFiles": ["old.md", "src/x.ts"], "modifiedFiles": ["src/x.ts"]},
                 from_hook=from_hook)
    b.user("more " * 100)
    b.assistant("done " * 100, usage=usage(4000))
    ids["kept"] = b.user("latest " * 100)
    b.assistant("fine " * 10, usage=usage(5000))
    return b, ids


def after_compaction_session() -> SessionBuilder:
    b = builder()
    u = b.user("hello")
    b.assistant("hi", usage=usage(5000))
    b.compaction("summary", u, 5000)
    return b


ALL: dict[str, Callable[[], object]] = {
    "split_turn": split_turn_session,
    "share": share_session,
    "oversized": oversized_session,
    "boundary": boundary_session,
    "previous_compaction": previous_compaction_session,
    "previous_compaction_hook": lambda: previous_compaction_session(True),
    "after_compaction": after_compaction_session,
}


def write_all(directory: Path) -> list[Path]:
    """Every fixture session written to `directory`."""
    out = []
    for name, make in ALL.items():
        made = make()
        b = made[0] if isinstance(made, tuple) else made
        out.append(b.write(directory / f"{name}.jsonl"))
    return out
