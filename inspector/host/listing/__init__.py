"""Listing figures of many session files, read cheaply: the header and the tail, never a full index.

`glance_session` gives one file's `SessionGlance` (what `ls --json` prints as `glance` and the session browser
shows first); `GlanceReader` is the one function a listing calls per file, so a cache can stand in front of it.
"""

from inspector.host.listing.glance import GlanceReader, SessionGlance, glance_files, glance_session

__all__ = ["GlanceReader", "SessionGlance", "glance_files", "glance_session"]
