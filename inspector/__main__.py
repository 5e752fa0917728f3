"""`python -m inspector` runs the `session-inspector` command."""

from .cli import run

run()
