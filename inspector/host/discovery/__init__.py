"""Find session transcripts on disk: OpenClaw agent session dirs, pi's session tree, or any directory.

`discover_sessions` (in `scan`) returns a `Discovery` of `SessionFile`s (in `files`); file names are classified by
`names` (OpenClaw's archive/checkpoint rules) and joined with OpenClaw's `sessions.json` by `store`. Discovery only
lists and stats files (and, unless told not to, reads each one's first lines for its format); the per-file figures
of a listing are `inspector.host.listing`'s.
"""

from inspector.host.discovery.files import Discovery, SessionFile
from inspector.host.discovery.names import (
    SESSION_STORE_FILENAME,
    ArchiveReason,
    FileName,
    SessionKind,
    SessionSource,
    classify_file_name,
)
from inspector.host.discovery.scan import (
    discover_sessions,
    pi_agent_dir,
    scan_openclaw_sessions_dir,
    scan_openclaw_state_dir,
    scan_tree,
)

__all__ = [
    "SESSION_STORE_FILENAME",
    "ArchiveReason",
    "Discovery",
    "FileName",
    "SessionFile",
    "SessionKind",
    "SessionSource",
    "classify_file_name",
    "discover_sessions",
    "pi_agent_dir",
    "scan_openclaw_sessions_dir",
    "scan_openclaw_state_dir",
    "scan_tree",
]
