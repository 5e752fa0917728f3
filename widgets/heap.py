"""Keep the garbage collector from pausing the UI on very large sessions.

An indexed 300k-entry session is millions of long-lived Python objects (entries, estimates, tree maps). The
cyclic garbage collector's full (generation 2) passes walk all of them: hundreds of milliseconds, at random
moments while scrolling. `gc.freeze()` moves everything alive now into a permanent generation the collector
skips; objects freed later are still reclaimed by reference counting.
"""

from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Exclude every object alive now from future collections (call after indexing a session)."""
    gc.collect(1)
    gc.freeze()
