"""OpenClaw 2026.9.6 (its bundled agent core, a fork of pi): the rules that changed since 2026.4.12.

This folder holds only the parts 2026.9.6 changed; every other part is 2026.4.12's (`Release.inherits`), imported
from there by `inspector.rules.ruleset.RuleSet.part`, never copied. `rule_set("openclaw-2026.9.6")` is the way in.
"""

from inspector.rules.ruleset import Release

# The 2026.9.6 estimators are declared by its `tokens` part once it has one; until then they are 2026.4.12's.
from inspector.rules.openclaw_2026_4_12 import RELEASE as _APRIL

RELEASE = Release(
    id="openclaw-2026.9.6",
    title="OpenClaw 2026.9.6 (its own agent core)",
    openclaw_version="2026.9.6",
    pi_version="0.73.1",
    estimators=_APRIL.estimators,
    max_session_version=4,
    inherits=_APRIL.id,
)
"""OpenClaw 2026.9.6: the release this folder reproduces (the parts it does not hold are 2026.4.12's)."""
