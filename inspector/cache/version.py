"""Which code wrote a cache entry: an entry written by another version (or another edit) is ignored.

`code_version()` combines the cache's own format number, the Python version (pickle and object layout), the
package version when the package defines one, and a fingerprint of every file of the installed `inspector`
package (relative path, size, mtime): any other release, reinstall or local edit gives another version, so a
cached figure is never one computed by other code. Cheap (a stat per file, ~110 files): no `importlib.metadata`,
whose import alone costs more than the memo's whole fast path.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path

FORMAT_VERSION = 1
"""The cache's own format; bump it when what an entry holds changes shape."""


def _package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


@cache
def code_version() -> str:
    """`f<format>-py<x.y>-<package version>-<fingerprint>`: equal only for the same code on the same Python."""
    root = _package_dir()
    digest = hashlib.blake2b(digest_size=12)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(dirpath, name)
            try:
                st = os.stat(full)
            except OSError:
                continue
            digest.update(f"{os.path.relpath(full, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    package = sys.modules.get("inspector")
    release = str(getattr(package, "__version__", "")) or "dev"
    py = f"{sys.implementation.name}{sys.version_info.major}.{sys.version_info.minor}"
    return f"f{FORMAT_VERSION}-{py}-{release}-{digest.hexdigest()}"
