"""Run the `session-inspector` CLI inside the test process: `inspector.cli.main(argv)` with its own stdin, stdout,
stderr, environment and working directory, answered as a `subprocess.CompletedProcess`.

A `python -m inspector` subprocess spends about a second of CPU importing before it does anything; tests about
what a command prints, its JSON and its exit code run it here instead. What only a real process shows stays a
subprocess in the tests: signals, closed or full pipes, ttys, hangs (a FIFO), concurrency, `python -m` itself.

The result is what `subprocess.run(..., capture_output=True, text=True)` would give for the same command: stdout
and stderr are bytes written through UTF-8 text streams (stdout strict, as the interpreter sets it up for a pipe;
stderr with backslashreplace), decoded with universal newlines; `SystemExit` ends the run with its code as the
interpreter would, and any other exception is a printed traceback and exit code 1.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspector.cli import main

__all__ = ["run_cli"]


class _Sink(io.BytesIO):
    """The bytes behind one standard stream; closing it (as a command may) keeps what was written."""

    def close(self) -> None:
        self.flush()


def _stream(errors: str, data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(_Sink(data), encoding="utf-8", errors=errors)


def _text(stream: io.TextIOWrapper) -> str:
    try:
        stream.flush()
    except (OSError, ValueError):
        pass
    sink = stream.buffer
    assert isinstance(sink, _Sink)
    return sink.getvalue().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as subprocess's text mode


@contextmanager
def _environment(env: Mapping[str, str] | None, cwd: str | Path | None) -> Iterator[None]:
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message"): the interpreter prints it and exits 1
    return 1


def run_cli(args: Sequence[Any], *, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
            stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`session-inspector ARGS` in this process; `env` replaces the environment for the run (None: keep it)."""
    argv = [str(a) for a in args]
    out, err, inp = _stream("strict"), _stream("backslashreplace"), _stream("strict", stdin.encode())
    saved = sys.stdin, sys.stdout, sys.stderr
    with _environment(env, cwd):
        sys.stdin, sys.stdout, sys.stderr = inp, out, err
        try:
            try:
                code = main(argv)
            except SystemExit as exc:
                code = _exit_code(exc)
            except KeyboardInterrupt:
                raise
            except BaseException:  # what the interpreter does with an uncaught exception
                traceback.print_exc()
                code = 1
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
    return subprocess.CompletedProcess(["session-inspector", *argv], code, _text(out), _text(err))
