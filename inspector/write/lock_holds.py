"""The session write locks this process holds, and their release at exit and on signals.

A count per lock path makes the lock re-entrant within the process (`lock.py` takes and drops holds); every lock
still held is released at exit (`atexit`) and on SIGTERM / SIGINT / SIGQUIT / SIGABRT when no other handler is
installed for the signal.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CLEANUP_SIGNALS", "HELD", "HELD_LOCK", "Held", "register_cleanup", "release_all_held"]

CLEANUP_SIGNALS = ("SIGINT", "SIGTERM", "SIGQUIT", "SIGABRT")


@dataclass
class Held:
    """One lock this process holds: its file, the descriptor kept open, how many holds share it, since when."""

    lock_path: Path
    fd: int
    count: int = 1
    acquired_at_ms: int = 0


HELD: dict[str, Held] = {}
"""The locks this process holds, by normalized lock path."""
HELD_LOCK = threading.RLock()
"""Guards `HELD`."""
_CLEANUP_REGISTERED = False


def _release_all() -> None:
    with HELD_LOCK:
        for key, held in list(HELD.items()):
            with contextlib.suppress(OSError):
                os.close(held.fd)
            with contextlib.suppress(OSError):
                os.unlink(held.lock_path)
            HELD.pop(key, None)


def release_all_held() -> None:
    """Release every lock this process holds now (a process about to end without its `atexit`: `os._exit`)."""
    _release_all()


def _signal_handler(signum: int, frame: Any) -> None:
    _release_all()
    with contextlib.suppress(Exception):
        signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def register_cleanup() -> None:
    """Release every held lock at exit and on the cleanup signals (installed once per process)."""
    global _CLEANUP_REGISTERED
    if _CLEANUP_REGISTERED:
        return
    _CLEANUP_REGISTERED = True
    atexit.register(_release_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for name in CLEANUP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        try:
            current = signal.getsignal(signum)
        except (ValueError, OSError):
            continue
        # Only take over signals nobody else handles (Python's own SIGINT -> KeyboardInterrupt is left alone:
        # the `finally` of the lock's `with` block releases it, and atexit covers the rest).
        if current is signal.SIG_DFL:
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, _signal_handler)
