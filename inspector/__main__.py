"""`python -m inspector` runs the `session-inspector` command."""

from inspector.cli import run

run()
