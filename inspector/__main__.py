"""`python -m inspector` runs the `session-inspector` command."""

import sys

from .cli import main

sys.exit(main())
