"""Crash-test hook: make this process SIGKILL itself right after its Nth os-level file operation.

`SESSION_INSPECTOR_KILL_AFTER_OP` is read by `compact` and `undo` when they start (`install_from_env`):

* `N` (N ≥ 1): right after the Nth file operation returns, write `session-inspector: killed after file operation N
  (<op> <target>)` to stderr and send SIGKILL to this process: a real crash (no `finally`, no `atexit`, the lock
  and any temp file stay behind);
* `OP:N` (e.g. `replace:2`): the same after the Nth operation named OP;
* `0`: kill nothing; every operation is logged to stderr (`session-inspector: file operation N: <op> <target>`),
  to see where the kills can land.

The operations counted are the `os` functions that change files or create descriptors: `open`, `write`,
`fsync`, `replace`, `rename`, `link`, `unlink`, `truncate`, `ftruncate` (whoever calls them in the process;
reads, `stat` and `close` are not counted). When the variable is unset nothing is installed: the `os` functions
stay what they are and the hook costs nothing. `kill_after(n)` arms the same hook from code (a forked test
worker). It is for tests and adversarial runs only.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from typing import Any

KILL_ENV = "SESSION_INSPECTOR_KILL_AFTER_OP"
OPERATIONS = ("open", "write", "fsync", "replace", "rename", "link", "unlink", "truncate", "ftruncate")

_REAL: dict[str, Callable[..., Any]] = {}
_state: dict[str, Any] = {"count": 0, "named": 0, "at": 0, "op": None}


def _target(op: str, args: tuple[Any, ...]) -> str:
    if not args:
        return ""
    first = args[0]
    if isinstance(first, int) and op in ("write", "fsync", "ftruncate"):
        with contextlib.suppress(OSError):
            return os.readlink(f"/proc/self/fd/{first}")
        return f"fd {first}"
    if op in ("replace", "rename", "link") and len(args) > 1:
        return f"{os.fsdecode(args[0])} -> {os.fsdecode(args[1])}"
    return os.fsdecode(first) if isinstance(first, (str, bytes, os.PathLike)) else str(first)


def _say(text: str) -> None:
    _REAL["write"](2, f"session-inspector: {text}\n".encode("utf-8", "replace"))


def _after(op: str, args: tuple[Any, ...]) -> None:
    st = _state
    st["count"] += 1
    if st["op"] is not None:
        if op != st["op"]:
            return
        st["named"] += 1
        hit = st["named"] == st["at"]
    else:
        hit = st["count"] == st["at"]
    if st["at"] == 0 and st["op"] is None:
        _say(f"file operation {st['count']}: {op} {_target(op, args)}")
    elif hit:
        _say(f"killed after file operation {st['count']} ({op} {_target(op, args)})")
        os.kill(os.getpid(), signal.SIGKILL)


def _wrap(op: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        _after(op, args)
        return result

    counted.__name__ = real.__name__
    counted.__doc__ = real.__doc__
    return counted


def kill_after(n: int, op: str | None = None) -> None:
    """Arm the hook in this process: SIGKILL after the `n`th file operation (named `op`, when given); 0 logs them."""
    if op is not None and op not in OPERATIONS:
        raise ValueError(f"{op}: not one of {', '.join(OPERATIONS)}")
    if n < 0 or (op is not None and n < 1):
        raise ValueError(f"{n}: the operation number must be 1 or more (0 without a name: log every operation)")
    if not _REAL:
        for name in OPERATIONS:
            _REAL[name] = getattr(os, name)
            setattr(os, name, _wrap(name, _REAL[name]))
    _state.update(count=0, named=0, at=n, op=op)


def install_from_env(env: dict[str, str] | None = None) -> bool:
    """Arm the hook from `SESSION_INSPECTOR_KILL_AFTER_OP` when it is set (see the module docstring)."""
    raw = (os.environ if env is None else env).get(KILL_ENV, "").strip()
    if not raw:
        return False
    op, _, number = raw.rpartition(":")
    try:
        kill_after(int(number), op or None)
    except ValueError as exc:
        raise SystemExit(f"session-inspector: {KILL_ENV}={raw!r}: {exc}") from None
    return True
