"""Shared pieces of the headless commands: session options, opening a file, printing JSON and text."""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from inspector.base.window_arg import context_window_arg
from inspector.figures.session_figures import WindowOptions, load_window_options
from inspector.session.session import Session, SessionOpenError, open_session

if TYPE_CHECKING:
    from rich.console import Console

    from inspector.read.formats.mirror import ForeignMirror
    from inspector.read.store.mirror import Mirror
    from inspector.rules.ruleset import RuleChoice

EXIT_ERROR = 2
EXIT_UNSUPPORTED = 3


class CommandExit(Exception):
    """Ends a command with one line on stderr and an exit code (caught by `inspector.cli.main`)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def add_session_options(p: argparse.ArgumentParser, *, leaf: bool = False) -> None:
    """PATH and the options every session command takes: `--json`, `--config`, `--context-window`, `--encoding`."""
    p.add_argument("path", type=Path, help="session .jsonl file")
    if leaf:
        p.add_argument("--leaf", default=None, metavar="ID", help="build the context from this entry instead of the last one")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON (stable field names)")
    p.add_argument("--config", type=Path, default=None, help="OpenClaw config file (default: the user's openclaw.json)")
    p.add_argument(
        "--context-window", type=context_window_arg, default=None, metavar="N", help="override the context window (tokens, 1..2^31-1)"
    )
    p.add_argument(
        "--encoding",
        default="cl100k_base",
        help="tiktoken encoding for the real-tokenizer column (default cl100k_base, bundled offline)",
    )
    p.add_argument("--no-tiktoken", action="store_true", help="skip the tiktoken count (faster on huge files)")
    p.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the index cache (see `session-inspector cache info`)"
    )
    add_width_option(p)


class _RulesState:
    """What the running command's rule choice is made from, and the choice once made."""

    explicit: str | None = None
    session_path: Path | None = None
    config_arg: Path | None = None
    config: Any = None
    choice: RuleChoice | None = None
    store: Mirror | None = None
    """The store session the command reads (through its JSONL mirror, now `args.path`), or None for a file."""
    foreign: ForeignMirror | None = None
    """The Claude Code / Codex file the command reads (through its pi-format mirror, now `args.path`), or None."""
    window_from_file: str | None = None
    """`--context-window` was not given: where the window of a Claude Code / Codex file comes from (its source)."""


_rules = _RulesState()


def begin_rules(args: argparse.Namespace) -> None:
    """Start a command: its `--rules`, its PATH and its `--config` are what `rule_choice` goes by."""
    global _rules
    _rules = _RulesState()
    _rules.explicit = getattr(args, "rules", None)
    path = getattr(args, "path", None)
    _rules.session_path = Path(path) if isinstance(path, (str, Path)) else None
    config = getattr(args, "config", None)
    _rules.config_arg = Path(config) if isinstance(config, (str, Path)) else None


def note_rules_config(config: Any) -> None:
    """The OpenClaw config the command already loaded (spares `rule_choice` reading it again)."""
    _rules.config = config


def rule_choice() -> RuleChoice:
    """The rule set of the running command and why (`inspector.host.rules_choice.choose_rules`), made once."""
    if _rules.choice is None:
        from inspector.host.rules_choice import choose_rules

        config = _rules.config
        if config is None and _rules.explicit is None:
            from inspector.host.openclaw_config import load_openclaw_config

            config = load_openclaw_config(_rules.config_arg).data
        _rules.choice = choose_rules(_rules.explicit, session_path=_rules.session_path, config=config, store=_rules.store)
        memo = sys.modules.get("inspector.cli.output_memo")
        if memo is not None:
            memo.note_rules(_rules.choice)
    return _rules.choice


def with_rules(data: Any) -> Any:
    """A command's JSON object with `"rules": {"id", "reason"}` first (other JSON values as they are); a store
    session's also has `"source"` next, and its diagnostics name `seq`s (`for_source`)."""
    if not isinstance(data, dict):
        return data
    data = for_source(data)
    return {"rules": rule_choice().to_json(), **{k: v for k, v in data.items() if k != "rules"}}


WRITE_COMMANDS = frozenset({"compact", "undo"})
STORE_REFUSAL = (
    "{path}: a session in an OpenClaw SQLite store is never written by session-inspector; OpenClaw 2026.9 compacts "
    "through its Gateway: `openclaw sessions compact {key}`"
)


def store_source() -> Mirror | None:
    """The store session the running command reads (None: a session file)."""
    return _rules.store


def open_store_source(args: argparse.Namespace) -> None:
    """When PATH names an OpenClaw SQLite store (the file, or an agent dir holding one), bring the chosen session's
    JSONL mirror up to date and read that instead (`args.path` becomes the mirror). `compact` gets `args.store`, `undo`
    refuses; an unknown `--session`, a busy or unreadable store end the command with exit 2 and one line."""
    path = getattr(args, "path", None)
    wanted = getattr(args, "session", None)
    if not isinstance(path, Path):
        return
    from inspector.read.store.locate import store_of

    store = store_of(path)
    if store is None:
        if wanted is not None:
            raise CommandExit(f"{path}: --session picks a session of an OpenClaw SQLite store; this is not one", EXIT_ERROR)
        return
    from inspector.host.discovery.stores import open_store_session
    from inspector.read.store.connection import StoreError

    if getattr(args, "command", None) in WRITE_COMMANDS:
        if args.command == "compact":  # through the Gateway, which writes the store (`commands.compact_store`)
            args.store = store
            return
        from inspector.host.discovery.stores import choose_session

        try:
            key = choose_session(store, wanted).session_key or "KEY"
        except StoreError:
            key = wanted or "KEY"
        raise CommandExit(STORE_REFUSAL.format(path=path, key=key), EXIT_ERROR)
    try:
        mirror = open_store_session(store, wanted, index=True, explicit_rules=_rules.explicit)
    except StoreError as exc:
        raise CommandExit(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        raise CommandExit(f"{path}: cannot keep the session's mirror: {exc.strerror or exc}", EXIT_ERROR) from None
    args.path = mirror.path
    _rules.session_path = mirror.path
    _rules.store = mirror
    memo = sys.modules.get("inspector.cli.output_memo")
    if memo is not None:
        memo.end()  # the memo is keyed by the file PATH names: a store's output is never replayed


def for_source(data: dict[str, Any]) -> dict[str, Any]:
    """A command's data as shown for its source: a session file's unchanged; a store session's with `"source"`
    first and every diagnostic naming the event's `seq` instead of the mirror's line (plus the problems of events
    kept all the same, in the top-level `diagnostics`)."""
    if _rules.foreign is not None and "source" not in data:
        from inspector.cli.commands._foreign import for_foreign

        return for_foreign(data, _rules.foreign)
    mirror = _rules.store
    if mirror is None or "source" in data:
        return data
    out: dict[str, Any] = {"source": mirror.source_json()}
    out.update(_relabel(data, mirror))
    if isinstance(out.get("diagnostics"), list):
        out["diagnostics"] = out["diagnostics"] + mirror.extra_diagnostics()
    return out


def _relabel(value: Any, mirror: Mirror) -> Any:
    if isinstance(value, dict):
        return {k: _relabel_list(v, mirror) if k == "diagnostics" else _relabel(v, mirror) for k, v in value.items()}
    if isinstance(value, list):
        return [_relabel(v, mirror) for v in value]
    return value


def _relabel_list(value: Any, mirror: Mirror) -> Any:
    if not isinstance(value, list):
        return _relabel(value, mirror)
    return [mirror.relabel(d) if isinstance(d, dict) and "line" in d and "kind" in d else _relabel(d, mirror) for d in value]


_cache_enabled = True


def set_cache_enabled(enabled: bool) -> None:
    """Use the index cache (`inspector.storage.cache`) for the sessions the running command opens, or not (`--no-cache`)."""
    global _cache_enabled
    _cache_enabled = enabled


def cache_enabled() -> bool:
    """Whether the running command may read and write the index cache."""
    return _cache_enabled


def save_cache(*, retain: bool = False) -> None:
    """Save the snapshots of the sessions this command opened through the cache (never fails the command).

    `retain`: keep them referenced (the process is about to end without freeing anything: see `cli.exit_now`)."""
    index_cache = sys.modules.get("inspector.session.index_cache")
    if index_cache is None or not _cache_enabled:
        return
    try:
        index_cache.save_opened(retain=retain)
    except Exception:  # the output is already printed: a cache that cannot be written is no error
        pass


def window_options(args: argparse.Namespace) -> tuple[WindowOptions, str | None]:
    """The OpenClaw config (never fatal: a broken file is reported) and the `--context-window` override."""
    return load_window_options(args.config, args.context_window, agent=_rules.foreign.format if _rules.foreign is not None else None)


def encoding_of(args: argparse.Namespace) -> str | None:
    return None if getattr(args, "no_tiktoken", False) else args.encoding


def open_or_fail(path: Path) -> Session | None:
    """Open a session under the command's rule set (`rule_choice`); on failure print one clear line to stderr and
    return None.

    A Claude Code or Codex transcript is read through its mirror (`open_foreign_source` made `path` the mirror).
    """
    rules_id = rule_choice().id
    try:
        if not _cache_enabled:
            return open_session(path, rules_id)
        from inspector.session.index_cache import open_cached

        return open_cached(path, rules_id=rules_id)
    except SessionOpenError as exc:
        print(f"session-inspector: {exc}", file=sys.stderr)
        return None


# The UTF-8 forms of the characters `textsafe.make_inert` escapes that JSON itself leaves raw: DEL, the C1
# controls, ALM, LRM/RLM, the line/paragraph separators, the bidi embeddings/overrides/isolates and the interlinear
# annotations (orjson escapes C0 itself). Outside strings orjson writes only ASCII, so every match is in a string.
_RAW_IN_JSON = re.compile(rb"(?:\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2(?:\x80[\x8e\x8f\xa8-\xae]|\x81[\xa6-\xa9])|\xef\xbf[\xb9-\xbb])")


def _escaped(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode("utf-8"))


def dumps_json(data: Any) -> bytes:
    """Indented JSON; text with lone surrogates (a soft trim can cut a pair, as OpenClaw does) is escaped, and so
    is every terminal-control character (C1 controls and bidi controls included): `\\u009b`, `\\u202e`."""
    try:
        out = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(data, indent=2, ensure_ascii=True).encode("ascii")
    if (out.isascii() and b"\x7f" not in out) or not _RAW_IN_JSON.search(out):
        return out
    return _RAW_IN_JSON.sub(_escaped, out)


COUNTING_HELPER_MIN_BYTES = 16 * 1024 * 1024
"""Files at least this big get a counting helper (`inspector.counting.helper`) when the command counts tokens."""


def start_counting_helper(path: Path, encoding: str | None) -> None:
    """Fork the token-counting helper now, while this process is small, when `encoding` will count a big file:
    the tokenizer then never sits on top of the index in this process (its peak memory)."""
    if encoding is None:
        return
    try:
        if os.stat(path).st_size < COUNTING_HELPER_MIN_BYTES:
            return
    except (OSError, ValueError):
        return  # opening it reports the problem
    from inspector.counting import helper

    helper.start(encoding)


def open_context(args: argparse.Namespace, encoding: str | None = None):
    """Open `args.path` and build the context of `args.leaf`; on failure print one line and return None.

    `encoding`: the tiktoken encoding the command counts the context with (None: it does not count); a big
    file's counts are then made by a helper process started before the file is indexed.
    Returns `(session, ctx, window_options, config_error)`.
    """
    start_counting_helper(args.path, encoding)
    session = open_or_fail(args.path)
    if session is None:
        return None
    try:
        ctx = session.context(args.leaf)
    except KeyError:
        print(f"session-inspector: no entry with id {args.leaf!r} in {args.path}", file=sys.stderr)
        return None
    if encoding is not None:
        from inspector.counting.bulk import count_context_soon, precount_summaries

        precount_summaries(session, ctx, encoding)
        count_context_soon(session, ctx, encoding)  # counted by the helper while the command works on the rest
    witness = None
    if _cache_enabled:
        from inspector.cli import output_memo as memo

        witness = memo.config_witness(args.config) if memo.recording() else None
    opts, config_error = window_options(args)
    note_rules_config(opts.config)
    if _cache_enabled:
        from inspector.cli import output_memo as memo
        from inspector.session import index_cache

        if witness is not None and witness != memo.config_witness(args.config):
            witness = None  # the config changed while it was read: the replay resolves it again
        memo.bind(index_cache.file_key(session), args.path, args.config, opts.config, config_error, witness)
    return session, ctx, opts, config_error


def human(value: Any, *, missing: str = "unknown") -> str:
    """A value as a person reads it, inert: None -> "unknown" (or `missing`), booleans -> "yes"/"no"."""
    from inspector.base.textsafe import make_inert

    if value is None:
        return missing
    if isinstance(value, bool):
        return "yes" if value else "no"
    return make_inert(str(value), keep_newlines=False)


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 error`, `2 errors` (`many` for irregular plurals)."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def model_label(model: Any) -> str:
    """`provider/modelId` of a model dict, "unknown" for what is missing; inert."""
    model = model if isinstance(model, dict) else {}
    provider, model_id = model.get("provider"), model.get("modelId")
    if provider is None and model_id is None:
        return "unknown"
    return f"{human(provider)}/{human(model_id)}"


def warn(message: str) -> None:
    """One `session-inspector: warning: ...` line on stderr; file text in it is made inert."""
    from inspector.base.textsafe import make_inert

    print(f"session-inspector: warning: {make_inert(message, keep_newlines=False)}", file=sys.stderr)


def print_json(data: Any, *, rules: bool = True) -> None:
    """Print `data` as indented JSON (the command's memo, when one is being recorded, keeps these bytes).

    `rules`: a command's report gets the `"rules"` field (`with_rules`); a session entry shown as it would be
    written (`compact --dry-run`) does not."""
    out = dumps_json(with_rules(data) if rules else data) + b"\n"
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    memo = sys.modules.get("inspector.cli.output_memo")
    if memo is not None and _cache_enabled:
        try:
            memo.record(out)
        except Exception:  # printed already; a memo that cannot be written is no error
            pass


def bounded_int(low: int, high: int, what: str = "a count"):
    """An argparse type: an integer in `low..high` (a clear error otherwise; huge numbers never overflow)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer ({what})") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,} ({what}), not {text.strip()}")
        return value

    parse.__name__ = "integer"
    return parse


PIPE_WIDTH = 4096
MAX_WIDTH = 100_000
_output_width: int | None = None


def width_arg(text: str) -> int:
    """argparse type of `--width N`: an integer in 20..100000 (columns of the tables)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid width {text!r}: expected an integer") from None
    if not 20 <= value <= MAX_WIDTH:
        raise argparse.ArgumentTypeError(f"width {value} out of range (20..{MAX_WIDTH})")
    return value


def add_width_option(p: argparse.ArgumentParser) -> None:
    """`--width N`: lay tables out for N columns (default: the terminal's; `$COLUMNS` or unlimited in a pipe)."""
    p.add_argument(
        "--width", type=width_arg, default=None, metavar="N",
        help="table width in columns (default: the terminal's; in a pipe $COLUMNS, else the full width)",
    )


def set_output_width(width: int | None) -> None:
    """Use `width` columns for every table the running command prints (None: decide from the output)."""
    global _output_width
    _output_width = width


def output_width() -> int | None:
    """The width tables are laid out for: `--width`, else None on a terminal (Rich asks it), else `$COLUMNS`,
    else `PIPE_WIDTH` (a pipe gets the full width: nothing is cut to fit 80 columns)."""
    if _output_width is not None:
        return _output_width
    try:
        if sys.stdout.isatty():
            return None
    except (AttributeError, ValueError, OSError):
        pass
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and 0 < int(columns) <= MAX_WIDTH:
        return int(columns)
    return PIPE_WIDTH


def console() -> Console:
    """A console that never interprets markup or emoji codes in what it prints (transcripts are untrusted).

    Its closed pipe raises `BrokenPipeError` (Rich exits 1 by default) for `inspector.cli`. Rich is imported
    here, on first use: a `--json` run never needs it.
    """
    from rich.console import Console

    class SafeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    return SafeConsole(markup=False, emoji=False, highlight=False, soft_wrap=False, width=output_width())


def number_column(table: Any, header: str, **kw: Any) -> None:
    """A right-aligned numeric column that is never cut: no wrapping, folded rather than ellipsised."""
    table.add_column(header, justify="right", no_wrap=True, overflow="fold", min_width=len(header), **kw)


def add_gateway_log_option(p: argparse.ArgumentParser) -> None:
    """`--gateway-log PATH`: read OpenClaw's Gateway log there (a file and its rotations, or a directory)."""
    p.add_argument(
        "--gateway-log", type=Path, default=None, metavar="PATH",
        help="OpenClaw's Gateway log (file or directory; default: the config's logging.file, else /tmp/openclaw/openclaw-*.log)",
    )


def gateway_log_of(args: argparse.Namespace, session: Session, config: Any) -> Any:
    """What OpenClaw's Gateway log recorded of `session` (`inspector.figures.diagnosis.gateway`), or None when
    nothing is to be shown: no `--gateway-log` and no event of this session in the log found. A store session's
    key is its rows'; a file's, `sessions.json`'s. The log's directories are noted for the output memo
    before they are read."""
    from inspector.figures.diagnosis.gateway import gateway_log_for

    explicit = getattr(args, "gateway_log", None)
    mirror = _rules.store
    memo = sys.modules.get("inspector.cli.output_memo")
    if memo is not None:
        from inspector.host.gateway_log import gateway_log_dirs

        memo.note_gateway_dirs([[str(d), prefix] for d, prefix in gateway_log_dirs(config if isinstance(config, dict) else None, explicit)])
    log = gateway_log_for(session, config if isinstance(config, dict) else None, explicit, mirror.session_key if mirror else None)
    if explicit is None and not log.events:
        return None
    return log
