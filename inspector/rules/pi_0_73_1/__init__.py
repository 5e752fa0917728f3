"""pi 0.73.1 on its own (a pi session, not OpenClaw's): the rules that changed since pi 0.66.1.

Its session format (v3, UUIDv7 session ids), estimator, cut point and prompt texts are 0.66.1's, so this folder
inherits everything from `openclaw-2026.4.12` (`Release.inherits`) but the overflow check (pi-ai 0.73.1's
`isContextOverflow` adds a third case: `compaction/triggers.py`) and the summaries' reasoning (the session's thinking
level instead of a fixed "high": `compaction/prompts.py`). Chosen for a file in pi's sessions folder whose pi is 0.73.1 or
later (`inspector.host.rules_choice.pi_session_rules`), or with `--rules pi-0.73.1`.
"""

from inspector.rules.openclaw_2026_4_12 import RELEASE as _APRIL
from inspector.rules.ruleset import Release

RELEASE = Release(
    id="pi-0.73.1",
    title="pi 0.73.1 (a pi session, without OpenClaw)",
    openclaw_version=None,
    pi_version="0.73.1",
    estimators=_APRIL.estimators,
    max_session_version=3,
    inherits=_APRIL.id,
)
"""pi 0.73.1: what this folder reproduces (every part but the overflow check and the summaries' reasoning is pi
0.66.1's, as 2026.4.12 has it)."""
