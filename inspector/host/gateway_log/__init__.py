"""What OpenClaw's Gateway recorded about a session in its own log (OpenClaw 2026.9.6's JSON-lines file log).

`locate.py` finds the log files (the config's `logging.file`, else the dated rolling files of the default
directory, each with its numbered rotations); `events.py` turns one log line into a typed `GatewayEvent` (overflow
prechecks, overflow diagnostics, compaction attempts and results, tool-loop aborts); `read.py` reads the files
safely (never writes; a corrupt or huge line is a diagnostic naming its file and line) and returns the events of
one session key or session id in time order. No log is no error: an empty `GatewayLog`.
"""

from inspector.host.gateway_log.events import EVENT_KINDS, GatewayEvent, parse_record
from inspector.host.gateway_log.locate import gateway_log_dirs, gateway_log_files, session_key_for
from inspector.host.gateway_log.read import GatewayLog, LogDiagnostic, read_gateway_log

__all__ = [
    "EVENT_KINDS",
    "GatewayEvent",
    "GatewayLog",
    "LogDiagnostic",
    "gateway_log_dirs",
    "gateway_log_files",
    "parse_record",
    "read_gateway_log",
    "session_key_for",
]
