"""The app's terminal driver: Textual's Linux driver, made to end the app when its terminal goes away.

When the terminal is closed under the app (a tmux pane or session killed, an ssh link dropped, a terminal window
closed), the kernel hangs the tty up: it sends SIGHUP *and SIGCONT*, every read returns b'' at once and every write
fails. Textual's Linux driver takes none of that as the end: its input thread loops on `select` + an empty `read`
(a busy loop: ~37% of a core per orphan, measured), its SIGCONT handler "resumes" application mode on the dead
terminal from inside a signal handler, and its shutdown writes escape codes to a writer thread that died on EIO
(the app's event loop then blocks for good on the writer's full queue, so the SIGHUP handler never runs).

`TerminalDriver` watches the terminal itself, off the event loop: a daemon thread blocks in `poll` for the hang-up
(no CPU while the terminal lives). On hang-up it drops every later write, ignores the SIGCONT, asks the app to exit
(129, as SIGHUP) and arms a last resort: if the process is still there `EXIT_GRACE_SECONDS` later (a thread worker
that does not end, an event loop blocked), it releases the session write locks it holds and ends with `os._exit`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import signal
import termios
import threading
from typing import Any

from textual.drivers.linux_driver import LinuxDriver

from inspector.write.lock_holds import release_all_held

__all__ = ["EXIT_GRACE_SECONDS", "HANGUP_EXIT_CODE", "TerminalDriver", "terminal_gone"]

EXIT_GRACE_SECONDS = 2.0
"""After a hang-up, how long the app has to exit on its own before the process ends itself."""
HANGUP_EXIT_CODE = 128 + signal.SIGHUP
_WATCH_POLL_MS = 1000  # the watcher wakes this often to see whether the driver stopped (no work when it did not)


def terminal_gone(fd: int) -> bool:
    """Whether the terminal on `fd` was hung up (or closed): a hung-up tty answers every ioctl with an error."""
    try:
        termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):
        return True
    return False


class TerminalDriver(LinuxDriver):
    """Textual's Linux driver that ends the app promptly, locks released, once its terminal is gone."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hung_up = threading.Event()
        """Set once the terminal is gone: writes are dropped from then on."""
        self._watching = threading.Event()

    def start_application_mode(self) -> None:
        if self.hung_up.is_set():
            return
        super().start_application_mode()
        if not self._watching.is_set():
            self._watching.set()
            threading.Thread(target=self._watch, args=(self.fileno,), name="terminal-watch", daemon=True).start()

    def stop_application_mode(self) -> None:
        self._watching.clear()  # a normal exit or a suspend (Ctrl+Z): the terminal is given back, not lost
        super().stop_application_mode()

    def _sigcont_application(self, *args: Any) -> None:
        # The kernel sends SIGCONT with SIGHUP on a hang-up: nothing to resume on a terminal that is gone.
        if self.hung_up.is_set() or terminal_gone(self.fileno):
            self.on_hangup()
            return
        super()._sigcont_application(*args)

    def write(self, data: str) -> None:
        if not self.hung_up.is_set():
            super().write(data)

    def flush(self) -> None:
        if not self.hung_up.is_set():
            super().flush()

    def close(self) -> None:
        if not self.hung_up.is_set():
            super().close()
            return
        writer = self._writer_thread
        if writer is not None:  # it may have died on EIO with a full queue: no blocking put, no join
            with contextlib.suppress(Exception):
                writer._queue.put_nowait(None)

    def _watch(self, fd: int) -> None:
        """Block until the terminal hangs up (POLLHUP / POLLERR / POLLNVAL are reported whatever the mask)."""
        poller = select.poll()
        try:
            poller.register(fd, 0)
        except (OSError, ValueError):
            return
        while self._watching.is_set():
            try:
                events = poller.poll(_WATCH_POLL_MS)
            except InterruptedError:
                continue
            except OSError:
                events = [(fd, select.POLLERR)]
            if not self._watching.is_set():
                return
            if events and terminal_gone(fd):
                self.on_hangup()
                return

    def on_hangup(self) -> None:
        """The terminal is gone: stop writing, stop the input thread, ask the app to exit, and arm the last resort."""
        if self.hung_up.is_set():
            return
        self.hung_up.set()
        self._watching.clear()
        self.exit_event.set()  # the input thread would otherwise spin on select + an empty read
        timer = threading.Timer(EXIT_GRACE_SECONDS, _end_process)
        timer.daemon = True
        timer.start()
        loop = self._loop  # the app's event loop (`Driver.__init__`)
        if not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(functools.partial(self._app.exit, return_code=HANGUP_EXIT_CODE))


def _end_process() -> None:
    """The app did not exit within the grace time of a hang-up: release the session locks and end the process."""
    with contextlib.suppress(Exception):
        release_all_held()
    os._exit(HANGUP_EXIT_CODE)
