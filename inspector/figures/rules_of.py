"""The one way from a session to its rules: `rules_of(session)`, the `RuleSet` it was read with.

Figures never import a release folder: they call the parts of the session's rule set (`rules.window_guard`,
`rules.context_usage`, `rules.triggers`, ...), so a session of another release gets that release's rules. The types
of a part's results (`ContextWindow`, `ReserveTokens`, ...) are imported for annotations only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.rules.ruleset import RuleSet, rule_set

if TYPE_CHECKING:
    from inspector.session.session import Session


def rules_of(session: Session) -> RuleSet:
    """The rule set `session` was read with (`Session.rules_id`)."""
    return rule_set(session.rules_id)
