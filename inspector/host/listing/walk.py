"""The backwards walk of a glance: entries from the end of a file, the leaf's path followed through them.

`Walk.accept` takes the file's lines last first. The leaf is the first entry met (pi's leaf on load: the last entry
in file order); its path is followed by `parentId` (to the latest entry with that id, as pi's index does), and what
the path decides is taken on the way: the model in force (the first `model_change` or assistant message met), and
pi's `estimateContextTokens` (the last valid assistant usage plus the pi tokens of the later context messages; past
the last compaction, its kept messages from `firstKeptEntryId` and its summary, all estimated: a usage recorded before
the latest compaction never counts, as in the rules' `context_usage.context_now`). The first `session_info` that sets
or clears the name decides it. Entries are built by the index's own reader (`EntryReader`), so each figure is
computed from exactly what the full read computes it from; a mirror's usage marks (`inspector.read.usage_marks`), met
before the rows they revise, give those rows their usage (the latest mark, met first, wins), as the full read does.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from inspector.model import entries as m
from inspector.read.jsonl_reader import EntryReader
from inspector.read.lines import SEGMENT_SEPARATOR, segments
from inspector.read.records import ErrorRecord, extract_record
from inspector.read.usage_marks import is_usage_mark, read_usage_mark
from inspector.rules.ruleset import rule_set
from inspector.session.context import maps_to_message

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.tokens.usage import UsageRow


def name_decision(data: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether a `session_info` entry sets or clears the session name, and to what (`SessionTree.add`'s rule)."""
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        return True, name.strip()
    if "name" in data and (name == "" or name is None):
        return True, None
    return False, None


class Walk:
    """Entries from the end; the leaf's path followed through them; figures decided on the way."""

    def __init__(self, version: int, header: dict[str, Any] | None, segmented: bool = False) -> None:
        self.segmented = segmented
        """A Claude Code / Codex file's mirror: a line may hold several entries (`inspector.read.lines.segments`)."""
        self.revised: dict[str, bytes | None] = {}
        """A mirror's usage marks met so far, by entry id (the latest mark of an id is met first)."""
        self.diagnostics: list[m.Diagnostic] = []
        self.reader = EntryReader(self.diagnostics.append, version)
        self.usage = rule_set(self.reader.rules_id).tokens
        """The usage rules of the reader's rule set (`usage_row`, `context_tokens_from_end`)."""
        self.reader.start_after_header(header)
        self.linear = version < 2  # v1: no ids; pi's migration chains every entry to the one before it
        self.leaf: m.Entry | None = None
        self.leaf_offset = 0
        self.leaf_line = b""
        self.seen: dict[str, m.Entry] = {}  # id -> the latest entry with it (walking backwards: the first met)
        self.want: str | None = None  # the parent id the path goes on with
        self.path_ids: set[str] = set()
        self.path_done = False  # a root, a cycle, or nothing more to learn from the path
        self.rows: list[UsageRow] = []
        self.tokens: int | None = None
        self.tokens_known = False
        self.tokens_blocked = False  # a cycle: the context is not decided here
        self.summary_row: UsageRow | None = None  # the last compaction on the path, once met
        self.kept_from: str | None = None
        self.kept_rows: list[UsageRow] = []
        self.model: dict[str, Any] | None = None
        self.model_known = False
        self.name: str | None = None
        self.name_known = False

    def accept(self, offset: int, data: bytes, terminated: bool) -> None:
        """One line, met walking backwards."""
        if self.segmented and SEGMENT_SEPARATOR in data:
            for at, part in reversed(segments(offset, data)):
                if is_usage_mark(part):
                    mark = read_usage_mark(part)
                    if mark is not None:
                        self.revised.setdefault(mark[0], mark[1])
                else:
                    self._accept(at, part, terminated)
            return
        self._accept(offset, data, terminated)

    def _accept(self, offset: int, data: bytes, terminated: bool) -> None:
        rec = extract_record(data, self.reader.version, self.reader.est)
        if rec is None or (not terminated and type(rec) is ErrorRecord):
            return  # blank, or a writer mid-line: the full reader does not take it either
        entry = self.reader.accept_record(0, offset, len(data), rec)
        if entry is None:
            return
        if self.revised and entry.id in self.revised and entry.type == m.MESSAGE and entry.role == "assistant":
            entry = dataclasses.replace(entry, usage_packed=self.revised[entry.id])
        if not self.name_known and entry.type == m.SESSION_INFO and entry.data is not None:
            self.name_known, self.name = name_decision(entry.data)
        if entry.id is not None and entry.id not in self.seen:
            self.seen[entry.id] = entry
        if self.leaf is None:
            self.leaf, self.leaf_offset, self.leaf_line = entry, offset, data
        if self.linear:
            if not self.path_done:
                self._on_path(entry)
                self.path_done = (self.tokens_known or self.tokens_blocked) and self.model_known
        elif entry is self.leaf:
            self._follow(entry)
        elif not self.path_done and self.want is not None and entry.id == self.want:
            self._follow(entry)

    def _follow(self, entry: m.Entry) -> None:
        """`entry` is on the path: take what it says, then go on with its parent (now, if it was met already)."""
        current: m.Entry | None = entry
        while current is not None and not self.path_done:
            if current.id is not None:
                if current.id in self.path_ids:
                    self.path_done = True  # a cycle (SessionTree.path_to stops there): what is open stays unknown
                    self.tokens_blocked = not self.tokens_known
                    return
                self.path_ids.add(current.id)
            self._on_path(current)
            parent = current.parent_id
            if not parent or parent == current.id:
                self._root()
                return
            self.want = parent
            current = self.seen.get(parent)
        if (self.tokens_known or self.tokens_blocked) and self.model_known:
            self.path_done = True

    def _on_path(self, entry: m.Entry) -> None:
        if not self.model_known and (entry.type == m.MODEL_CHANGE or (entry.type == m.MESSAGE and entry.role == "assistant")):
            self.model_known = True
            if entry.type == m.MODEL_CHANGE:
                data = entry.data or {}
                self.model = {"provider": data.get("provider"), "modelId": data.get("modelId")}
            else:
                self.model = {"provider": entry.provider, "modelId": entry.model}
        if self.tokens_known or self.tokens_blocked:
            return
        if self.summary_row is not None:  # before the last compaction: the kept messages, up to firstKeptEntryId
            if maps_to_message(entry.type, entry.role):
                self.kept_rows.append(self.usage.usage_row(entry))
            if entry.id is not None and entry.id == self.kept_from:
                self._estimated(self.rows + self.kept_rows + [self.summary_row])
        elif entry.type == m.COMPACTION and self.linear:
            self.tokens_blocked = True  # v1 keeps by line index: unknown from the tail (a small file: the full index)
        elif entry.type == m.COMPACTION:
            # pi's context after it: its summary, the kept messages (from firstKeptEntryId up to it), then the later
            # ones (already met, none with usage); the kept ones come next on the way back
            first = (entry.data or {}).get("firstKeptEntryId")
            self.summary_row = self.usage.usage_row(entry)
            self.kept_from = first if isinstance(first, str) and first != entry.id else None
            if self.kept_from is None:
                self._estimated(self.rows + [self.summary_row])
        elif maps_to_message(entry.type, entry.role):
            row = self.usage.usage_row(entry)
            self.rows.append(row)
            if self.usage.is_valid_assistant_usage(row.role, row.stop_reason, row.usage):
                self._context_is(self.rows)

    def _context_is(self, rows_from_end: list[UsageRow]) -> None:
        self.tokens = self.usage.context_tokens_from_end(rows_from_end, len(rows_from_end)).tokens
        self.tokens_known = True

    def _estimated(self, rows: list[UsageRow]) -> None:
        """The context past a compaction with no usage recorded after it: every message estimated."""
        self.tokens = sum(row.pi_tokens for row in rows)
        self.tokens_known = True

    def _root(self) -> None:
        """The path ends here: every context message on it was seen (a firstKeptEntryId not met keeps nothing)."""
        self.path_done = True
        if not self.tokens_known and not self.tokens_blocked:
            if self.summary_row is not None:
                self._estimated(self.rows + [self.summary_row])  # a firstKeptEntryId not met keeps nothing
            else:
                self._context_is(self.rows)
        self.model_known = True

    def at_file_start(self) -> None:
        """Every line was read: a path still open ends at an orphan root; the name is decided."""
        self.name_known = True
        if self.leaf is None:
            self.tokens, self.tokens_known, self.model_known = 0, True, True
        elif not self.path_done:
            self._root()

    @property
    def done(self) -> bool:
        """Nothing more to learn from the path."""
        return self.leaf is not None and self.path_done
