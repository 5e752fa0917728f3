"""`session-inspector`: headless commands, and the TUI when no command is given.

Every module in `inspector.cli.commands` that defines `register(subparsers)` adds one subcommand named after the
module (`inspector/cli/commands/stats.py` adds `stats`); its parser sets `func=run`, and `run(args) -> int` returns
the exit code. An argument list that does not start with a command name opens the interactive inspector.
"""

from __future__ import annotations

import errno
import os
import sys

from inspector.cli import commands

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a replayed memo (`_replay_memo`) imports as little as it can
if TYPE_CHECKING:
    import argparse
    from types import ModuleType

EXIT_OK = 0
EXIT_OUTPUT = 1
EXIT_ERROR = 2
EXIT_UNSUPPORTED = 3


def command_module_names() -> list[str]:
    """The names of the modules in `inspector.cli.commands` that may add a subcommand, in name order (nothing imported)."""
    import pkgutil  # here, not at the top: a replayed memo (`_replay_memo`) never needs it

    return sorted(info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_"))


def is_command_name(name: str) -> bool:
    """Whether `name` is the name of a module in `inspector.cli.commands` (a file test first: `pkgutil` and the
    `inspect` it imports cost a command ~15 ms; enumerated only when no source file is found, e.g. bytecode-only
    installs)."""
    if not name.isidentifier() or name.startswith("_"):
        return False
    if any(os.path.isfile(os.path.join(folder, name + ".py")) for folder in commands.__path__):
        return True
    return name in command_module_names()


def command_module(name: str) -> ModuleType | None:
    """The command module `name`, imported now; None when it adds no subcommand."""
    import importlib

    mod = importlib.import_module(f"{commands.__name__}.{name}")
    return mod if hasattr(mod, "register") else None


def command_modules() -> list[ModuleType]:
    """Every command module, in name order."""
    return [mod for name in command_module_names() if (mod := command_module(name)) is not None]


def command_name(module: ModuleType) -> str:
    """The subcommand a command module adds: its module name."""
    return module.__name__.rpartition(".")[2]


def command_names() -> list[str]:
    """The names of every subcommand, in name order."""
    return [command_name(mod) for mod in command_modules()]


def build_parser(modules: list[ModuleType] | None = None) -> argparse.ArgumentParser:
    """The `session-inspector` parser with one subcommand per command module."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="session-inspector",
        description=(
            "Inspect OpenClaw / pi session transcripts: where the context window goes, what pruning would cut. "
            "Without a command, opens the interactive inspector (on the bundled demo session when no PATH is given "
            "and no sessions are found)."
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in command_modules() if modules is None else modules:
        mod.register(sub)
    from inspector.host.rules_choice import add_rules_option
    from inspector.read.store.locate import add_session_option

    for command_parser in sub.choices.values():
        add_rules_option(command_parser)
        if any(action.dest == "path" for action in command_parser._actions):
            add_session_option(command_parser)
    return parser


def run() -> None:
    """The `session-inspector` console script (and `python -m inspector`): `main()`, then the process ends.

    After a headless command, and after the app has ended and given the terminal back, the interpreter's own
    teardown is skipped (`exit_now`): freeing an index of a few hundred thousand entries object by object costs a
    command 15-50 ms after its output is complete, and kept the app's process alive for seconds after `q` on a big
    session. Not under a profiler or a tracer (`python -m cProfile -o ...` writes its file after this returns).
    """
    global _exits_now
    _exits_now = True
    code = main()
    if (_headless_ran or _app_ran) and sys.getprofile() is None and sys.gettrace() is None:  # a profiler writes its file on return
        exit_now(code)
    sys.exit(code)


def exit_now(code: int) -> None:
    """End the process with `code` as the interpreter would, minus freeing every object: standard streams flushed,
    `atexit` handlers run, then `os._exit`. A normal exit instead while a non-daemon thread still runs (it would be
    waited for)."""
    import threading

    if any(t is not threading.main_thread() and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout:
                _silence_stdout()
                code = code or EXIT_OUTPUT
    import atexit

    atexit._run_exitfuncs()
    os._exit(code)


_headless_ran = False
"""Whether `main` ran a headless command (the only kind `run` ends with `exit_now`)."""
_app_ran = False
"""Whether `main` ran the interactive app to its end (the terminal given back): `run` then ends with `exit_now`."""
_exits_now = False
"""Whether this process ends with `exit_now` after a headless command (`run`): what it opened is then never freed."""


def main(argv: list[str] | None = None) -> int:
    """Run a headless command, or the interactive inspector when `argv` does not start with a command name."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in MEMO_COMMANDS:
        replayed = _replay_memo(argv)
        if replayed is not None:
            return replayed
    elif "inspector.cli.output_memo" in sys.modules:
        sys.modules["inspector.cli.output_memo"].begin(argv)  # nothing to record for this command line
    # Only the command being run is imported (each costs imports: the compaction runner, rich...); help lists all.
    chosen = command_module(argv[0]) if argv and is_command_name(argv[0]) else None
    if chosen is None and (not argv or argv[0] not in ("-h", "--help")):
        return run_app(argv)
    args = build_parser([chosen] if chosen is not None else None).parse_args(argv)
    return run_command(args)


MEMO_COMMANDS = frozenset({"stats", "context", "timeline"})
"""Commands whose `--json` output `inspector.cli.output_memo` may replay (the same set as there, kept light here)."""


def _replay_memo(argv: list[str]) -> int | None:
    """Print the memoized output of this command line when still valid (exit 0); None: run the command.

    Tried before any command module is imported; also starts recording this command line's output.
    """
    from inspector.cli import output_memo as memo

    out = memo.replay(argv)
    if out is None:
        memo.begin(argv)
        return None
    if sys.stdout is None:
        return None
    try:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        _silence_stdout()
        _error(f"{exc.strerror or exc}")
        return EXIT_OUTPUT
    return EXIT_OK


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail again (closed pipe, full disk)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _error(message: str) -> None:
    from inspector.base.textsafe import make_inert

    try:
        print(f"session-inspector: {make_inert(message, keep_newlines=False)}", file=sys.stderr)
    except OSError:
        pass


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed command and map how it ends to an exit code.

    0 success; 1 an output or I/O error (full disk, EIO), one line on stderr; a closed pipe (`| head`) ends
    quietly with 0 as other Unix tools; 2 a file that cannot be opened; 3 a transcript of an unsupported format.
    """
    from inspector.cli.commands._common import (
        CommandExit,
        begin_rules,
        open_store_source,
        save_cache,
        set_cache_enabled,
        set_output_width,
    )

    global _headless_ran
    _headless_ran = True
    begin_rules(args)
    set_output_width(getattr(args, "width", None))
    set_cache_enabled(not getattr(args, "no_cache", False))
    if sys.stdout is None:  # started with fd 1 closed (`>&-`)
        _error("standard output is closed: nothing can be printed")
        return EXIT_OUTPUT
    try:
        # A lone surrogate (JSON.parse accepts them) must not crash printing: show it as an escape.
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        pass
    try:
        try:
            open_store_source(args)
            from inspector.cli.commands._foreign import open_foreign_source

            open_foreign_source(args)
            code = int(args.func(args) or 0)
        finally:
            memo = sys.modules.get("inspector.cli.output_memo")
            if memo is not None:
                memo.end()
            helper = sys.modules.get("inspector.counting.helper")
            if helper is not None:
                helper.stop(wait=not _exits_now)  # the counts are made: the helper ends (and is not waited for at exit)
        sys.stdout.flush()
        save_cache(retain=_exits_now)
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except CommandExit as exc:
        _error(str(exc))
        return exc.code
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            _silence_stdout()
            return EXIT_OK
        _silence_stdout()
        where = f"{exc.filename}: " if exc.filename else ""
        _error(f"{where}{exc.strerror or exc}")
        return EXIT_OUTPUT


def run_app(argv: list[str]) -> int:
    """Open the interactive inspector (`session-inspector [PATH] [--demo] [--context-window N] [--config FILE]`)."""
    from widgets.app import main as run_inspector  # lazy: headless commands never import Textual

    global _app_ran
    code = run_inspector(argv)
    _app_ran = True
    return code


if __name__ == "__main__":  # pragma: no cover
    run()
